/**
 * Retrieval evaluation on real data: the commit set, the description look-up set and the issue set.
 *
 *   node --import tsx bench/eval/run.ts [--mirrors DIR] [--set all|commits,describe,deps,issues,heldout-issues,lookup] [--repo NAME] [--limit N]
 *                                       [--mode query|target] [--json out.json] [--rankers keyword,bm25,bm25fn,coderag]
 *                                       [--scorer NAME] [--k N] [--include-generated] [--cases FILE]
 *                                       [--describe-cases FILE] [--deps-list FILE] [--tune-on even|odd]
 *                                       [--issues-data FILE[,FILE]] [--issues-cap N] [--issues-ml-cap N]
 *                                       [--issues-lang python,rust,java,javascript,typescript,go]
 *                                       [--issues-half tune|holdout]
 *
 * Git snapshots come from `--mirrors DIR` or $CODERAG_EVAL_MIRRORS (see mirrors.ts); they are needed only for trees
 * not yet cached under bench/.work.
 *
 * Commit set: loads bench/eval/cases.json (see mine.ts), materialises the tree at each case's parent (checkout.ts),
 * offers every ranker the same candidate files, and scores the files each ranker returns.
 * Description set: loads bench/eval/describe-cases.json (see describe.ts), extracts each repository's capped files
 * into bench/.work/describe/<owner>+<name>@<sha12>/, and asks each ranker for files across all of them at once; a
 * repository's rank is the rank of its best file.
 * Dependency-folder set (deps.ts, `--set deps`, only when named): installs deps-packages.json's npm packages into
 * bench/.work/deps-install, copies each one's shipped code into bench/.work/deps/<scope+name@version>/, and searches
 * them together by each package's README sentence, as the description set does.
 * Prints R@1/R@5/R@10/MRR per set x ranker x language, and per set x ranker x half (tuning / held out, see split.ts).
 * Issue set (issues.ts): SWE-bench (Python), Multi-SWE-bench (Rust, Java, JavaScript, Go) and SWE-PolyBench
 * (TypeScript) instances read at run time from the dataset files ($CODERAG_EVAL_ISSUES_DATA, `--issues-data`, or the
 * dataset mirrors under the mirror root and the local SWE-PolyBench copy under bench/.work); the issue text is the query, the tree is the base commit's, the answer the gold patch's source files;
 * Acc@k, R@1, MRR per repository, language and half, and for the rankers that rank definitions (CodeRAG's symbols,
 * bm25fn: BM25 over function source, which the issue sets run by default) function-level Acc@1/Acc@5/Acc@10. `--set all` (the default) runs it only when the dataset is found.
 * Held-out repositories' issues (`--set heldout-issues`, and `all` when the dataset is found): the SWE-bench Lite
 * instances of the held-out Python repositories (HELD_OUT_ISSUE_REPOS, issue 20's own measurement), the same way;
 * a report only, never tuned on.
 * Look-up set (lookup.ts, in `all`): short requests (a word, a concept, a name) and the file that answers them,
 * R@1 / R@3 / MRR@10 per set (`blind`, `hand`) and ranker.
 *
 * Modes
 *   query  (default) every case not marked target_only; q = { query: cleaned commit message, keywords: its words }.
 *   target cases that add a source file and modify existing ones; q = { query: '', target: first added source file
 *          (sorted), keywords: the message's words }; the answer is still changed_source_files.
 * Rankers ask for the top K (default 50) files; MRR is therefore MRR@K.
 */
import { closeSync, existsSync, openSync, readFileSync, readdirSync, readSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bm25Ranker, keywordRanker, keywordTerms } from './baselines.js';
import { bm25FnRanker } from './bm25fn.js';
import { materialise, materialiseFiles, treeDirFor } from './checkout.js';
import type { DescribeCase } from './describe.js';
import { DEPS_DIR, DEPS_LIST_FILE, depsIndexConfig, prepareDeps, type DepsCase } from './deps.js';
import { caseMetrics, summarise, type CaseMetrics, type Summary } from './metrics.js';
import { MIRRORS_ENV, MIRRORS_FLAG, mirrorFinder, treeHistory } from './mirrors.js';
import { splitHalves, type Half, type TuneOn } from './split.js';
import { isCandidatePath } from './paths.js';
import { cleanMessage } from './select.js';
import {
  DEFAULT_ISSUE_CAP,
  DEFAULT_ML_ISSUE_CAP,
  ISSUES_DATA_ENV,
  ISSUES_DATA_FLAG,
  datasetSources,
  issueLevelsTable,
  issueRows,
  issueTable,
  mergeInstances,
  parseDataset,
  runIssues,
  type IssueCaseResult,
} from './issues.js';
import { lookupCases, lookupTable, runLookups, type LookupRow } from './lookup.js';
import type { EvalCase, RankQuery, Ranker } from './types.js';

export type { EvalCase, RankQuery, Ranker } from './types.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const DESCRIBE_DIR = resolve(HERE, '..', '.work', 'describe');

type SetName = 'commits' | 'describe' | 'deps' | 'issues' | 'heldout-issues' | 'lookup';
const SET_NAMES: readonly SetName[] = ['commits', 'describe', 'deps', 'issues', 'heldout-issues', 'lookup'];
const isIssueSet = (set: SetName): boolean => set === 'issues' || set === 'heldout-issues';

interface Options {
  sets: SetName[];
  /** `--set all` (or no --set): the issue set joins only when its dataset is found. */
  issuesIfFound: boolean;
  issuesData?: string;
  issuesCap: number;
  issuesMlCap: number;
  issuesLangs?: string[];
  issuesHalf?: Half;
  mirrors?: string;
  describeCases: string;
  depsList: string;
  tuneOn: TuneOn;
  repo?: string;
  limit?: number;
  mode: 'query' | 'target';
  json?: string;
  rankers?: string[];
  scorer?: string;
  k: number;
  includeGenerated: boolean;
  /** Give CodeRAG each tree's commit history from its mirror (default); `--no-history` leaves it out. */
  history: boolean;
  cases: string;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    sets: ['commits', 'describe'],
    issuesIfFound: true,
    issuesCap: DEFAULT_ISSUE_CAP,
    issuesMlCap: DEFAULT_ML_ISSUE_CAP,
    describeCases: join(HERE, 'describe-cases.json'),
    depsList: DEPS_LIST_FILE,
    tuneOn: 'even',
    mode: 'query',
    k: 50,
    includeGenerated: false,
    history: true,
    cases: join(HERE, 'cases.json'),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    switch (a) {
      case '--set': {
        const v = val();
        if (v === 'all') {
          o.sets = ['commits', 'describe', 'lookup'];
          o.issuesIfFound = true;
          break;
        }
        const sets = v.split(',').map((x) => x.trim());
        if (!sets.every((x): x is SetName => (SET_NAMES as readonly string[]).includes(x))) {
          throw new Error(`--set must be all, or a comma-separated list of ${SET_NAMES.join(', ')}`);
        }
        o.sets = [...new Set(sets)];
        o.issuesIfFound = false;
        break;
      }
      case MIRRORS_FLAG: o.mirrors = val(); break;
      case ISSUES_DATA_FLAG: o.issuesData = val(); break;
      case '--issues-cap': o.issuesCap = Number(val()); break;
      case '--issues-ml-cap': o.issuesMlCap = Number(val()); break;
      case '--issues-lang': o.issuesLangs = val().split(',').map((s) => s.trim().toLowerCase()).filter(Boolean); break;
      case '--issues-half': {
        const v = val();
        if (v !== 'tune' && v !== 'holdout') throw new Error('--issues-half must be tune or holdout');
        o.issuesHalf = v;
        break;
      }
      case '--describe-cases': o.describeCases = resolve(val()); break;
      case '--deps-list': o.depsList = resolve(val()); break;
      case '--tune-on': {
        const v = val();
        if (v !== 'even' && v !== 'odd') throw new Error('--tune-on must be even or odd');
        o.tuneOn = v;
        break;
      }
      case '--repo': o.repo = val(); break;
      case '--limit': o.limit = Number(val()); break;
      case '--mode': {
        const m = val();
        if (m !== 'query' && m !== 'target') throw new Error('--mode must be query or target');
        o.mode = m;
        break;
      }
      case '--json': o.json = val(); break;
      case '--rankers': o.rankers = val().split(',').map((s) => s.trim()).filter(Boolean); break;
      case '--scorer': o.scorer = val(); break;
      case '--k': o.k = Number(val()); break;
      case '--include-generated': o.includeGenerated = true; break;
      case '--no-history': o.history = false; break;
      case '--cases': o.cases = resolve(val()); break;
      case '-h':
      case '--help':
        console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
        process.exit(0);
      default: throw new Error(`unknown argument ${a}`);
    }
  }
  if (o.limit !== undefined && !(o.limit > 0)) throw new Error('--limit must be a positive number');
  if (!(o.k >= 10)) throw new Error('--k must be >= 10');
  if (!(o.issuesCap > 0)) throw new Error('--issues-cap must be a positive number');
  if (!(o.issuesMlCap > 0)) throw new Error('--issues-ml-cap must be a positive number');
  if (o.mode === 'target' && o.sets.some((x) => x !== 'commits')) {
    if (o.sets.includes('commits')) o.sets = ['commits'];
    else throw new Error('--mode target applies to the commit set only');
  }
  if (o.mode === 'target') o.issuesIfFound = false;
  return o;
}

/** Candidate files of a tree: code-extension text files (no NUL in the first 8 KiB), repo-relative POSIX, sorted. */
export function listCandidates(treeDir: string, includeGenerated: boolean): string[] {
  const out: string[] = [];
  const buf = Buffer.alloc(8192);
  const walk = (rel: string): void => {
    for (const d of readdirSync(join(treeDir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        if (d.name === 'node_modules' || d.name === 'vendor' || d.name === '.git') continue;
        walk(p);
      } else if (d.isFile() && isCandidatePath(p, includeGenerated)) {
        const fd = openSync(join(treeDir, p), 'r');
        const n = readSync(fd, buf, 0, buf.length, 0);
        closeSync(fd);
        if (!buf.subarray(0, n).includes(0)) out.push(p);
      }
    }
  };
  walk('');
  return out.sort();
}

export function queryFor(c: EvalCase, mode: 'query' | 'target'): RankQuery {
  const text = cleanMessage(c.message).replace(/\s+/g, ' ').trim();
  const keywords = keywordTerms(text);
  if (mode === 'target') {
    const target = [...c.added_files].sort()[0];
    if (!target) throw new Error(`case ${c.commit} has no added file`);
    return { query: '', target, keywords };
  }
  return { query: text, keywords };
}

function selectCases(all: EvalCase[], o: Options): EvalCase[] {
  const perRepo = new Map<string, number>();
  const out: EvalCase[] = [];
  for (const c of all) {
    if (o.repo && o.repo !== c.repo && o.repo !== c.mirror_hint) continue;
    if (o.mode === 'query' && c.target_only) continue;
    if (o.mode === 'target' && c.added_files.length === 0) continue;
    const n = perRepo.get(c.repo) ?? 0;
    if (o.limit !== undefined && n >= o.limit) continue;
    perRepo.set(c.repo, n + 1);
    out.push(c);
  }
  return out;
}

/**
 * The rankers a set runs: `bm25fn` (BM25 over function source, issue 40's function-level baseline) runs in the
 * issue sets by default and in the others only when `--rankers` names it.
 */
function rankersFor(set: SetName, rankers: readonly Ranker[], o: Options): Ranker[] {
  return isIssueSet(set) || o.rankers?.includes('bm25fn') ? [...rankers] : rankers.filter((r) => r.name !== 'bm25fn');
}

/** The rankers asked for; `config` is CodeRAG's index configuration (a partial one), for a set that needs one. */
async function loadRankers(o: Options, config?: unknown): Promise<Ranker[]> {
  const want = (n: string): boolean => !o.rankers || o.rankers.includes(n);
  const rankers: Ranker[] = [];
  if (want('keyword')) rankers.push(keywordRanker);
  if (want('bm25')) rankers.push(bm25Ranker);
  if (want('bm25fn')) rankers.push(bm25FnRanker);
  if (want('coderag')) {
    // Lazy so the baselines run before CodeRAG's library API (src/lib.ts) exists. The specifier is a variable
    // so this file type-checks on its own.
    const spec = './coderagRanker.js';
    try {
      const mod = (await import(spec)) as { createCodeRagRanker: (opts?: { scorer?: string; config?: unknown }) => Ranker };
      rankers.push(mod.createCodeRagRanker({ ...(o.scorer ? { scorer: o.scorer } : {}), ...(config ? { config } : {}) }));
    } catch (err) {
      const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
      console.error(`[eval] CodeRAG ranker skipped: could not load its library API (${msg})`);
    }
  }
  if (rankers.length === 0) throw new Error('no rankers selected');
  return rankers;
}

export interface CaseResult extends CaseMetrics {
  set: SetName;
  ranker: string;
  repo: string;
  language: string;
  half: Half;
  /** The commit (commit set) or owner/name (description set): the id the half is drawn from. */
  commit: string;
  answers: string[];
  target?: string;
  top10: string[];
}

function fmt(x: number): string {
  return x.toFixed(3);
}

interface Row extends Summary {
  set: string;
  group: string;
  ranker: string;
}

export function table(rows: readonly Row[]): string {
  const head = ['set', 'group', 'ranker', 'cases', 'R@1', 'MRR', 'R@5', 'R@10'];
  const body = rows.map((r) => [r.set, r.group, r.ranker, String(r.cases), fmt(r.r1), fmt(r.mrr), fmt(r.r5), fmt(r.r10)]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i < 3 ? c.padEnd(w[i] ?? 0) : c.padStart(w[i] ?? 0))).join('  ');
  return [line(head), w.map((n) => '-'.repeat(n)).join('  '), ...body.map(line)].join('\n');
}

/** Summary rows of one set: per language, per repository (commit set), per half, and overall, for each ranker. */
export function summaryRows(set: string, rankers: readonly string[], results: readonly CaseResult[]): Row[] {
  const rows: Row[] = [];
  const languages = [...new Set(results.map((r) => r.language))].sort();
  const repos = set === 'commits' ? [...new Set(results.map((r) => r.repo))] : [];
  for (const ranker of rankers) {
    const mine = results.filter((r) => r.ranker === ranker);
    const add = (group: string, list: readonly CaseResult[]): void => {
      if (list.length) rows.push({ set, group, ranker, ...summarise(list) });
    };
    for (const lang of languages) add(lang, mine.filter((r) => r.language === lang));
    for (const repo of repos) add(`  ${repo}`, mine.filter((r) => r.repo === repo));
    add('half: tune', mine.filter((r) => r.half === 'tune'));
    add('half: held out', mine.filter((r) => r.half === 'holdout'));
    add('overall', mine);
  }
  return rows.sort((a, b) => groupOrder(a.group) - groupOrder(b.group) || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}

/** Rows grouped as: languages, repositories, halves, overall (rankers stay in their order within a group). */
function groupOrder(group: string): number {
  if (group === 'overall') return 3;
  if (group.startsWith('half:')) return 2;
  if (group.startsWith('  ')) return 1;
  return 0;
}

interface SetRun {
  results: Array<CaseResult | IssueCaseResult>;
  checkoutMs: number;
  skipped: number;
  trees: number;
}

export type Timing = Map<string, { prepareMs: number; rankMs: number }>;

async function runCommits(o: Options, rankers: readonly Ranker[], findMirror: (hint: string) => string | undefined, timing: Timing): Promise<SetRun> {
  const all = JSON.parse(readFileSync(o.cases, 'utf8')) as EvalCase[];
  const cases = selectCases(all, o);
  const repos = [...new Set(cases.map((c) => c.repo))];
  // Halves are drawn over every query-mode case of the file, so a --repo or --limit run keeps each case's half.
  const halves = splitHalves(all.filter((c) => !c.target_only).map((c) => c.commit), o.tuneOn);
  console.error(`[eval] commits: mode=${o.mode} cases=${cases.length} (${repos.map((r) => `${r}:${cases.filter((c) => c.repo === r).length}`).join(' ')})`);

  // Group by tree so each tree is materialised, listed and prepared once.
  const groups = new Map<string, EvalCase[]>();
  for (const c of cases) {
    const key = `${c.repo}@${c.parent}`;
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  }
  const results: CaseResult[] = [];
  let checkoutMs = 0;
  let skipped = 0;
  let done = 0;

  for (const group of groups.values()) {
    const first = group[0];
    if (!first) continue;
    let treeDir: string;
    let files: string[];
    const tc = performance.now();
    try {
      treeDir = materialise(first.repo, first.parent, treeCached(first.repo, first.parent) ? undefined : findMirror(first.mirror_hint));
      files = listCandidates(treeDir, o.includeGenerated);
    } catch (err) {
      if (err instanceof Error && err.message.includes(MIRRORS_ENV)) throw err;
      console.error(`[eval] skipping ${group.length} case(s) of ${first.repo}@${first.parent.slice(0, 10)}: ${err instanceof Error ? err.message : String(err)}`);
      skipped += group.length;
      continue;
    }
    checkoutMs += performance.now() - tc;
    const fileSet = new Set(files);
    for (const c of group) {
      const missing = c.changed_source_files.filter((f) => !fileSet.has(f));
      if (missing.length) console.error(`[eval] ${c.repo} ${c.commit.slice(0, 10)}: answer file(s) not among candidates: ${missing.join(', ')}`);
    }
    // A commit's tree is its parent's: the history of the parent, before the commit.
    const history = o.history ? treeHistory(findMirror, first.mirror_hint, first.parent) : undefined;
    for (const ranker of rankers) {
      const tm = timing.get(ranker.name);
      let t = performance.now();
      const prepared = await ranker.prepare(treeDir, files, undefined, history);
      if (tm) tm.prepareMs += performance.now() - t;
      for (const c of group) {
        const q = queryFor(c, o.mode);
        t = performance.now();
        const ranked = await ranker.rank(prepared, q, o.k);
        if (tm) tm.rankMs += performance.now() - t;
        results.push({
          set: 'commits',
          ranker: ranker.name,
          repo: c.repo,
          language: c.language,
          half: halves.get(c.commit) ?? 'holdout',
          commit: c.commit,
          answers: c.changed_source_files,
          ...(q.target ? { target: q.target } : {}),
          ...caseMetrics(ranked, c.changed_source_files),
          top10: ranked.slice(0, 10),
        });
      }
    }
    done += group.length;
    if (process.stderr.isTTY) process.stderr.write(`\r[eval] commits: ${done}/${cases.length} cases`);
  }
  if (process.stderr.isTTY) process.stderr.write('\n');
  return { results, checkoutMs, skipped, trees: groups.size };
}

function treeCached(repo: string, sha: string): boolean {
  return existsSync(treeDirFor(repo, sha));
}

/** A description case's folder under bench/.work/describe: owner+name@sha12. */
export function describeRoot(c: Pick<DescribeCase, 'repo' | 'commit'>): string {
  return `${c.repo.replace('/', '+')}@${c.commit.slice(0, 12)}`;
}

/** Repositories in the order of their best file in `rankedFiles` (paths `<root>/<path>`). */
export function reposByBestFile(rankedFiles: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const p of rankedFiles) {
    const root = p.split('/')[0] ?? p;
    if (!seen.has(root)) {
      seen.add(root);
      out.push(root);
    }
  }
  return out;
}

/** Files asked of a ranker in the description set: enough for every repository's best file to show up. */
const DESCRIBE_FILES_K = 3000;

async function runDescribe(o: Options, rankers: readonly Ranker[], findMirror: (hint: string) => string | undefined, timing: Timing): Promise<SetRun> {
  const all = JSON.parse(readFileSync(o.describeCases, 'utf8')) as DescribeCase[];
  const halves = splitHalves(all.map((c) => c.repo), o.tuneOn);
  const cases = all.filter((c) => !o.repo || o.repo === c.repo || o.repo === c.repo.split('/')[1]);
  console.error(`[eval] describe: ${cases.length} repositories searched together`);
  const tc = performance.now();
  const files: string[] = [];
  const present: DescribeCase[] = [];
  let skipped = 0;
  for (const c of cases) {
    const root = describeRoot(c);
    const dir = join(DESCRIBE_DIR, root);
    try {
      materialiseFiles(DESCRIBE_DIR, root, c.commit, c.files, existsSync(dir) ? undefined : findMirror(c.repo));
    } catch (err) {
      if (err instanceof Error && err.message.includes(MIRRORS_ENV)) throw err;
      console.error(`[eval] describe: skipping ${c.repo}: ${err instanceof Error ? err.message : String(err)}`);
      skipped++;
      continue;
    }
    present.push(c);
    const candidates = new Set(listCandidates(dir, o.includeGenerated));
    files.push(...c.files.filter((f) => candidates.has(f)).map((f) => `${root}/${f}`));
  }
  const checkoutMs = performance.now() - tc;
  const results = await rankTogether(
    'describe',
    DESCRIBE_DIR,
    present.map((c) => ({ id: c.repo, root: describeRoot(c), language: c.language, query: c.query, half: halves.get(c.repo) ?? 'holdout' })),
    files,
    rankers,
    timing,
    o.k,
  );
  return { results, checkoutMs, skipped, trees: present.length };
}

/** One case of a set searched together: its id, the folder that answers it under the set's directory, its query. */
interface TogetherCase {
  id: string;
  root: string;
  language: string;
  query: string;
  half: Half;
}

/** Every ranker over every root at once; a root ranks where its best file ranks. */
async function rankTogether(
  set: 'describe' | 'deps',
  dir: string,
  cases: readonly TogetherCase[],
  files: string[],
  rankers: readonly Ranker[],
  timing: Timing,
  k: number,
): Promise<CaseResult[]> {
  const roots = cases.map((c) => c.root);
  const results: CaseResult[] = [];
  for (const ranker of rankers) {
    const tm = timing.get(ranker.name);
    let t = performance.now();
    const prepared = await ranker.prepare(dir, files, roots);
    if (tm) tm.prepareMs += performance.now() - t;
    for (const c of cases) {
      const q: RankQuery = { query: c.query, keywords: keywordTerms(c.query) };
      t = performance.now();
      const ranked = reposByBestFile(await ranker.rank(prepared, q, DESCRIBE_FILES_K));
      if (tm) tm.rankMs += performance.now() - t;
      results.push({
        set,
        ranker: ranker.name,
        repo: c.id,
        language: c.language,
        half: c.half,
        commit: c.id,
        answers: [c.root],
        ...caseMetrics(ranked.slice(0, k), [c.root]),
        top10: ranked.slice(0, 10),
      });
    }
  }
  return results;
}

/** The dependency-folder set (deps.ts): packages' shipped code, searched together; CodeRAG indexes build folders. */
async function runDeps(o: Options, timing: Timing): Promise<SetRun> {
  const tc = performance.now();
  const all = prepareDeps(o.depsList);
  const halves = splitHalves(all.map((c) => c.spec), o.tuneOn);
  const cases = all.filter((c) => !o.repo || o.repo === c.name || o.repo === c.spec);
  console.error(`[eval] deps: ${cases.length} packages searched together`);
  const checkoutMs = performance.now() - tc;
  const rankers = rankersFor('deps', await loadRankers(o, depsIndexConfig()), o);
  const results = await rankDeps(cases, halves, rankers, timing, o.k);
  return { results, checkoutMs, skipped: 0, trees: cases.length };
}

/**
 * The dependency-folder cases ranked by `rankers` over every package's files at once (runDeps; relate.ts
 * --set deps takes its BM25 baseline from here).
 */
export async function rankDeps(cases: readonly DepsCase[], halves: ReadonlyMap<string, Half>, rankers: readonly Ranker[], timing: Timing, k: number): Promise<CaseResult[]> {
  const files = cases.flatMap((c) => c.files.map((f) => `${c.root}/${f}`));
  return rankTogether(
    'deps',
    DEPS_DIR,
    cases.map((c) => ({ id: c.spec, root: c.root, language: c.language, query: c.query, half: halves.get(c.spec) ?? 'holdout' })),
    files,
    rankers,
    timing,
    k,
  );
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const rankers = await loadRankers(o);
  const findMirror = mirrorFinder(o.mirrors);
  console.error(`[eval] sets=${o.sets.join(',')} rankers=${rankers.map((r) => r.name).join(',')}`);
  const timing: Timing = new Map(rankers.map((r) => [r.name, { prepareMs: 0, rankMs: 0 }]));
  const runs = new Map<SetName, SetRun & { ms: number }>();
  const sets = [...o.sets];
  let issueSources: ReturnType<typeof datasetSources> = [];
  if (sets.some(isIssueSet) || o.issuesIfFound) {
    issueSources = datasetSources(o.issuesData, findMirror);
    if (issueSources.length === 0) {
      const how = `pass ${ISSUES_DATA_FLAG} FILE[,FILE] or set ${ISSUES_DATA_ENV}, or put the dataset mirrors under ${MIRRORS_FLAG} / ${MIRRORS_ENV} (see bench/eval/README.md)`;
      if (sets.some(isIssueSet)) throw new Error(`issue set: no SWE-bench dataset found; ${how}`);
      console.error(`[eval] issue sets left out: no SWE-bench dataset found (${how})`);
    } else if (o.issuesIfFound) {
      for (const set of ['issues', 'heldout-issues'] as const) if (!sets.includes(set)) sets.push(set);
    }
  }
  const issueNotices = new Map<SetName, string[]>();
  let lookups: LookupRow[] | null = null;
  for (const set of sets) {
    const ts = performance.now();
    if (set === 'lookup') {
      lookups = await runLookups(lookupCases(), rankersFor(set, rankers, o), findMirror, (dir) => listCandidates(dir, o.includeGenerated));
      console.log(`\nlookup: short requests and the file that answers them, ${((performance.now() - ts) / 1000).toFixed(1)}s; blind = written without running any search\n`);
      console.log(lookupTable(lookups));
      continue;
    }
    let run: SetRun;
    if (isIssueSet(set)) {
      const heldOutRepos = set === 'heldout-issues';
      // The held-out repositories' report is SWE-bench Lite's instances, as issue 20 measured them (a file given
      // with --issues-data is read whole).
      const sources = heldOutRepos && issueSources.some((s) => s.lite) ? issueSources.filter((s) => s.lite) : issueSources;
      for (const s of sources) console.error(`[eval] ${set}: dataset ${s.label}`);
      const instances = mergeInstances(sources.map((s) => parseDataset(s.read())));
      const r = await runIssues(
        instances,
        {
          cap: o.issuesCap,
          mlCap: o.issuesMlCap,
          // Every held-out repository's case is Python and in the held-out half: `--issues-half tune` reads none.
          ...(o.issuesLangs ? { languages: o.issuesLangs } : {}),
          ...(o.issuesHalf ? { half: o.issuesHalf } : {}),
          ...(o.repo ? { repo: o.repo } : {}),
          ...(o.limit !== undefined ? { limit: o.limit } : {}),
          k: o.k,
          tuneOn: o.tuneOn,
          includeGenerated: o.includeGenerated,
          history: o.history,
          heldOutRepos,
        },
        rankers,
        findMirror,
        listCandidates,
        timing,
      );
      issueNotices.set(set, r.notices);
      run = r;
    } else if (set === 'deps') run = await runDeps(o, timing);
    else run = set === 'commits' ? await runCommits(o, rankersFor(set, rankers, o), findMirror, timing) : await runDescribe(o, rankersFor(set, rankers, o), findMirror, timing);
    runs.set(set, { ...run, ms: performance.now() - ts });
  }

  const rows: Row[] = [];
  for (const [set, run] of runs) {
    if (isIssueSet(set)) {
      const cases = new Set(run.results.map((r) => r.commit)).size;
      const title = set === 'issues' ? 'issues' : "held-out repositories' issues (a report, never tuned on)";
      console.log(`\n${title}: ${cases} cases, ${run.trees} trees${run.skipped ? `, ${run.skipped} skipped` : ''}, ${(run.ms / 1000).toFixed(1)}s; top-K ${o.k} (MRR is MRR@${o.k}); Acc@k = every gold file in the top k; fn = gold functions among the ranked symbols\n`);
      const issueRowsOfSet = issueRows(rankers.map((r) => r.name), run.results as IssueCaseResult[]);
      console.log(issueTable(issueRowsOfSet));
      console.log(`\nfiles and definitions, Acc@1 / Acc@5 / Acc@10 (fn: over the cases with gold definitions)\n`);
      console.log(issueLevelsTable(issueRowsOfSet));
      for (const n of issueNotices.get(set) ?? []) console.log(`  note: ${n}`);
      continue;
    }
    const name = set === 'commits' ? `commits (${o.mode})` : set;
    rows.push(...summaryRows(set, rankers.map((r) => r.name), run.results as CaseResult[]).map((r) => ({ ...r, set: name })));
    const cases = new Set(run.results.map((r) => r.commit)).size;
    console.log(`\n${name}: ${cases} cases, ${run.trees} ${set === 'commits' ? 'trees' : set === 'deps' ? 'packages' : 'repositories'}${run.skipped ? `, ${run.skipped} skipped` : ''}, ${(run.ms / 1000).toFixed(1)}s; top-K ${o.k} (MRR is MRR@${o.k})\n`);
    console.log(table(rows.filter((r) => r.set === name)));
  }
  const totalMs = performance.now() - t0;
  const checkoutMs = [...runs.values()].reduce((s, r) => s + r.checkoutMs, 0);
  console.log(
    `\ntime: total ${(totalMs / 1000).toFixed(1)}s, checkout+listing ${(checkoutMs / 1000).toFixed(1)}s, ` +
      [...timing].map(([n, t]) => `${n} prepare ${(t.prepareMs / 1000).toFixed(1)}s rank ${(t.rankMs / 1000).toFixed(1)}s`).join(', '),
  );

  if (o.json) {
    const out = {
      mode: o.mode,
      k: o.k,
      sets,
      tune_on: o.tuneOn,
      include_generated: o.includeGenerated,
      cases_file: o.cases,
      describe_cases_file: o.describeCases,
      generated_at: new Date().toISOString(),
      summary: rows,
      ...(runs.has('issues') ? { issues_summary: issueRows(rankers.map((r) => r.name), runs.get('issues')?.results as IssueCaseResult[]), issues_cap: o.issuesCap, issues_ml_cap: o.issuesMlCap } : {}),
      ...(lookups ? { lookup_summary: lookups.map(({ misses: _, ...row }) => row) } : {}),
      ...(runs.has('heldout-issues') ? { heldout_issues_summary: issueRows(rankers.map((r) => r.name), runs.get('heldout-issues')?.results as IssueCaseResult[]) } : {}),
      timing_ms: { total: totalMs, checkout_and_listing: checkoutMs, ...Object.fromEntries(timing) },
      per_case: [...runs.values()].flatMap((r) => r.results),
    };
    writeFileSync(o.json, JSON.stringify(out, null, 2) + '\n');
    console.error(`[eval] wrote ${o.json}`);
  }
}

// Run only as a script, so tune.ts can import queryFor and listCandidates.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.stack ?? err.message : String(err));
    process.exit(1);
  });
}
