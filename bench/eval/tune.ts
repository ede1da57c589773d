/**
 * Chooses BM25F's weights by coordinate ascent on the evaluation's cases, using the CodeRAG indexes that run.ts
 * cached in bench/.work/indexes (run it once first).
 *
 *   node --import tsx bench/eval/tune.ts [--rounds 3] [--baseline eval.json] [--json out.json] [--from params.json]
 *                                        [--tune-on even|odd]
 *
 * Cases (query mode) are sorted by commit hash; those at even positions are the tuning half, the others are held
 * out and only reported (`--tune-on odd` swaps the halves, to check that the method, not the split, generalises). Each round visits every knob in turn and keeps the grid value with the best tuning-half
 * MRR, if it gains at least MIN_GAIN; otherwise the current value stays. Role factors are not tuned: the answers are never tests or docs, so
 * tuning would drive them to zero. `--baseline` takes a run.ts `--json` file and reports its rankers on the same
 * halves. Prints the chosen params as JSON, ready for DEFAULT_PARAMS in src/search/bm25f.ts.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PARAMS, rankBm25f, type Bm25fParams } from '../../src/search/bm25f.js';
import type { RepoIndex } from '../../src/index/types.js';
import { SearchCorpus, bm25fInput, keywordsOf } from '../../src/search/search.js';
import { INDEX_CACHE_DIR, indexCacheKey } from './coderagRanker.js';
import { caseMetrics, summarise, type Summary } from './metrics.js';
import { queryFor } from './run.js';
import type { EvalCase } from './types.js';

const HERE = import.meta.dirname;

interface Loaded {
  c: EvalCase;
  corpus: SearchCorpus;
  half: 'tune' | 'holdout';
}

/** Each case's tree's cached index: the one the current sources would build, else the newest. */
export function loadCases(casesFile = join(HERE, 'cases.json'), tuneOn: 'even' | 'odd' = 'even'): Loaded[] {
  const all = (JSON.parse(readFileSync(casesFile, 'utf8')) as EvalCase[]).filter((c) => !c.target_only);
  const sorted = [...all].sort((a, b) => (a.commit < b.commit ? -1 : 1));
  const tuneParity = tuneOn === 'even' ? 0 : 1;
  const half = new Map(sorted.map((c, i) => [c.commit, i % 2 === tuneParity ? ('tune' as const) : ('holdout' as const)]));
  const files = readdirSync(INDEX_CACHE_DIR).filter((f) => f.endsWith('.json'));
  const key = indexCacheKey(undefined);
  let stale = 0;
  const corpora = new Map<string, SearchCorpus>();
  const out: Loaded[] = [];
  for (const c of all) {
    const tree = `${c.repo}@${c.parent}`;
    let corpus = corpora.get(tree);
    if (!corpus) {
      const current = `${tree}.${key}.json`;
      const candidates = files.filter((f) => f.startsWith(`${tree}.`)).map((f) => join(INDEX_CACHE_DIR, f));
      const newest = files.includes(current) ? join(INDEX_CACHE_DIR, current) : candidates.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
      if (!newest) throw new Error(`no cached index for ${tree}: run bench/eval/run.ts first`);
      if (!newest.endsWith(current)) stale++;
      const index = JSON.parse(readFileSync(newest, 'utf8')) as RepoIndex;
      corpus = new SearchCorpus([{ key: index.repo_name, file: newest, index }]);
      corpora.set(tree, corpus);
    }
    out.push({ c, corpus, half: half.get(c.commit) ?? 'tune' });
  }
  if (stale) console.error(`[tune] ${stale} tree(s) use an index built by older sources: run bench/eval/run.ts to refresh them`);
  return out;
}

export interface Scored {
  repo: string;
  half: 'tune' | 'holdout';
  commit: string;
  r1: number;
  r5: number;
  r10: number;
  rr: number;
  firstRank: number | null;
}

export function evaluate(cases: readonly Loaded[], params: Bm25fParams, k = 50): Scored[] {
  return cases.map(({ c, corpus, half }) => {
    const q = queryFor(c, 'query');
    const keywords = keywordsOf({ query: q.query });
    const ranked = rankBm25f(corpus.segments, bm25fInput(corpus, '', keywords, []), params, k);
    const paths = ranked.map((r) => corpus.path(r.doc));
    return { repo: c.repo, half, commit: c.commit, ...caseMetrics(paths, c.changed_source_files) };
  });
}

/** A knob: how to read and write one number of the params, and the values to try. */
interface Knob {
  name: string;
  get(p: Bm25fParams): number;
  set(p: Bm25fParams, v: number): Bm25fParams;
  grid: number[];
}

/** The summary's weight is not tuned: the static profiler's summaries are composed from symbols and imports and
 * are left out of the field, so the evaluation cannot see what a model-written summary is worth. */
const fieldKnobs = (['name', 'path', 'symbols', 'concepts', 'docs', 'imports'] as const).flatMap((f): Knob[] => [
  { name: `weights.${f}`, get: (p) => p.weights[f], set: (p, v) => ({ ...p, weights: { ...p.weights, [f]: v } }), grid: [0, 0.5, 1, 2, 4, 8] },
  { name: `b.${f}`, get: (p) => p.b[f], set: (p, v) => ({ ...p, b: { ...p.b, [f]: v } }), grid: [0.25, 0.5, 0.75, 1] },
]);
type ScalarKnob = 'coverage' | 'liftImports' | 'liftImporters' | 'liftTests' | 'centrality' | 'size' | 'taskWords';
const scalar = (name: ScalarKnob, grid: number[]): Knob => ({
  name,
  get: (p) => p[name],
  set: (p, v) => ({ ...p, [name]: v }),
  grid,
});
/**
 * Coarse grids: with 140 tuning cases, fine steps fit noise. k1 is left at 1.2: scaling every field weight
 * moves the same way.
 */
export const KNOBS: Knob[] = [
  ...fieldKnobs,
  scalar('coverage', [0, 0.25, 0.5, 1]),
  scalar('liftImports', [0, 0.1, 0.2, 0.4]),
  scalar('liftImporters', [0, 0.2, 0.4, 0.6, 1]),
  scalar('liftTests', [0, 0.2, 0.4, 0.8]),
  scalar('centrality', [0, 0.1, 0.2, 0.4]),
  scalar('size', [0, 0.5, 1, 1.5, 2, 3]),
  scalar('taskWords', [0, 0.25, 0.5, 1]),
];

/** A change must gain this much tuning MRR (about one case moving from rank 2 to 1 in 140) to be kept. */
const MIN_GAIN = 0.003;

function objective(scored: readonly Scored[]): [number, number] {
  const s = summarise(scored.filter((x) => x.half === 'tune'));
  return [s.mrr, s.r1];
}

export function tune(cases: readonly Loaded[], start: Bm25fParams, rounds: number, log: (line: string) => void): Bm25fParams {
  let best = start;
  let [bestMrr, bestR1] = objective(evaluate(cases, best));
  log(`start: tune MRR ${bestMrr.toFixed(4)} R@1 ${bestR1.toFixed(4)}`);
  for (let round = 1; round <= rounds; round++) {
    let changed = false;
    for (const knob of KNOBS) {
      let pick: { v: number; params: Bm25fParams; mrr: number; r1: number } | null = null;
      for (const v of knob.grid) {
        if (v === knob.get(best)) continue;
        const candidate = knob.set(best, v);
        const [mrr, r1] = objective(evaluate(cases, candidate));
        if (!pick || mrr > pick.mrr) pick = { v, params: candidate, mrr, r1 };
      }
      if (pick && pick.mrr > bestMrr + MIN_GAIN) {
        log(`round ${round}: ${knob.name} ${knob.get(best)} -> ${pick.v}: MRR ${bestMrr.toFixed(4)} -> ${pick.mrr.toFixed(4)}, R@1 ${pick.r1.toFixed(4)}`);
        best = pick.params;
        bestMrr = pick.mrr;
        bestR1 = pick.r1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return best;
}

function row(name: string, s: Summary): string {
  return `${name.padEnd(28)} ${String(s.cases).padStart(5)}  ${s.r1.toFixed(3)}  ${s.r5.toFixed(3)}  ${s.r10.toFixed(3)}  ${s.mrr.toFixed(3)}`;
}

export function report(label: string, scored: ReadonlyArray<Pick<Scored, 'repo' | 'half' | 'r1' | 'r5' | 'r10' | 'rr' | 'firstRank'>>): string[] {
  const lines: string[] = [];
  for (const half of ['tune', 'holdout', 'all'] as const) {
    const part = half === 'all' ? scored : scored.filter((s) => s.half === half);
    lines.push(row(`${label} ${half}`, summarise(part)));
  }
  return lines;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const rounds = Number(flag('--rounds') ?? 3);
  const from = flag('--from');
  const start = from ? (JSON.parse(readFileSync(from, 'utf8')) as Bm25fParams) : DEFAULT_PARAMS;
  const t = performance.now();
  const cases = loadCases(undefined, flag('--tune-on') === 'odd' ? 'odd' : 'even');
  for (const { corpus } of cases) void corpus.segments;
  console.error(`[tune] ${cases.length} cases loaded and indexed in ${((performance.now() - t) / 1000).toFixed(1)}s`);
  const tuned = rounds > 0 ? tune(cases, start, rounds, (l) => console.error(`[tune] ${l}`)) : start;
  const lines = [`${'ranker half'.padEnd(28)} cases    R@1    R@5   R@10    MRR`];
  lines.push(...report('bm25f (start)', evaluate(cases, start)));
  const final = evaluate(cases, tuned);
  lines.push(...report('bm25f (tuned)', final));
  const baselineFile = flag('--baseline');
  if (baselineFile) {
    const base = JSON.parse(readFileSync(baselineFile, 'utf8')) as { per_case: Array<Scored & { ranker: string }> };
    const halfOf = new Map(cases.map((c) => [c.c.commit, c.half]));
    for (const ranker of [...new Set(base.per_case.map((p) => p.ranker))]) {
      lines.push(...report(ranker, base.per_case.filter((p) => p.ranker === ranker).map((p) => ({ ...p, half: halfOf.get(p.commit) ?? 'tune' }))));
    }
  }
  for (const repo of [...new Set(final.map((s) => s.repo))]) lines.push(...report(`  ${repo}`, final.filter((s) => s.repo === repo)));
  console.log(lines.join('\n'));
  console.log(JSON.stringify(tuned));
  const out = flag('--json');
  if (out) writeFileSync(out, `${JSON.stringify({ params: tuned, per_case: final }, null, 2)}\n`);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}
