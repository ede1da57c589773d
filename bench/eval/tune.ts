/**
 * Chooses BM25F's weights by coordinate ascent on the evaluation's cases, using the CodeRAG indexes that run.ts
 * cached in bench/.work/indexes (run it once first, with the same --set).
 *
 *   node --import tsx bench/eval/tune.ts [--set all|commits|describe|deps[,…]] [--rounds 3] [--baseline eval.json]
 *                                        [--json out.json] [--from params.json] [--tune-on even|odd] [--deps-list FILE]
 *
 * Both sets are split in halves the way run.ts splits them (split.ts: by SHA-256 of each case's id, alternating);
 * the tuning half is tuned on, the held-out half is only reported (`--tune-on odd` swaps the halves, to check that
 * the method, not the split, generalises). The objective is the mean over the sets of each set's tuning-half MRR,
 * so the 69 description cases weigh as much as the 480 commit cases. Each round visits every knob in turn and keeps
 * the grid value with the best objective, if it gains at least MIN_GAIN; otherwise the current value stays. Role
 * factors are not tuned: the answers are never tests or docs, so tuning would drive them to zero. `--baseline`
 * takes a run.ts `--json` file and reports its rankers on the same halves. Prints the chosen params as JSON, ready
 * for DEFAULT_PARAMS in src/search/bm25f.ts. `--deps-list` names the dependency-folder set's package list, as run.ts's
 * flag does (default `deps-packages.json`): pass the one run.ts was given, so both read the same cached indexes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_PARAMS, rankBm25f, type Bm25fParams } from '../../src/search/bm25f.js';
import { SearchCorpus, bm25fInput, keywordsOf } from '../../src/search/search.js';
import { IndexCache } from './coderagRanker.js';
import type { DescribeCase } from './describe.js';
import { DEPS_LIST_FILE, depsIndexConfig, prepareDeps } from './deps.js';
import { caseMetrics, summarise, type Summary } from './metrics.js';
import { describeRoot, queryFor } from './run.js';
import { splitHalves, type Half, type TuneOn } from './split.js';
import type { EvalCase } from './types.js';

const HERE = import.meta.dirname;

type SetName = 'commits' | 'describe' | 'deps';

interface Loaded {
  set: SetName;
  /** Commit sha or owner/name. */
  id: string;
  repo: string;
  language: string;
  query: string;
  /** Files (commit set) or index repo names (description set). */
  answers: string[];
  corpus: SearchCorpus;
  half: Half;
}

export function loadCases(
  sets: readonly SetName[] = ['commits', 'describe'],
  tuneOn: TuneOn = 'even',
  casesFile = join(HERE, 'cases.json'),
  describeFile = join(HERE, 'describe-cases.json'),
  depsList = DEPS_LIST_FILE,
): Loaded[] {
  const cache = new IndexCache();
  const out: Loaded[] = [];
  if (sets.includes('commits')) {
    const all = (JSON.parse(readFileSync(casesFile, 'utf8')) as EvalCase[]).filter((c) => !c.target_only);
    const halves = splitHalves(all.map((c) => c.commit), tuneOn);
    const corpora = new Map<string, SearchCorpus>();
    for (const c of all) {
      const tree = `${c.repo}@${c.parent}`;
      let corpus = corpora.get(tree);
      if (!corpus) {
        const { file, index } = cache.read(tree);
        corpus = new SearchCorpus([{ key: index.repo_name, file, index }]);
        corpora.set(tree, corpus);
      }
      const query = queryFor(c, 'query').query;
      out.push({ set: 'commits', id: c.commit, repo: c.repo, language: c.language, query, answers: c.changed_source_files, corpus, half: halves.get(c.commit) ?? 'holdout' });
    }
  }
  if (sets.includes('describe')) {
    const all = JSON.parse(readFileSync(describeFile, 'utf8')) as DescribeCase[];
    const halves = splitHalves(all.map((c) => c.repo), tuneOn);
    const corpus = new SearchCorpus(
      all.map((c) => {
        const { file, index } = cache.read(describeRoot(c));
        return { key: index.repo_name, file, index };
      }),
    );
    for (const c of all) {
      out.push({ set: 'describe', id: c.repo, repo: c.repo, language: c.language, query: c.query, answers: [describeRoot(c)], corpus, half: halves.get(c.repo) ?? 'holdout' });
    }
  }
  if (sets.includes('deps')) {
    const all = prepareDeps(depsList);
    const halves = splitHalves(all.map((c) => c.spec), tuneOn);
    const depsCache = new IndexCache(depsIndexConfig());
    const corpus = new SearchCorpus(
      all.map((c) => {
        const { file, index } = depsCache.read(c.root);
        return { key: index.repo_name, file, index };
      }),
    );
    for (const c of all) {
      out.push({ set: 'deps', id: c.spec, repo: c.name, language: c.language, query: c.query, answers: [c.root], corpus, half: halves.get(c.spec) ?? 'holdout' });
    }
    cache.stale += depsCache.stale;
  }
  if (cache.stale) console.error(`[tune] ${cache.stale} tree(s) use an index built by older sources: run bench/eval/run.ts to refresh them`);
  return out;
}

export interface Scored {
  set: SetName;
  repo: string;
  language: string;
  half: Half;
  commit: string;
  r1: number;
  r5: number;
  r10: number;
  rr: number;
  firstRank: number | null;
}

/** Files asked of bm25f in the description set, so that every repository's best file shows up. */
const DESCRIBE_FILES_K = 3000;

export function evaluate(cases: readonly Loaded[], params: Bm25fParams, k = 50): Scored[] {
  return cases.map(({ set, id, repo, language, query, answers, corpus, half }) => {
    const keywords = keywordsOf({ query });
    const input = bm25fInput(corpus, '', keywords, []);
    let ranked: string[];
    if (set === 'commits') {
      ranked = rankBm25f(corpus.segments, input, params, k).map((r) => corpus.path(r.doc));
    } else {
      const seen = new Set<string>();
      ranked = [];
      for (const r of rankBm25f(corpus.segments, input, params, DESCRIBE_FILES_K)) {
        const name = corpus.doc(r.doc).repo;
        if (!seen.has(name)) {
          seen.add(name);
          ranked.push(name);
        }
      }
    }
    return { set, repo, language, half, commit: id, ...caseMetrics(ranked.slice(0, k), answers) };
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
/** The body (the file's vocabulary) holds far more tokens than any other field, so its weight lives lower. */
const bodyKnobs: Knob[] = [
  { name: 'weights.body', get: (p) => p.weights.body, set: (p, v) => ({ ...p, weights: { ...p.weights, body: v } }), grid: [0, 0.1, 0.2, 0.3, 0.5, 1, 2] },
  { name: 'b.body', get: (p) => p.b.body, set: (p, v) => ({ ...p, b: { ...p.b, body: v } }), grid: [0.25, 0.5, 0.75, 1] },
];
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
  ...bodyKnobs,
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

/** Mean over the sets present of the tuning half's MRR (and R@1): each set weighs the same. */
function objective(scored: readonly Scored[]): [number, number] {
  const sets = [...new Set(scored.map((x) => x.set))];
  let mrr = 0;
  let r1 = 0;
  for (const set of sets) {
    const s = summarise(scored.filter((x) => x.set === set && x.half === 'tune'));
    mrr += s.mrr / sets.length;
    r1 += s.r1 / sets.length;
  }
  return [mrr, r1];
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
  return `${name.padEnd(46)} ${String(s.cases).padStart(5)}  ${s.r1.toFixed(3)}  ${s.mrr.toFixed(3)}  ${s.r5.toFixed(3)}  ${s.r10.toFixed(3)}`;
}

type Reported = Pick<Scored, 'half' | 'r1' | 'r5' | 'r10' | 'rr' | 'firstRank'> & { set?: string };

/** One line per set and half (tune, held out, all). */
export function report(label: string, scored: readonly Reported[]): string[] {
  const lines: string[] = [];
  for (const set of [...new Set(scored.map((s) => s.set ?? 'commits'))]) {
    const mine = scored.filter((s) => (s.set ?? 'commits') === set);
    for (const half of ['tune', 'holdout', 'all'] as const) {
      const part = half === 'all' ? mine : mine.filter((s) => s.half === half);
      lines.push(row(`${label} ${set} ${half}`, summarise(part)));
    }
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
  const setFlag = flag('--set') ?? 'all';
  const sets = (setFlag === 'all' ? ['commits', 'describe'] : setFlag.split(',')) as SetName[];
  if (!sets.every((x) => x === 'commits' || x === 'describe' || x === 'deps')) throw new Error('--set must be all, or a comma-separated list of commits, describe and deps');
  const depsList = flag('--deps-list');
  const cases = loadCases(sets, flag('--tune-on') === 'odd' ? 'odd' : 'even', undefined, undefined, depsList ? resolve(depsList) : undefined);
  for (const { corpus } of cases) void corpus.segments;
  console.error(`[tune] ${cases.length} cases loaded and indexed in ${((performance.now() - t) / 1000).toFixed(1)}s`);
  const tuned = rounds > 0 ? tune(cases, start, rounds, (l) => console.error(`[tune] ${l}`)) : start;
  const lines = [`${'ranker set half'.padEnd(46)} cases    R@1    MRR    R@5   R@10`];
  lines.push(...report('bm25f (start)', evaluate(cases, start)));
  const final = evaluate(cases, tuned);
  lines.push(...report('bm25f (tuned)', final));
  const baselineFile = flag('--baseline');
  if (baselineFile) {
    const base = JSON.parse(readFileSync(baselineFile, 'utf8')) as { per_case: Array<Scored & { ranker: string }> };
    const halfOf = new Map(cases.map((c) => [`${c.set}\0${c.id}`, c.half]));
    const wanted = base.per_case.filter((p) => halfOf.has(`${p.set ?? 'commits'}\0${p.commit}`));
    for (const ranker of [...new Set(wanted.map((p) => p.ranker))]) {
      lines.push(...report(ranker, wanted.filter((p) => p.ranker === ranker).map((p) => ({ ...p, half: halfOf.get(`${p.set ?? 'commits'}\0${p.commit}`) ?? 'holdout' }))));
    }
  }
  for (const language of [...new Set(final.map((s) => s.language))].sort()) {
    lines.push(...report(`  bm25f (tuned) ${language}`, final.filter((s) => s.language === language)));
  }
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
