/**
 * Chooses the task ranker's weights (TASK_PARAMS in src/search/taskRank.ts) by coordinate ascent on the issue
 * set's tuning half, using the CodeRAG indexes that run.ts cached (run `run.ts --set issues` once first).
 *
 *   node --import tsx bench/eval/tuneTask.ts [--rounds 2] [--tune-on even|odd] [--issues-cap 40] [--issues-ml-cap 6] [--from params.json]
 *                                            [--json out.json] [--report] [--no-history] [--knobs a,b] [--sweep] [--misses] [--only ID,ID]
 *
 * Cases, halves and gold files are the issue set's (issues.ts): the same selection (the SWE-bench repositories and the
 * Multi-SWE-bench ones, each with its cap), the same split. Only the tuning half is ranked while tuning; `--report`
 * then ranks the held-out half once with the chosen weights (and with the starting ones), and prints both halves,
 * all cases and each language's. The objective is the tuning half's mean of (Acc@5 + MRR) / 2: Acc@5 is
 * the figure the field quotes, MRR keeps @1 from being traded away. A knob's value moves only for a gain of at
 * least MIN_GAIN. Prints the chosen params as JSON, ready for TASK_PARAMS.
 *
 * The indexes read are those run.ts cached with each tree's commit history (its default); `--no-history` takes
 * the history out of them as they are loaded, which is the index `history.enabled: false` writes (entries differ
 * by their `history` field alone). `--knobs` tunes only the knobs named (e.g. `bm25f.weights.history`). `--sweep`
 * moves nothing: it prints the tuning half's figures (all cases, then Python's) at each value of each knob's grid,
 * the other knobs at their start, to show a knob's landscape. `--misses` moves nothing either: it lists the tuning cases
 * missed at @5, with each gold file's rank and the five files ranked first ("short": a text ranked as keywords, not as a
 * task), how many top-5 places hold files no answer can be (tests, docs, examples, tooling), then the cases missed at
 * function level (@5), with each gold definition's file and symbol rank and the five symbols ranked first.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SearchCorpus, search } from '../../src/search/search.js';
import { readRepositoryFile } from '../../src/search/sourceFiles.js';
import { TASK_PARAMS, type TaskParams } from '../../src/search/taskRank.js';
import { parseTaskText } from '../../src/search/taskQuery.js';
import type { RepoIndex } from '../../src/index/types.js';
import type { SearchResponse } from '../../src/search/types.js';
import { IndexCache, normaliseRefPath } from './coderagRanker.js';
import { materialise, treeDirFor } from './checkout.js';
import {
  DEFAULT_ISSUE_CAP, DEFAULT_ML_ISSUE_CAP, accAtK, datasetSources, functionMetrics, goldFiles, goldFunctions, issueHalves, issueLanguage, mergeInstances, parseDataset,
  selectIssueSet, symbolHits, type GoldFunction, type RankedSymbol as EvalSymbol,
} from './issues.js';
import { caseMetrics } from './metrics.js';
import { isSourceFile } from './paths.js';
import { MIRRORS_FLAG, mirrorFinder } from './mirrors.js';
import type { Half, TuneOn } from './split.js';

const MIN_GAIN = 0.003;
const K = 50;

interface Case {
  id: string;
  gold: GoldFunction[];
  repo: string;
  language: string;
  half: Half;
  query: string;
  answers: string[];
  treeDir: string;
  corpus: SearchCorpus;
}

interface Figures {
  cases: number;
  /** Function level over the cases with gold functions (search's symbol answers): Acc@1, Acc@5, Acc@10. */
  fnCases: number;
  fnAcc1: number;
  fnAcc5: number;
  fnAcc10: number;
  acc1: number;
  acc5: number;
  acc10: number;
  mrr: number;
  objective: number;
}

/** Knob: a path into TaskParams and its grid. */
const KNOBS: ReadonlyArray<[string, readonly number[]]> = [
  ['anchorBoost', [0, 0.3, 0.6, 1, 1.5, 2.5]],
  ['k3', [0.5, 1, 2, 5, 1000]],
  ['bm25f.size', [-0.5, -0.25, 0, 0.25, 0.5, 1, 1.5]],
  ['bm25f.centrality', [0, 0.1, 0.2, 0.4]],
  ['bm25f.weights.body', [0.1, 0.2, 0.3, 0.5, 0.8]],
  ['bm25f.b.body', [0.5, 0.75, 0.9, 1]],
  ['bm25f.weights.symbols', [1, 2, 4, 6]],
  ['bm25f.weights.docs', [0.5, 1, 2]],
  ['bm25f.weights.path', [0.5, 1, 2]],
  ['bm25f.weights.name', [0.5, 1, 2]],
  ['bm25f.coverage', [0, 0.25, 0.5]],
  ['bm25f.liftImports', [0, 0.1, 0.2]],
  ['bm25f.roles.test', [0.1, 0.2, 0.3, 0.4]],
  ['bm25f.roles.docs', [0.05, 0.1, 0.2, 0.3, 0.5]],
  ['bm25f.roles.example', [0.1, 0.2, 0.3, 0.5]],
  ['bm25f.roles.config', [0.1, 0.2, 0.35, 0.5]],
  ['maxTerms', [0, 20, 40, 80]],
  ['title', [0, 0.5, 1, 2, 4]],
  ['sources.code', [0.3, 0.6, 0.9]],
  ['sources.identifier', [0, 0.3, 0.6, 0.9]],
  ['unqualified', [0.3, 0.6, 1]],
  ['bm25f.weights.history', [0, 0.25, 0.5, 1, 2, 4]],
  ['bm25f.b.history', [0.25, 0.5, 0.75, 1]],
  ['fusion.plain', [0, 0.1, 0.25, 0.5, 1, 2]],
  ['fusion.k', [0, 5, 20, 60]],
  ['fusion.maxTerms', [0, 40, 60, 80, 120]],
  ['bm25f.liftImporters', [0, 0.05, 0.1, 0.2]],
  ['bm25f.liftTests', [0, 0.1, 0.2, 0.4, 0.8]],
  ['passages.weight', [0, 0.5, 1, 2]],
  ['passages.head', [3, 5, 10]],
  ['passages.lines', [20, 40, 80]],
  ['passages.symbols', [0, 0.5, 1, 2, 4]],
  ['symbols.body', [0, 0.15, 0.3, 0.6, 1, 2]],
  ['symbols.filePower', [1, 2, 3, 4, 6]],
  ['symbols.overrides', [0, 0.5, 0.8, 1, 1.2, 1.5]],
  ['symbols.nested', [0, 0.3, 0.5, 0.7, 0.9]],
  ['symbols.overloads', [0, 0.3, 0.4, 0.5, 0.6, 0.8]],
  ['symbols.contracts', [0, 0.5, 0.65, 0.8, 0.95, 1]],
];

function get(params: TaskParams, path: string): number {
  return path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], params) as number;
}

function set(params: TaskParams, path: string, value: number): TaskParams {
  const out = structuredClone(params);
  const keys = path.split('.');
  const last = keys.pop() as string;
  (keys.reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], out) as Record<string, number>)[last] = value;
  return out;
}

/** A case's answer as repository-relative paths, each once, best first. */
function rankedPaths(c: Case, answer: ReturnType<typeof search>): string[] {
  return [...new Set(answer.references.map((r) => normaliseRefPath(c.treeDir, r.file_path)))];
}

/** One case's figures with one parameter set. */
interface Scored {
  language: string;
  acc1: number;
  acc5: number;
  acc10: number;
  rr: number;
  /** Function level, for a case with gold functions. */
  fn?: { acc1: number; acc5: number; acc10: number };
}

/** A search's symbol answers as the issue set's metrics read them (tree-relative paths). */
function rankedSymbols(c: Case, answer: SearchResponse): EvalSymbol[] {
  return (answer.symbols ?? []).map((s) => ({ file: normaliseRefPath(c.treeDir, s.file_path), name: s.name, ast_path: s.ast_path, start_line: s.start_line, end_line: s.end_line, kind: s.kind }));
}

function score(c: Case, params: TaskParams): Scored {
  const answer = search(c.corpus, { query: c.query, maxResults: K, taskParams: params, granularity: 'symbol' });
  let fn: Scored['fn'];
  if (c.gold.length) {
    const m = functionMetrics(rankedSymbols(c, answer), c.gold);
    fn = { acc1: m.fnAcc1, acc5: m.fnAcc5, acc10: m.fnAcc10 };
  }
  const ranked = rankedPaths(c, answer);
  return { language: c.language, acc1: accAtK(ranked, c.answers, 1), acc5: accAtK(ranked, c.answers, 5), acc10: accAtK(ranked, c.answers, 10), rr: caseMetrics(ranked, c.answers).rr, ...(fn ? { fn } : {}) };
}

/** The means of scored cases. */
function figures(scored: readonly Scored[]): Figures {
  const n = Math.max(1, scored.length);
  const fns = scored.flatMap((s) => (s.fn ? [s.fn] : []));
  const mean = (xs: readonly number[], of: number) => xs.reduce((a, b) => a + b, 0) / of;
  const f = {
    cases: scored.length,
    acc1: mean(scored.map((s) => s.acc1), n),
    acc5: mean(scored.map((s) => s.acc5), n),
    acc10: mean(scored.map((s) => s.acc10), n),
    mrr: mean(scored.map((s) => s.rr), n),
    fnCases: fns.length,
    fnAcc1: mean(fns.map((x) => x.acc1), Math.max(1, fns.length)),
    fnAcc5: mean(fns.map((x) => x.acc5), Math.max(1, fns.length)),
    fnAcc10: mean(fns.map((x) => x.acc10), Math.max(1, fns.length)),
  };
  return { ...f, objective: (f.acc5 + f.mrr) / 2 };
}

function evaluate(cases: readonly Case[], params: TaskParams): Figures {
  return figures(cases.map((c) => score(c, params)));
}

function loadCases(o: { cap: number; mlCap: number; tuneOn: TuneOn; mirrors?: string; history: boolean; only?: string[] }, halves: readonly Half[], cache: IndexCache): Case[] {
  const findMirror = mirrorFinder(o.mirrors);
  const sources = datasetSources(undefined, findMirror);
  if (!sources.length) throw new Error('no SWE-bench dataset found (see bench/eval/README.md, issue set)');
  const instances = mergeInstances(sources.map((s) => parseDataset(s.read())));
  const selected = selectIssueSet(instances, o.cap, o.mlCap);
  // run.ts's halves: over every eligible instance, uncapped (issues.ts).
  const halfOf = issueHalves(instances, o.tuneOn);
  const out: Case[] = [];
  for (const c of selected) {
    if (o.only && !o.only.includes(c.instance_id)) continue;
    const half = halfOf.get(c.instance_id) ?? 'holdout';
    if (!halves.includes(half)) continue;
    const answers = goldFiles(c.patch);
    const short = c.repo.split('/')[1] ?? c.repo;
    if (!answers.length) continue;
    const cachedTree = existsSync(treeDirFor(short, c.base_commit));
    const gitDir = cachedTree ? undefined : findMirror(c.repo);
    // A repository with no mirror is left out, as run.ts leaves it out.
    if (!cachedTree && !gitDir) continue;
    const treeDir = materialise(short, c.base_commit, gitDir);
    const cached = cache.find(treeDir.split('/').pop() as string);
    if (!cached) {
      console.error(`[tune-task] no cached index for ${c.instance_id}, left out (run bench/eval/run.ts --set issues first)`);
      continue;
    }
    const index = JSON.parse(readFileSync(cached, 'utf8')) as RepoIndex;
    if (!o.history) for (const summary of index.file_summaries) delete summary.history;
    const gold = goldFunctions(c.patch, (p) => (existsSync(join(treeDir, p)) ? readFileSync(join(treeDir, p), 'utf8') : undefined));
    out.push({ id: c.instance_id, gold, repo: short, language: issueLanguage(c.repo), half, query: c.problem_statement, answers, treeDir, corpus: new SearchCorpus([{ key: index.repo_name, file: '', index }], { readFile: readRepositoryFile }) });
  }
  return out;
}

function parseArgs(argv: string[]) {
  const o: { rounds: number; tuneOn: TuneOn; cap: number; mlCap: number; from?: string; json?: string; report: boolean; mirrors?: string; history: boolean; knobs?: string[]; sweep: boolean; misses: boolean; only?: string[] } = {
    rounds: 2,
    tuneOn: 'even',
    cap: DEFAULT_ISSUE_CAP,
    mlCap: DEFAULT_ML_ISSUE_CAP,
    report: false,
    history: true,
    sweep: false,
    misses: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--rounds') o.rounds = Number(val());
    else if (a === '--tune-on') o.tuneOn = val() as TuneOn;
    else if (a === '--issues-cap') o.cap = Number(val());
    else if (a === '--issues-ml-cap') o.mlCap = Number(val());
    else if (a === '--from') o.from = val();
    else if (a === '--json') o.json = val();
    else if (a === '--report') o.report = true;
    else if (a === '--no-history') o.history = false;
    else if (a === '--knobs') o.knobs = val().split(',');
    else if (a === '--sweep') o.sweep = true;
    else if (a === '--misses') o.misses = true;
    else if (a === '--only') o.only = val().split(',');
    else if (a === MIRRORS_FLAG) o.mirrors = val();
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

/** Each tuning case whose gold files are not all in the top 5: where each gold file ranks, and what ranked above. */
function printMisses(cases: readonly Case[], params: TaskParams): void {
  let slots = 0;
  let notSource = 0;
  const functionMisses: string[] = [];
  for (const c of cases) {
    const answer = search(c.corpus, { query: c.query, maxResults: K, taskParams: params, granularity: 'symbol' });
    const ranked = rankedPaths(c, answer);
    for (const p of ranked.slice(0, 5)) {
      slots++;
      if (!isSourceFile(p)) notSource++;
    }
    if (c.gold.length) {
      const symbols = rankedSymbols(c, answer);
      if (!functionMetrics(symbols, c.gold).fnAcc5) {
        const gold = c.gold.map((g) => `${g.file}::${g.name}@${g.line} (file @${ranked.indexOf(g.file) + 1 || '-'}, symbol @${symbols.findIndex((s) => symbolHits(s, g)) + 1 || '-'})`);
        functionMisses.push(`${c.id}: ${gold.join(', ')}\n  top: ${symbols.slice(0, 5).map((s) => `${s.file.slice(s.file.lastIndexOf('/') + 1)}::${s.name}`).join(', ')}`);
      }
    }
    if (accAtK(ranked, c.answers, 5)) continue;
    const gold = c.answers.map((a) => `${a} @${ranked.indexOf(a) + 1 || '-'}`).join(', ');
    console.log(`${c.id} (${c.language}${parseTaskText(c.query).isTask ? '' : ', short'}): ${gold}\n  title: ${c.query.split('\n')[0]?.slice(0, 120)}\n  top: ${ranked.slice(0, 5).join(', ')}`);
  }
  console.log(`${notSource} of ${slots} top-5 places hold a file that is no answer by its path (tests, docs, examples, tooling)`);
  console.log(`\nfunction level: ${functionMisses.length} cases with gold functions missed at @5 (each gold definition's file and symbol rank, the first five symbols)`);
  for (const miss of functionMisses) console.log(miss);
}

const fmt = (f: Figures): string =>
  `Acc@1 ${f.acc1.toFixed(3)}  Acc@5 ${f.acc5.toFixed(3)}  Acc@10 ${f.acc10.toFixed(3)}  MRR ${f.mrr.toFixed(3)}  (objective ${f.objective.toFixed(4)}, ${f.cases} cases)  fn Acc@1 ${f.fnAcc1.toFixed(3)} Acc@5 ${f.fnAcc5.toFixed(3)} Acc@10 ${f.fnAcc10.toFixed(3)} (${f.fnCases})`;

/** A half's figures with the starting and the chosen weights: all its cases, then each language's (each case ranked once per weights). */
function printHalf(label: string, cases: readonly Case[], start: TaskParams, chosen: TaskParams): void {
  const [before, after] = [start, chosen].map((params) => cases.map((c) => score(c, params))) as [Scored[], Scored[]];
  const languages = [...new Set(cases.map((c) => c.language))].sort();
  for (const group of ['all', ...languages]) {
    const of = (scored: Scored[]) => (group === 'all' ? scored : scored.filter((s) => s.language === group));
    console.log(`${label}, ${group}, start : ${fmt(figures(of(before)))}`);
    console.log(`${label}, ${group}, chosen: ${fmt(figures(of(after)))}`);
  }
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  // A params file written before a knob existed takes the default's value for it.
  const start: TaskParams = o.from ? { ...TASK_PARAMS, ...(JSON.parse(readFileSync(o.from, 'utf8')) as Partial<TaskParams>) } : TASK_PARAMS;
  const cache = new IndexCache();
  const tuning = loadCases(o, ['tune'], cache);
  console.error(`[tune-task] ${tuning.length} tuning cases loaded${cache.stale ? `, ${cache.stale} from indexes cached by older sources` : ''}`);
  const knobs = KNOBS.filter(([name]) => !o.knobs || o.knobs.includes(name));
  if (o.misses) {
    printMisses(tuning, start);
    return;
  }
  if (o.sweep) {
    const line = (label: string, params: TaskParams): string => {
      const scored = tuning.map((c) => score(c, params));
      return `${label}: ${fmt(figures(scored))}\n  python: ${fmt(figures(scored.filter((s) => s.language === 'python')))}`;
    };
    console.log(line('start', start));
    for (const [knob, grid] of knobs) {
      for (const value of grid) console.log(line(`${knob} ${value}`, set(start, knob, value)));
    }
    return;
  }
  let params = start;
  let best = evaluate(tuning, params);
  console.error(`[tune-task] start: ${fmt(best)}`);
  for (let round = 0; round < o.rounds; round++) {
    let moved = false;
    for (const [knob, grid] of knobs) {
      const current = get(params, knob);
      let choice = current;
      let choiceFigures = best;
      for (const value of grid) {
        if (value === current) continue;
        const f = evaluate(tuning, set(params, knob, value));
        if (f.objective > choiceFigures.objective + (choice === current ? MIN_GAIN : 0)) {
          choice = value;
          choiceFigures = f;
        }
      }
      if (choice !== current) {
        params = set(params, knob, choice);
        best = choiceFigures;
        moved = true;
        console.error(`[tune-task] round ${round + 1}: ${knob} ${current} -> ${choice}: ${fmt(best)}`);
      }
    }
    if (!moved) break;
  }
  printHalf('tuning half', tuning, start, params);
  if (o.report) printHalf('held-out half', loadCases(o, ['holdout'], cache), start, params);
  console.log(JSON.stringify(params));
  if (o.json) writeFileSync(o.json, `${JSON.stringify(params, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
