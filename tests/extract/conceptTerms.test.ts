import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { DocumentFrequencies, termsFromFlat, type TermList } from '../../src/extract/conceptTerms.js';
import { finalizeConcepts } from '../../src/extract/staticProfile.js';
import { compareCodeUnits, stem } from '../../src/shared/text.js';

/** Concepts as weighing plain lists chooses them: weight × log(1 + files / document frequency of the stem). */
function reference(termLists: TermList[]): string[][] {
  const df = new Map<string, number>();
  for (const terms of termLists) for (const [term] of terms) df.set(stem(term), (df.get(stem(term)) ?? 0) + 1);
  const total = Math.max(termLists.length, 1);
  return termLists.map((terms) =>
    terms
      .map(([term, weight]): [string, number] => [term, weight * Math.log(1 + total / (df.get(stem(term)) ?? 1))])
      .sort((a, b) => b[1] - a[1] || compareCodeUnits(a[0], b[0]))
      .slice(0, 10)
      .map(([term]) => term),
  );
}

function randomLists(seed: number, files: number): TermList[] {
  let state = seed;
  const next = () => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const vocabulary = ['cache', 'caches', 'caching', 'expire', 'expiry', 'ttl', 'store', 'stores', 'clock', 'tick', 'router', 'license', 'mit', 'parse', 'parser', 'token', 'tokens', 'http', 'server', 'client'];
  return Array.from({ length: files }, () => {
    const terms = new Map<string, number>();
    const count = Math.floor(next() * 16);
    for (let i = 0; i < count; i++) terms.set(vocabulary[Math.floor(next() * vocabulary.length)] as string, Math.round(next() * 40) / 4 + Math.log2(1 + i));
    return [...terms.entries()];
  });
}

describe('concepts weighed by document frequency', () => {
  it.each([1, 2, 3])('are those that weighing the plain lists chooses (seed %i)', (seed) => {
    const lists = randomLists(seed, 300);
    expect(finalizeConcepts(lists)).toEqual(reference(lists));
  });

  it('are the same whatever order the files are counted in, and each file is chosen for alone', () => {
    const lists = randomLists(9, 50);
    const frequencies = new DocumentFrequencies();
    for (const list of [...lists].reverse()) frequencies.add(list);
    expect(lists.map((list) => frequencies.concepts(list))).toEqual(reference(lists));
  });

  it('kept up to date (recorded, files gone taken out, new files added) choose what counting every file chooses', () => {
    const before = randomLists(5, 200);
    const recorded = new DocumentFrequencies();
    for (const list of before) recorded.add(list);
    const updated = DocumentFrequencies.fromJson(recorded.toJson());
    const gone = before.slice(0, 30);
    const added = randomLists(6, 45);
    for (const list of gone) updated.remove(list);
    const fresh = new DocumentFrequencies();
    for (const list of added) fresh.add(list);
    updated.merge(fresh);
    const now = [...before.slice(30), ...added];
    expect(now.map((list) => updated.concepts(list))).toEqual(reference(now));
  });

  it('read terms back from the flat form the reuse state records', () => {
    const list = (randomLists(4, 1)[0] as TermList).concat([['ttl', 2.5]]);
    expect(termsFromFlat(list.flat())).toEqual(list);
  });
});

describe('ties between terms', () => {
  it('are broken in code order, whatever the locale of the machine that indexes (Lithuanian sorts y before j)', () => {
    const staticProfile = new URL('../../src/extract/staticProfile.ts', import.meta.url).href;
    const wordCache = new URL('../../src/extract/wordCache.ts', import.meta.url).href;
    const script = `
      const { candidateTermsOf, finalizeConcepts } = await import(${JSON.stringify(staticProfile)});
      const { WordCache } = await import(${JSON.stringify(wordCache)});
      const file = { file_path: 'x', symbols: [], vocabulary: 'yam jam', summary: '', summary_source: 'composed', profile_source: 'static', file_type: 'text' };
      const terms = candidateTermsOf(file, new WordCache());
      console.log(JSON.stringify({ terms, concepts: finalizeConcepts([terms]) }));`;
    const locale = { LC_ALL: 'lt_LT.UTF-8', LANG: 'lt_LT.UTF-8' };
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, ...locale }, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ terms: [['jam', 1], ['yam', 1]], concepts: [['jam', 'yam']] });
  });
});

describe('a file\'s candidate concepts', () => {
  it('come from what the code defines and documents, never sample names (foo, hello) or the hosts of URLs', async () => {
    const { candidateTermsOf } = await import('../../src/extract/staticProfile.js');
    const { WordCache } = await import('../../src/extract/wordCache.js');
    const terms = candidateTermsOf(
      {
        file_path: 'src/retry.ts',
        symbols: [{ kind: 'function', name: 'retryWithBackoff', ast_path: 'retryWithBackoff', start_line: 1, end_line: 9, doc: 'Retries foo with hello world backoff; see https://github.com/acme/retry' }],
        vocabulary: 'foo:9 hello:7 world:7 github:3 githubusercontent:2 localhost:4 backoff:3 jitter:2',
        summary: 'Retries a request with exponential backoff and jitter.',
        summary_source: 'doc',
        profile_source: 'static',
        file_type: 'TypeScript source',
      },
      new WordCache(),
    ).map(([term]) => term);
    expect(terms).toEqual(expect.arrayContaining(['retry', 'backoff', 'jitter']));
    for (const noise of ['foo', 'hello', 'world', 'github', 'githubusercontent', 'localhost', 'acme', 'https']) expect(terms).not.toContain(noise);
  });
});
