/**
 * The look-up set: short requests (a word, a concept, a name) with the file a developer would name, over trees of the
 * commit set's repositories (lookup-cases.tsv). The other sets cannot measure look-ups: the commit set drops every
 * message that names a file it changed, and the description set the repository's names.
 *
 *   CODERAG_EVAL_MIRRORS=/work/.mirror node --import tsx bench/eval/lookup.ts [--rankers coderag,bm25,keyword] [--misses]
 *
 * Each tree is extracted from its mirror (checkout.ts; a cached tree needs none); every ranker sees run.ts's
 * candidates (listCandidates) and ranks the first 10; CodeRAG indexes the tree with its history up to its commit, as
 * run.ts does for a commit case (coderagRanker.ts, its disk cache included). Prints R@1, R@3 and MRR@10 per set (`blind`, written without running any search;
 * `hand`, tried against CodeRAG while looking for its misses) and ranker, and with --misses each miss.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchRequest } from '../../src/search/types.js';
import { bm25Ranker, keywordRanker, keywordTerms } from './baselines.js';
import { materialise, treeDirFor } from './checkout.js';
import { REPOS } from './mine.js';
import { mirrorFinder, treeHistory } from './mirrors.js';
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

/** One set x ranker's figures over the look-ups, and its misses (`repo, request, @rank or what came first`). */
export interface LookupRow {
  set: string;
  ranker: string;
  cases: number;
  r1: number;
  r3: number;
  mrr: number;
  misses: string[];
}

/**
 * Every ranker over every look-up of `cases`, tree by tree, each ranker given `candidates(treeDir)` (run.ts's
 * listCandidates); `findMirror` is needed only for trees not cached.
 */
export async function runLookups(
  cases: readonly LookupCase[],
  rankers: readonly Ranker[],
  findMirror: (hint: string) => string | undefined,
  candidates: (treeDir: string) => string[],
): Promise<LookupRow[]> {
  const rows = new Map<string, LookupRow>();
  for (const tree of [...new Set(cases.map((c) => `${c.repo}@${c.sha}`))]) {
    const [repo, sha] = tree.split('@') as [string, string];
    const hint = REPOS.find((r) => r.repo === repo)?.hint;
    if (!hint) throw new Error(`lookup-cases.tsv: ${repo} is not a repository of the commit set`);
    const dir = materialise(repo, sha, existsSync(treeDirFor(repo, sha)) ? undefined : findMirror(hint));
    const files = candidates(dir);
    // As run.ts gives a commit case's tree: its history up to its commit, when the mirror is there.
    const history = treeHistory(findMirror, hint, sha, () => {});
    for (const ranker of rankers) {
      const prepared = await ranker.prepare(dir, files, undefined, history);
      for (const c of cases.filter((x) => x.repo === repo && x.sha === sha)) {
        const q: RankQuery = c.request.target ? { query: '', target: c.request.target, keywords: c.request.keywords ?? [] } : { query: c.text, keywords: keywordTerms(c.text) };
        const ranked = await ranker.rank(prepared, q, 10);
        const rank = ranked.findIndex((path) => c.answer.test(path)) + 1;
        const key = `${c.set}\t${ranker.name}`;
        const row = rows.get(key) ?? { set: c.set, ranker: ranker.name, cases: 0, r1: 0, r3: 0, mrr: 0, misses: [] };
        row.cases++;
        if (rank === 1) row.r1++;
        if (rank >= 1 && rank <= 3) row.r3++;
        if (rank >= 1) row.mrr += 1 / rank;
        if (rank !== 1) row.misses.push(`${repo}\t${c.text}\t${rank ? `@${rank}` : `${c.answer.source} <- ${ranked.slice(0, 3).join(' | ') || '(nothing)'}`}`);
        rows.set(key, row);
      }
    }
  }
  return [...rows.values()]
    .map((r) => ({ ...r, r1: r.r1 / r.cases, r3: r.r3 / r.cases, mrr: r.mrr / r.cases }))
    .sort((a, b) => (a.set < b.set ? -1 : a.set > b.set ? 1 : a.ranker < b.ranker ? -1 : 1));
}

/** The rows as a table, with each row's misses under it when asked. */
export function lookupTable(rows: readonly LookupRow[], misses = false): string {
  const lines = ['set     ranker    cases    R@1    R@3  MRR@10'];
  for (const r of rows) {
    lines.push(`${r.set.padEnd(7)} ${r.ranker.padEnd(8)} ${String(r.cases).padStart(5)}  ${r.r1.toFixed(3)}  ${r.r3.toFixed(3)}  ${r.mrr.toFixed(3)}`);
    if (misses) lines.push(...r.misses.map((m) => `  ${m}`));
  }
  return lines.join('\n');
}

/** The look-up set's cases, from lookup-cases.tsv beside this file. */
export function lookupCases(): LookupCase[] {
  return parseLookupCases(readFileSync(join(import.meta.dirname, 'lookup-cases.tsv'), 'utf8'));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rankersFlag = args.indexOf('--rankers') >= 0 ? args[args.indexOf('--rankers') + 1] : undefined;
  const want = (name: string): boolean => !rankersFlag || rankersFlag.split(',').includes(name);
  // Loaded here, not at the top: run.ts imports this module, and loads CodeRAG's ranker only when asked for.
  const { listCandidates } = await import('./run.js');
  const { createCodeRagRanker } = await import('./coderagRanker.js');
  const rankers: Ranker[] = [...(want('keyword') ? [keywordRanker] : []), ...(want('bm25') ? [bm25Ranker] : []), ...(want('coderag') ? [createCodeRagRanker()] : [])];
  console.log(lookupTable(await runLookups(lookupCases(), rankers, mirrorFinder(undefined), (dir) => listCandidates(dir, false)), args.includes('--misses')));
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}
