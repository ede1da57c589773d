/**
 * The look-up set: short requests (a word, a concept, a name) with the file a developer would name, over trees of the
 * commit set's repositories (lookup-cases.tsv). The other sets cannot measure look-ups: the commit set drops every
 * message that names a file it changed, and the description set the repository's names.
 *
 *   CODERAG_EVAL_MIRRORS=/work/.mirror node --import tsx bench/eval/lookup.ts [--rankers coderag,bm25,keyword] [--misses]
 *
 * Each tree is extracted from its mirror (checkout.ts; a cached tree needs none); every ranker sees run.ts's
 * candidates (listCandidates) and ranks the first 10; CodeRAG indexes the tree without history (coderagRanker.ts,
 * its disk cache included). Prints R@1, R@3 and MRR@10 per set (`blind`, written without running any search;
 * `hand`, tried against CodeRAG while looking for its misses) and ranker, and with --misses each miss.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchRequest } from '../../src/search/types.js';
import { bm25Ranker, keywordRanker, keywordTerms } from './baselines.js';
import { materialise } from './checkout.js';
import { createCodeRagRanker } from './coderagRanker.js';
import { REPOS } from './mine.js';
import { mirrorFinder } from './mirrors.js';
import { listCandidates } from './run.js';
import type { RankQuery, Ranker } from './types.js';

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
  const args = process.argv.slice(2);
  const misses = args.includes('--misses');
  const rankersFlag = args.indexOf('--rankers') >= 0 ? args[args.indexOf('--rankers') + 1] : undefined;
  const want = (name: string): boolean => !rankersFlag || rankersFlag.split(',').includes(name);
  const rankers: Ranker[] = [...(want('keyword') ? [keywordRanker] : []), ...(want('bm25') ? [bm25Ranker] : [])];
  if (want('coderag')) rankers.push(createCodeRagRanker());
  const cases = parseLookupCases(readFileSync(join(import.meta.dirname, 'lookup-cases.tsv'), 'utf8'));
  const findMirror = mirrorFinder(undefined);
  const stats = new Map<string, { n: number; r1: number; r3: number; rr: number; missed: string[] }>();
  for (const tree of [...new Set(cases.map((c) => `${c.repo}@${c.sha}`))]) {
    const [repo, sha] = tree.split('@') as [string, string];
    const hint = REPOS.find((r) => r.repo === repo)?.hint;
    if (!hint) throw new Error(`lookup-cases.tsv: ${repo} is not a repository of the commit set`);
    const dir = materialise(repo, sha, findMirror(hint));
    const files = listCandidates(dir, false);
    for (const ranker of rankers) {
      const prepared = await ranker.prepare(dir, files);
      for (const c of cases.filter((x) => x.repo === repo && x.sha === sha)) {
        const q: RankQuery = c.request.target ? { query: '', target: c.request.target, keywords: c.request.keywords ?? [] } : { query: c.text, keywords: keywordTerms(c.text) };
        const ranked = await ranker.rank(prepared, q, 10);
        const rank = ranked.findIndex((path) => c.answer.test(path)) + 1;
        const key = `${c.set}\t${ranker.name}`;
        const s = stats.get(key) ?? { n: 0, r1: 0, r3: 0, rr: 0, missed: [] };
        s.n++;
        if (rank === 1) s.r1++;
        if (rank >= 1 && rank <= 3) s.r3++;
        if (rank >= 1) s.rr += 1 / rank;
        if (rank !== 1) s.missed.push(`${repo}\t${c.text}\t${rank ? `@${rank}` : `${c.answer.source} <- ${ranked.slice(0, 3).join(' | ') || '(nothing)'}`}`);
        stats.set(key, s);
      }
    }
  }
  console.log('set     ranker    cases    R@1    R@3  MRR@10');
  for (const [key, s] of [...stats].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const [set, ranker] = key.split('\t') as [string, string];
    console.log(`${set.padEnd(7)} ${ranker.padEnd(8)} ${String(s.n).padStart(5)}  ${(s.r1 / s.n).toFixed(3)}  ${(s.r3 / s.n).toFixed(3)}  ${(s.rr / s.n).toFixed(3)}`);
    if (misses) for (const line of s.missed) console.log(`  ${line}`);
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}
