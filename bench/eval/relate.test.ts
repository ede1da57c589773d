import { describe, expect, it } from 'vitest';
import { staticProfile } from '../../tests/support/fileSummary.js';
import { parseLookupCases } from './lookup.js';
import { confidenceOf, evidenceOf, heldWords, MAX_STATIC_PER_TARGET, profileCorpus, relateStatically, targetQuery } from '../../src/pipeline/relate.js';
import { defaultConfig } from '../../src/config/schema.js';
import { search } from '../../src/search/search.js';
import { calibrationTable, countCase, depsTargetOf, keptOf, mainExtension, targetOf, type Row } from './relate.js';

describe('the look-up set read as target files', () => {
  it('names a free-text request x with the extension most source files have, and keeps a --target case as written', () => {
    const files = [staticProfile('lib/a.js'), staticProfile('lib/b.js'), staticProfile('index.d.ts'), staticProfile('test/a.ts', { role: 'test' }), staticProfile('test/b.ts', { role: 'test' })];
    expect(mainExtension(files)).toBe('.js');
    const [query, target] = parseLookupCases('blind\tkoa@abc\tcookies\t^lib/context\\.js$\nhand\tgot@def\t--target src/x.ts --keywords a,b c\tsrc/x\n');
    expect(targetOf(query!, '.js')).toEqual({ path: 'x.js', purpose: 'cookies' });
    expect(targetOf(target!, '.js')).toEqual({ path: 'src/x.ts', purpose: 'a b c' });
  });

  it('counts the ranked files above 0.7 that are the gold file, per set', () => {
    const e = { rank: 0, relative: 1, coverage: 1, lead: 1 };
    const table = calibrationTable([
      { set: 'blind', evidence: e, confidence: 0.9, gold: true },
      { set: 'blind', evidence: e, confidence: 0.75, gold: false },
      { set: 'hand', evidence: e, confidence: 0.4, gold: true },
    ]);
    expect(table).toContain('above 0.7, blind: 1 of 2 gold');
    expect(table).toContain('above 0.7, hand: 0 of 0 gold');
    expect(table).toContain('above 0.7, all: 1 of 2 gold (0.500)');
  });
});

describe('the dependency-folder set read as target files', () => {
  it("reads a package's README sentence as the purpose of x.js", () => {
    expect(depsTargetOf({ query: 'Terminal string styling done right' }, '.js')).toEqual({ path: 'x.js', purpose: 'Terminal string styling done right' });
  });

  it('counts a target as top=gold only when its most confident kept relationship lies in the gold package', () => {
    const rows = new Map<string, Row>();
    const inChalk = (p: string): boolean => p.startsWith('chalk@6.0.1/');
    countCase(rows, ['tune', 'all'], [{ path: 'wrap-ansi@10.0.2/index.js', confidence: 0.4 }, { path: 'chalk@6.0.1/source/index.js', confidence: 0.8 }], inChalk);
    countCase(rows, ['tune', 'all'], [{ path: 'wrap-ansi@10.0.2/index.js', confidence: 0.9 }, { path: 'chalk@6.0.1/source/index.js', confidence: 0.35 }], inChalk);
    countCase(rows, ['all'], [], inChalk);
    expect(rows.get('tune')).toEqual({ set: 'tune', cases: 2, top: 1, any: 2, none: 0 });
    expect(rows.get('all')).toEqual({ set: 'all', cases: 3, top: 1, any: 2, none: 1 });
  });

  it('keeps of a ranking what relateStatically keeps: files above min_confidence_score, at most five, in rank order', () => {
    const files = ['parse', 'parse_args', 'args', 'flags', 'options', 'argv', 'command', 'help'].map((name, i) =>
      staticProfile(`pkg${i}/${name}.ts`, { summary: `Parses command line ${i % 2 ? 'arguments' : 'flags'} into options`, key_concepts: ['argument parsing', name] }),
    );
    const target = { path: 'x.ts', purpose: 'parse command line arguments into options' };
    const corpus = profileCorpus('demo', files);
    const response = search(corpus, { ...targetQuery(target), maxResults: 10 });
    const held = heldWords(corpus);
    const ranked = response.references.map((ref, rank) => ({ path: ref.file_path, confidence: confidenceOf(evidenceOf(response, rank, held)) }));
    for (const min of [0, 0.33]) {
      const settings = { ...defaultConfig().relationships, min_confidence_score: min };
      const kept = relateStatically('demo', files, [target], settings).map((r) => r.repo_file_path);
      expect(keptOf(ranked, min).map((r) => r.path)).toEqual(kept);
      if (min === 0) expect(kept).toHaveLength(MAX_STATIC_PER_TARGET);
    }
  });
});
