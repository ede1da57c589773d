/**
 * The look-up set: short requests (a word, a concept, a name) with the file a developer would name, over trees of the
 * commit set's repositories (lookup-cases.tsv). The other sets cannot measure look-ups: the commit set drops every
 * message that names a file it changed, and the description set the repository's names.
 *
 *   CODERAG_EVAL_MIRRORS=/work/.mirror node --import tsx bench/eval/lookup.ts [--misses]
 *
 * Each tree is extracted from its mirror (checkout.ts; a cached tree needs none) and indexed in memory without
 * history; each request is searched with maxResults 10. Prints R@1, R@3 and MRR@10 per set (`blind`, written without
 * running any search; `hand`, tried against CodeRAG while looking for its misses) and, with --misses, each miss.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { indexRepo } from '../../src/lib.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import type { SearchRequest } from '../../src/search/types.js';
import { materialise } from './checkout.js';
import { REPOS } from './mine.js';
import { mirrorFinder } from './mirrors.js';

export interface LookupCase {
  set: string;
  repo: string;
  sha: string;
  request: Pick<SearchRequest, 'query' | 'target' | 'keywords'>;
  answer: RegExp;
  text: string;
}

/** The cases of a lookup-cases.tsv text; `#` lines are comments. */
export function parseLookupCases(text: string): LookupCase[] {
  return text
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => {
      const [set, tree, request, answer] = line.split('\t');
      const at = tree?.indexOf('@') ?? -1;
      if (!set || !tree || at < 1 || !request || !answer) throw new Error(`lookup-cases.tsv: bad line: ${line}`);
      const target = /^--target (\S+) --keywords (.+)$/.exec(request);
      return {
        set,
        repo: tree.slice(0, at),
        sha: tree.slice(at + 1),
        request: target ? { target: target[1] as string, keywords: (target[2] as string).split(',') } : { query: request },
        answer: new RegExp(answer),
        text: request,
      };
    });
}

async function main(): Promise<void> {
  const misses = process.argv.includes('--misses');
  const cases = parseLookupCases(readFileSync(join(import.meta.dirname, 'lookup-cases.tsv'), 'utf8'));
  const findMirror = mirrorFinder(undefined);
  const corpora = new Map<string, SearchCorpus>();
  const stats = new Map<string, { n: number; r1: number; r3: number; rr: number; missed: string[] }>();
  for (const c of cases) {
    const tree = `${c.repo}@${c.sha}`;
    let corpus = corpora.get(tree);
    if (!corpus) {
      const hint = REPOS.find((r) => r.repo === c.repo)?.hint;
      if (!hint) throw new Error(`lookup-cases.tsv: ${c.repo} is not a repository of the commit set`);
      const dir = materialise(c.repo, c.sha, findMirror(hint));
      corpus = new SearchCorpus([{ key: tree, file: '', index: await indexRepo(dir) }]);
      corpora.set(tree, corpus);
    }
    const refs = search(corpus, { ...c.request, maxResults: 10 }).references;
    const rank = refs.findIndex((r) => c.answer.test(r.file_path)) + 1;
    const s = stats.get(c.set) ?? { n: 0, r1: 0, r3: 0, rr: 0, missed: [] };
    s.n++;
    if (rank === 1) s.r1++;
    if (rank >= 1 && rank <= 3) s.r3++;
    if (rank >= 1) s.rr += 1 / rank;
    else s.missed.push(`${c.repo}\t${c.text}\t${c.answer.source}\t<- ${refs.slice(0, 3).map((r) => r.file_path).join(' | ') || '(nothing)'}`);
    if (rank > 1) s.missed.push(`${c.repo}\t${c.text}\t@${rank}`);
    stats.set(c.set, s);
  }
  console.log('set     cases    R@1    R@3  MRR@10');
  for (const [set, s] of stats) {
    console.log(`${set.padEnd(7)} ${String(s.n).padStart(5)}  ${(s.r1 / s.n).toFixed(3)}  ${(s.r3 / s.n).toFixed(3)}  ${(s.rr / s.n).toFixed(3)}`);
    if (misses) for (const line of s.missed) console.log(`  ${line}`);
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}
