/**
 * The issue set: real issue reports (SWE-bench Lite and SWE-bench Verified for Python; Multi-SWE-bench for Rust,
 * Java, JavaScript and Go; SWE-PolyBench for TypeScript) → the files, and the functions, their fix edits. The query is the issue's
 * `problem_statement` verbatim (Multi-SWE-bench: its resolved issues' titles and bodies, see fromMultiSweBench);
 * the index is built from the tree at the instance's `base_commit`.
 *
 * Nothing of the data is committed: the instances are read at run time from the dataset files (see
 * `datasetSources`), the trees from git mirrors (mirrors.ts), extracted by checkout.ts. This module holds the pure
 * rules (dataset parsing, case selection, gold files from a unified diff, the definitions a diff touches)
 * and the runner `runIssues`, which run.ts calls for `--set issues`.
 *
 * Rules
 * - Cases: instances of ISSUE_REPOS, ML_ISSUE_REPOS and PB_ISSUE_REPOS (never of HELD_OUT_NAMES), Lite and Verified
 *   merged by instance_id (the first source wins; the copies agree). Per repository at most `cap` (default 40; the
 *   Multi-SWE-bench and SWE-PolyBench repositories `mlCap`, default 6): the instances ordered by SHA-256 of their
 *   instance_id, the first `cap` kept, chosen without looking at any result. Halves: split.ts over every eligible
 *   instance, drawn separately for each of the three groups of repositories.
 * - Gold files: the files the gold `patch` modifies or deletes that exist at base_commit (a file the patch adds
 *   is no answer), restricted to paths.ts's source rule (no tests, docs, examples, non-code files). SWE-bench's
 *   tests are in a separate `test_patch`, not read. An instance left without a gold file is skipped.
 * - Gold functions: in each gold file at base_commit that a finder reads (defs.ts: Python by indentation, Rust,
 *   Java, JavaScript, TypeScript and Go by brackets over code with comments and literals masked), the innermost
 *   definition (Python: `def`, `async def` or `class`, decorators included) enclosing each line the patch removes
 *   or changes (hunks placed where their old side is found in the base text: a few gold patches apply only with an
 *   offset); for lines the patch only inserts, the innermost definition open at the insertion point (Python: whose
 *   header is indented less than the inserted code; brace languages: whose name line is at or before the
 *   insertion point and whose closing brace is after it). Lines at module level touch no definition. A case whose
 *   edits are all at module level (or in files no finder reads) has no gold function and is left out of the
 *   function-level figures.
 * - A ranked symbol hits a gold function when it is in the same file, has the same name, and its lines contain the
 *   gold definition's name line (`def`/`class` line); a Rust `impl` is also hit by its type's definition in the
 *   same file (symbolHits).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keywordTerms } from './baselines.js';
import { braceDefs, defLanguageOf, indentOf, pythonDefs, type PyDef, type SourceDef } from './defs.js';
import { materialise, treeDirFor } from './checkout.js';
import { caseMetrics, recallAtK, type CaseMetrics } from './metrics.js';
import { treeHistory } from './mirrors.js';
import { isSourceFile } from './paths.js';
import { splitHalves, type Half, type TuneOn } from './split.js';
import type { RankQuery, Ranker } from './types.js';

export { pythonDefs, type PyDef } from './defs.js';

/** One SWE-bench instance, the fields this set reads (Multi-SWE-bench rows are mapped to the same shape). */
export interface IssueInstance {
  instance_id: string;
  /** owner/name */
  repo: string;
  base_commit: string;
  problem_statement: string;
  patch: string;
}

/** Repositories whose instances make the Python set (SWE-bench Lite / Verified). */
export const ISSUE_REPOS: readonly string[] = ['django/django', 'sympy/sympy', 'scikit-learn/scikit-learn', 'matplotlib/matplotlib', 'astropy/astropy'];

/**
 * Repositories of the non-Python set (Multi-SWE-bench), with their language and the dataset file of the mirror
 * copy that holds their instances (MULTI_SWE_BENCH_MIRROR). Chosen: every repository of that copy with at least 4
 * instances whose data file is present (not a Git LFS pointer, not an absent blob) and whose code the workspace
 * `fetch` brings, except the held-out ones; see bench/eval/README.md for those left out and why.
 */
export const ML_ISSUE_REPOS: ReadonlyArray<{ repo: string; language: string; data: string }> = [
  { repo: 'BurntSushi/ripgrep', language: 'rust', data: 'rust/BurntSushi__ripgrep_dataset.jsonl' },
  { repo: 'sharkdp/bat', language: 'rust', data: 'rust/sharkdp__bat_dataset.jsonl' },
  { repo: 'sharkdp/fd', language: 'rust', data: 'rust/sharkdp__fd_dataset.jsonl' },
  { repo: 'tokio-rs/tokio', language: 'rust', data: 'rust/tokio-rs__tokio_dataset.jsonl' },
  { repo: 'tokio-rs/tracing', language: 'rust', data: 'rust/tokio-rs__tracing_dataset.jsonl' },
  { repo: 'tokio-rs/bytes', language: 'rust', data: 'rust/tokio-rs__bytes_dataset.jsonl' },
  { repo: 'google/gson', language: 'java', data: 'java/google__gson_dataset.jsonl' },
  { repo: 'FasterXML/jackson-core', language: 'java', data: 'java/fasterxml__jackson-core_dataset.jsonl' },
  { repo: 'FasterXML/jackson-dataformat-xml', language: 'java', data: 'java/fasterxml__jackson-dataformat-xml_dataset.jsonl' },
  { repo: 'mockito/mockito', language: 'java', data: 'java/mockito__mockito_dataset.jsonl' },
  { repo: 'alibaba/fastjson2', language: 'java', data: 'java/alibaba__fastjson2_dataset.jsonl' },
  { repo: 'GoogleContainerTools/jib', language: 'java', data: 'java/googlecontainertools__jib_dataset.jsonl' },
  { repo: 'iamkun/dayjs', language: 'javascript', data: 'js/iamkun__dayjs_dataset.jsonl' },
  { repo: 'axios/axios', language: 'javascript', data: 'js/axios__axios_dataset.jsonl' },
  { repo: 'anuraghazra/github-readme-stats', language: 'javascript', data: 'js/anuraghazra__github-readme-stats_dataset.jsonl' },
  { repo: 'grpc/grpc-go', language: 'go', data: 'go/grpc__grpc-go_dataset.jsonl' },
  { repo: 'zeromicro/go-zero', language: 'go', data: 'go/zeromicro__go-zero_dataset.jsonl' },
];

/** The mirror copy of Multi-SWE-bench (ByteDance-Seed/Multi-SWE-bench, one JSON-lines file per repository). */
export const MULTI_SWE_BENCH_MIRROR = { repo: 'kuppireddypravalika/MSWE-validation-dataset', dir: 'MSWE-agent/data' } as const;

/**
 * Repositories of the TypeScript group (SWE-PolyBench, AmazonScience/SWE-PolyBench): Multi-SWE-bench's TypeScript
 * repositories are held out (vuejs/core, darkreader) or a Git LFS pointer in its copy (mui/material-ui), so the
 * group's instances are SWE-PolyBench's, read from POLYBENCH_LOCAL_DATA (see bench/eval/README.md for the copy, and
 * for the TypeScript repositories left out and why).
 */
export const PB_ISSUE_REPOS: ReadonlyArray<{ repo: string; language: string }> = [{ repo: 'coder/code-server', language: 'typescript' }];

/**
 * The local copy of the SWE-PolyBench TypeScript instances, under the eval work folder (bench/.work, never
 * committed): JSON lines of SWE-bench-shaped rows. The public copy it was made from could not be fetched as a
 * mirror; bench/eval/README.md says how the file was made and checked.
 */
export const POLYBENCH_LOCAL_DATA = 'issues-data/swe-polybench-ts.jsonl';
const DEFAULT_WORK_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '.work');

/** A repository's language: 'python' for the SWE-bench repositories, ML_ISSUE_REPOS's or PB_ISSUE_REPOS's otherwise. */
export function issueLanguage(repo: string): string {
  const r = repo.toLowerCase();
  return [...ML_ISSUE_REPOS, ...PB_ISSUE_REPOS].find((m) => m.repo.toLowerCase() === r)?.language ?? 'python';
}

/**
 * Held out from all tuning (issue 20; issue 43 added the JavaScript and TypeScript ones): never a case here,
 * whatever a dataset holds. Matched on the name part, or on the whole `owner/name` for a name too common to hold
 * out alone (`vuejs/core`).
 */
export const HELD_OUT_NAMES: ReadonlySet<string> = new Set([
  'requests', 'pytest', 'pylint', 'sphinx', 'seaborn', 'xarray', 'flask', 'zod', 'fastify', 'express', 'httpx', 'gin',
  'preact', 'vuejs/core', 'babel', 'immutable-js', 'darkreader',
]);

/**
 * The held-out Python repositories, by their SWE-bench names: issue 20's own measurement was their SWE-bench Lite
 * instances (57 reports). Never a tuning case; `--set heldout-issues` reads them as a report only.
 */
export const HELD_OUT_ISSUE_REPOS: readonly string[] = [
  'psf/requests', 'pytest-dev/pytest', 'pylint-dev/pylint', 'sphinx-doc/sphinx', 'mwaskom/seaborn', 'pydata/xarray', 'pallets/flask',
];

export const DEFAULT_ISSUE_CAP = 40;
/** Per-repository cap of the non-Python set: 17 repositories of 2 to 56 instances, about 100 trees in all. */
export const DEFAULT_ML_ISSUE_CAP = 6;

export const ISSUES_DATA_ENV = 'CODERAG_EVAL_ISSUES_DATA';
export const ISSUES_DATA_FLAG = '--issues-data';

/**
 * Where the dataset is looked for when neither `--issues-data` nor $CODERAG_EVAL_ISSUES_DATA names files: public
 * GitHub repositories carrying copies, as mirrors under the mirror root (fetched like the code repositories).
 */
export const DATASET_MIRRORS: ReadonlyArray<{ repo: string; paths: readonly string[]; name: string; lite?: true }> = [
  { repo: 'ivan4722/csvtransfer', paths: ['swe-bench-lite.json'], name: 'SWE-bench Lite (300)', lite: true },
  { repo: 'ITMO-NSS-team/chronorepo_icdm26', paths: ['data/swebench_verified.jsonl'], name: 'SWE-bench Verified (500)' },
  {
    repo: MULTI_SWE_BENCH_MIRROR.repo,
    paths: ML_ISSUE_REPOS.map((m) => `${MULTI_SWE_BENCH_MIRROR.dir}/${m.data}`),
    name: `Multi-SWE-bench (${ML_ISSUE_REPOS.length} repositories)`,
  },
];

/**
 * One Multi-SWE-bench row (`org`, `repo`, `number`, `base.sha`, `resolved_issues`, `fix_patch`) as an instance:
 * the id is the row's `instance_id` (else `<org>__<repo>-<number>`), the problem statement the resolved issues'
 * titles and bodies (all of them, in order; never the pull request's own title or body, which describe the fix),
 * the patch `fix_patch` (its tests are in a separate `test_patch`, not read). Undefined when a field is missing.
 */
export function fromMultiSweBench(r: unknown): IssueInstance | undefined {
  const o = r as { org?: unknown; repo?: unknown; number?: unknown; instance_id?: unknown; base?: { sha?: unknown }; resolved_issues?: unknown; fix_patch?: unknown };
  if (typeof o.org !== 'string' || typeof o.repo !== 'string' || typeof o.fix_patch !== 'string' || typeof o.base?.sha !== 'string') return undefined;
  if (!Array.isArray(o.resolved_issues) || o.resolved_issues.length === 0) return undefined;
  const text = (o.resolved_issues as Array<{ title?: unknown; body?: unknown }>)
    .map((i) => [i.title, i.body].filter((x): x is string => typeof x === 'string' && x.trim() !== '').join('\n\n'))
    .filter(Boolean)
    .join('\n\n');
  if (!text) return undefined;
  const id = typeof o.instance_id === 'string' ? o.instance_id : `${o.org}__${o.repo}-${String(o.number)}`;
  return { instance_id: id, repo: `${o.org}/${o.repo}`, base_commit: o.base.sha, problem_statement: text, patch: o.fix_patch };
}

/**
 * A JSON array of instances, or JSON lines: SWE-bench rows (instance_id, repo, base_commit, problem_statement,
 * patch) or Multi-SWE-bench rows (fromMultiSweBench). Rows lacking a field this set needs are dropped.
 */
export function parseDataset(text: string): IssueInstance[] {
  const t = text.trim();
  const rows: unknown[] = t.startsWith('[') ? (JSON.parse(t) as unknown[]) : t.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as unknown);
  const out: IssueInstance[] = [];
  for (const r of rows) {
    const o = r as Partial<Record<keyof IssueInstance, unknown>>;
    if (typeof o.instance_id === 'string' && typeof o.repo === 'string' && typeof o.base_commit === 'string' && typeof o.problem_statement === 'string' && typeof o.patch === 'string') {
      out.push({ instance_id: o.instance_id, repo: o.repo, base_commit: o.base_commit, problem_statement: o.problem_statement, patch: o.patch });
      continue;
    }
    const m = fromMultiSweBench(r);
    if (m) out.push(m);
  }
  return out;
}

/** Instances of several sources, one per instance_id (the first seen). */
export function mergeInstances(lists: ReadonlyArray<readonly IssueInstance[]>): IssueInstance[] {
  const byId = new Map<string, IssueInstance>();
  for (const list of lists) for (const i of list) if (!byId.has(i.instance_id)) byId.set(i.instance_id, i);
  return [...byId.values()];
}

export function isHeldOutRepo(repo: string): boolean {
  const name = (repo.split('/').pop() ?? repo).toLowerCase();
  return HELD_OUT_NAMES.has(name) || HELD_OUT_NAMES.has(repo.toLowerCase());
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/**
 * The cases: instances of `repos` (never a held-out one), at most `cap` per repository, each repository's
 * instances taken in order of SHA-256 of their instance_id. Returned grouped by repository (in `repos` order).
 * Repository names match without regard to case (Multi-SWE-bench spells `fasterxml/jackson-core`); a selected
 * instance carries the spelling of `repos`, the one its mirror is found by.
 */
export function selectIssueCases(instances: readonly IssueInstance[], cap: number = DEFAULT_ISSUE_CAP, repos: readonly string[] = ISSUE_REPOS): IssueInstance[] {
  return firstBySha(instances, cap, repos.filter((repo) => !isHeldOutRepo(repo)));
}

/** The cases of the held-out repositories (HELD_OUT_ISSUE_REPOS), chosen like selectIssueCases': a report only. */
export function selectHeldOutIssueCases(instances: readonly IssueInstance[], cap: number = DEFAULT_ISSUE_CAP): IssueInstance[] {
  return firstBySha(instances, cap, HELD_OUT_ISSUE_REPOS);
}

function firstBySha(instances: readonly IssueInstance[], cap: number, repos: readonly string[]): IssueInstance[] {
  const out: IssueInstance[] = [];
  for (const repo of repos) {
    const lower = repo.toLowerCase();
    const mine = instances
      .filter((i) => i.repo.toLowerCase() === lower)
      .map((i) => ({ i, h: sha256(i.instance_id) }))
      .sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0))
      .slice(0, cap);
    out.push(...mine.map(({ i }) => (i.repo === repo ? i : { ...i, repo })));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Unified diffs

export interface Hunk {
  oldStart: number;
  /** The hunk's body lines, each with its leading ' ', '-' or '+'. */
  lines: string[];
}

export interface FileDiff {
  /** Path before the change; null when the patch adds the file. */
  oldPath: string | null;
  /** Path after the change; null when the patch deletes the file. */
  newPath: string | null;
  hunks: Hunk[];
}

function stripPrefix(p: string, prefix: 'a/' | 'b/'): string | null {
  const path = p.replace(/\t.*$/, '').trim();
  if (path === '/dev/null') return null;
  return path.startsWith(prefix) ? path.slice(2) : path;
}

/** The files of a `git diff` style patch, each with its hunks. */
export function parsePatch(patch: string): FileDiff[] {
  const files: FileDiff[] = [];
  let cur: FileDiff | null = null;
  let hunk: Hunk | null = null;
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of patch.split('\n')) {
    if (hunk && (oldLeft > 0 || newLeft > 0)) {
      const tag = line[0];
      if (tag === ' ' || line === '') {
        hunk.lines.push(line === '' ? ' ' : line);
        oldLeft--;
        newLeft--;
        continue;
      }
      if (tag === '-') {
        hunk.lines.push(line);
        oldLeft--;
        continue;
      }
      if (tag === '+') {
        hunk.lines.push(line);
        newLeft--;
        continue;
      }
      if (tag === '\\') continue;
    }
    if (line.startsWith('\\')) continue;
    const git = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
    if (git) {
      cur = { oldPath: git[1] ?? null, newPath: git[2] ?? null, hunks: [] };
      files.push(cur);
      hunk = null;
      continue;
    }
    if (line.startsWith('new file mode') && cur) {
      cur.oldPath = null;
      continue;
    }
    if (line.startsWith('deleted file mode') && cur) {
      cur.newPath = null;
      continue;
    }
    if (line.startsWith('--- ')) {
      const p = stripPrefix(line.slice(4), 'a/');
      if (!cur) {
        cur = { oldPath: p, newPath: null, hunks: [] };
        files.push(cur);
      } else cur.oldPath = p;
      continue;
    }
    if (line.startsWith('+++ ') && cur) {
      cur.newPath = stripPrefix(line.slice(4), 'b/');
      continue;
    }
    const h = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (h && cur) {
      hunk = { oldStart: Number(h[1]), lines: [] };
      oldLeft = h[2] === undefined ? 1 : Number(h[2]);
      newLeft = h[4] === undefined ? 1 : Number(h[4]);
      cur.hunks.push(hunk);
    }
  }
  return files;
}

/** The gold files: existing at the base (not added), modified or deleted, and source files by paths.ts's rule. */
export function goldFiles(patch: string): string[] {
  const out = new Set<string>();
  for (const f of parsePatch(patch)) if (f.oldPath && isSourceFile(f.oldPath)) out.add(f.oldPath);
  return [...out].sort();
}

/**
 * The hunks moved to where their old side actually is in the base text. Some gold patches were made against a
 * slightly different state and apply only with an offset (as `git apply` and `patch` allow): their line numbers
 * are off by a few lines. Each hunk's old side (context and removed lines) is looked for at its stated line, then
 * 1, -1, 2, -2, … lines away; a hunk found nowhere keeps its stated line.
 */
export function alignHunks(text: string, hunks: readonly Hunk[]): Hunk[] {
  const base = text.split('\n').map((l) => l.trimEnd());
  return hunks.map((h) => {
    const old = h.lines.filter((l) => l[0] !== '+').map((l) => l.slice(1).trimEnd());
    const fits = (start: number): boolean => start >= 1 && start - 1 + old.length <= base.length && old.every((l, i) => base[start - 1 + i] === l);
    if (old.length === 0 || fits(h.oldStart)) return h;
    for (let d = 1; d <= base.length; d++) {
      if (fits(h.oldStart + d)) return { ...h, oldStart: h.oldStart + d };
      if (fits(h.oldStart - d)) return { ...h, oldStart: h.oldStart - d };
    }
    return h;
  });
}

/** What a file's hunks touch at the base: lines removed or changed, and insertion points of added-only runs. */
export interface Touched {
  /** 1-based line numbers of the base file that the patch removes (a changed line is removed and added). */
  removed: number[];
  /** Runs of added lines with no removed line in the same change: inserted after base line `after` (0 = top). */
  insertions: Array<{ after: number; indent: number }>;
}

/** Whether a line holds only a comment: Python's `#`; the brace languages' `//`, `/*`, a block comment's `*` lines. */
export type CommentLine = (trimmed: string) => boolean;
export const pythonComment: CommentLine = (t) => t.startsWith('#');
export const braceComment: CommentLine = (t) => t.startsWith('//') || t.startsWith('/*') || t.startsWith('*');

export function touchedLines(hunks: readonly Hunk[], isComment: CommentLine = pythonComment): Touched {
  const removed: number[] = [];
  const insertions: Touched['insertions'] = [];
  for (const h of hunks) {
    let old = h.oldStart; // the next base line
    let i = 0;
    const lines = h.lines;
    while (i < lines.length) {
      const l = lines[i] as string;
      if (l[0] === ' ') {
        old++;
        i++;
        continue;
      }
      // one change: a run of - and + lines
      let sawRemoved = false;
      const added: string[] = [];
      const before = old - 1;
      while (i < lines.length && (lines[i]?.[0] === '-' || lines[i]?.[0] === '+')) {
        const c = lines[i] as string;
        if (c[0] === '-') {
          removed.push(old);
          old++;
          sawRemoved = true;
        } else added.push(c.slice(1));
        i++;
      }
      if (!sawRemoved) {
        const code = added.filter((a) => a.trim() !== '' && !isComment(a.trim()));
        if (code.length) insertions.push({ after: before, indent: Math.min(...code.map(indentOf)) });
      }
    }
  }
  return { removed, insertions };
}

/** Whether base line n (1-based) holds nothing but blanks or a comment. */
function blankOrComment(lines: readonly string[], n: number): boolean {
  const t = (lines[n - 1] ?? '').trim();
  return t === '' || t.startsWith('#');
}

/** The innermost definitions a file's touched lines fall in (see the module comment), in order of their lines. */
export function touchedDefs(text: string, touched: Touched): PyDef[] {
  const defs = pythonDefs(text);
  const lines = text.split('\n');
  const hit = new Set<PyDef>();
  const innermost = (cands: PyDef[]): PyDef | undefined => cands.reduce<PyDef | undefined>((best, d) => (!best || d.start >= best.start ? d : best), undefined);
  for (const n of touched.removed) {
    const d = innermost(defs.filter((x) => x.start <= n && n <= x.end));
    if (d) hit.add(d);
  }
  for (const { after, indent } of touched.insertions) {
    // open at the insertion point: starts at or before it, and nothing but blanks and comments since its end
    const open = defs.filter((x) => {
      if (x.line > after || after < 1) return false;
      if (x.end >= after) return true;
      for (let n = x.end + 1; n <= after; n++) if (!blankOrComment(lines, n)) return false;
      return true;
    });
    const d = innermost(open.filter((x) => x.indent < indent));
    if (d) hit.add(d);
  }
  return [...hit].sort((a, b) => a.line - b.line);
}

/**
 * The brace languages' rule (defs.ts's finders): the innermost definition whose lines hold each removed line; for
 * an insertion, the innermost definition open at the insertion point: its name line at or before the line the
 * code is inserted after, its closing line after it (a new method inside a class goes to the class, a new
 * top-level function to no definition).
 */
export function touchedBraceDefs(defs: readonly SourceDef[], touched: Touched): SourceDef[] {
  const hit = new Set<SourceDef>();
  const innermost = (cands: SourceDef[]): SourceDef | undefined => cands.reduce<SourceDef | undefined>((best, d) => (!best || d.start > best.start || (d.start === best.start && d.line >= best.line) ? d : best), undefined);
  for (const n of touched.removed) {
    const d = innermost(defs.filter((x) => x.start <= n && n <= x.end));
    if (d) hit.add(d);
  }
  for (const { after } of touched.insertions) {
    const d = innermost(defs.filter((x) => x.line <= after && after < x.end));
    if (d) hit.add(d);
  }
  return [...hit].sort((a, b) => a.line - b.line);
}

export interface GoldFunction {
  file: string;
  name: string;
  qualname: string;
  /** defs.ts's kind: 'def' | 'class' (Python), 'fn' | 'impl' | 'struct' … (Rust), 'method' | 'class' … (Java, JS, TS), 'func' | 'method' | 'struct' … (Go). */
  kind: string;
  /** The `def` / `class` line at the base (the brace languages: the line of the definition's name). */
  line: number;
}

/**
 * Gold functions of a patch, given a reader of base-commit files (undefined when a file cannot be read): the
 * definitions the hunks of each gold file touch, for every file a finder reads (defLanguageOf: Python, Rust, Java,
 * JavaScript, TypeScript, Go).
 */
export function goldFunctions(patch: string, readBase: (path: string) => string | undefined): GoldFunction[] {
  const gold = new Set(goldFiles(patch));
  const out: GoldFunction[] = [];
  for (const f of parsePatch(patch)) {
    const lang = f.oldPath ? defLanguageOf(f.oldPath) : undefined;
    if (!f.oldPath || !gold.has(f.oldPath) || !lang) continue;
    const text = readBase(f.oldPath);
    if (text === undefined) continue;
    const hunks = alignHunks(text, f.hunks);
    const touched: Array<{ name: string; qualname: string; kind: string; line: number }> =
      lang === 'python' ? touchedDefs(text, touchedLines(hunks)) : touchedBraceDefs(braceDefs(text, lang), touchedLines(hunks, braceComment));
    for (const d of touched) out.push({ file: f.oldPath, name: d.name, qualname: d.qualname, kind: d.kind, line: d.line });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Metrics

/** A symbol a ranker returns: its file (tree-relative POSIX), name and lines (and its kind, when known). */
export interface RankedSymbol {
  file: string;
  name: string;
  ast_path: string;
  start_line: number;
  end_line: number;
  kind?: string;
}

/** Kinds of ranked symbol that define a type: what a Rust `impl` gold definition is also hit by. */
const TYPE_KINDS: ReadonlySet<string> = new Set(['struct', 'enum', 'union', 'trait', 'type', 'class', 'interface']);

/**
 * A ranked symbol hits a gold definition when it is in the same file, has the same name, and its lines contain
 * the gold definition's name line (Python: its `def` / `class` line). A Rust `impl Foo` block (a gold definition
 * when a change falls in it outside its functions, e.g. a new method) is also hit by the definition of the type
 * `Foo` in the same file: CodeRAG, like most symbol tables, records an impl's methods and its type, not the block.
 */
export function symbolHits(s: RankedSymbol, g: GoldFunction): boolean {
  if (s.file !== g.file || s.name !== g.name) return false;
  if (s.start_line <= g.line && g.line <= s.end_line) return true;
  return g.kind === 'impl' && s.kind !== undefined && TYPE_KINDS.has(s.kind);
}

/** Acc@k: 1 when every gold item is among the first k, else 0 (the SWE-bench localization convention). */
export function accAtK(ranked: readonly string[], answers: readonly string[], k: number): number {
  return recallAtK(ranked, answers, k) === 1 ? 1 : 0;
}

export interface FunctionMetrics {
  fnAcc1: number;
  fnAcc5: number;
  fnAcc10: number;
  fnR10: number;
}

/** Function-level figures of one ranked symbol list (duplicates by file and ast_path ignored after the first). */
export function functionMetrics(ranked: readonly RankedSymbol[], gold: readonly GoldFunction[]): FunctionMetrics {
  const seen = new Set<string>();
  const list = ranked.filter((s) => {
    const key = `${s.file}\0${s.ast_path}\0${s.start_line}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const found = (k: number): number => gold.filter((g) => list.slice(0, k).some((s) => symbolHits(s, g))).length;
  return { fnAcc1: found(1) === gold.length ? 1 : 0, fnAcc5: found(5) === gold.length ? 1 : 0, fnAcc10: found(10) === gold.length ? 1 : 0, fnR10: found(10) / gold.length };
}

// ---------------------------------------------------------------------------------------------------------------
// Dataset location

export interface DatasetSource {
  /** A file path, or `<gitdir>:<path>` for a file in a mirror's HEAD. */
  label: string;
  /** A mirror of SWE-bench Lite (the held-out repositories' report reads it alone). */
  lite?: true;
  read(): string;
}

/**
 * The dataset files: `--issues-data FILE[,FILE…]`, else $CODERAG_EVAL_ISSUES_DATA (same form), else the
 * DATASET_MIRRORS found under the mirror root and the local SWE-PolyBench copy (POLYBENCH_LOCAL_DATA under
 * `workDir`, bench/.work) when it is there. Empty when none is found.
 */
export function datasetSources(
  flag: string | undefined,
  findMirror: (hint: string) => string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  workDir: string = DEFAULT_WORK_DIR,
): DatasetSource[] {
  const given = flag ?? env[ISSUES_DATA_ENV];
  if (given) {
    return given
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((p) => {
        const file = resolve(p);
        if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`issue dataset ${file} (from ${flag ? ISSUES_DATA_FLAG : ISSUES_DATA_ENV}) is not a file`);
        return { label: file, read: () => readFileSync(file, 'utf8') };
      });
  }
  const out: DatasetSource[] = [];
  const local = join(workDir, POLYBENCH_LOCAL_DATA);
  const localSource: DatasetSource[] = existsSync(local) && statSync(local).isFile()
    ? [{ label: `SWE-PolyBench TypeScript (${PB_ISSUE_REPOS.length} ${PB_ISSUE_REPOS.length === 1 ? 'repository' : 'repositories'}, local copy): ${local}`, read: () => readFileSync(local, 'utf8') }]
    : [];
  for (const m of DATASET_MIRRORS) {
    let gitDir: string | undefined;
    try {
      gitDir = findMirror(m.repo);
    } catch {
      return localSource; // no mirror root
    }
    if (!gitDir) continue;
    const dir = gitDir;
    out.push({
      label: `${m.name}: ${dir}:${m.paths.length === 1 ? m.paths[0] : `{${m.paths.length} files}`}`,
      ...(m.lite ? { lite: m.lite } : {}),
      // several JSON-lines files read as one (each ends with a newline, or is given one)
      read: () => m.paths.map((p) => execFileSync('git', [`--git-dir=${dir}`, 'show', `HEAD:${p}`], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 }).replace(/\n?$/, '\n')).join(''),
    });
  }
  return [...out, ...localSource];
}

// ---------------------------------------------------------------------------------------------------------------
// Runner

/**
 * Each eligible instance's half: split.ts over every eligible instance (uncapped), so neither a cap nor --repo /
 * --limit moves a case between halves; drawn separately for the SWE-bench (ISSUE_REPOS), the Multi-SWE-bench
 * (ML_ISSUE_REPOS) and the SWE-PolyBench (PB_ISSUE_REPOS) repositories, so adding a group moves no case of another.
 */
export function issueHalves(instances: readonly IssueInstance[], tuneOn: TuneOn = 'even'): Map<string, Half> {
  return new Map([
    ...splitHalves(selectIssueCases(instances, Infinity).map((c) => c.instance_id), tuneOn),
    ...splitHalves(selectIssueCases(instances, Infinity, ML_ISSUE_REPOS.map((m) => m.repo)).map((c) => c.instance_id), tuneOn),
    ...splitHalves(selectIssueCases(instances, Infinity, PB_ISSUE_REPOS.map((m) => m.repo)).map((c) => c.instance_id), tuneOn),
  ]);
}

/** A ranker that can also say which symbols of its files match (CodeRAG). */
export interface SymbolRanker extends Ranker {
  rankWithSymbols(prepared: unknown, q: RankQuery, k: number): Promise<{ files: string[]; symbols: RankedSymbol[] }>;
}

function hasSymbols(r: Ranker): r is SymbolRanker {
  return typeof (r as Partial<SymbolRanker>).rankWithSymbols === 'function';
}

export interface IssueCaseResult extends CaseMetrics {
  /** `heldout-issues` for the held-out repositories' cases (IssueRunOptions.heldOutRepos). */
  set: 'issues' | 'heldout-issues';
  ranker: string;
  repo: string;
  language: string;
  half: Half;
  /** The instance_id (the id halves are drawn from; named `commit` like the other sets' results). */
  commit: string;
  base_commit: string;
  answers: string[];
  acc1: number;
  acc5: number;
  acc10: number;
  gold_functions: string[];
  /** Function-level figures, for rankers that return symbols and cases with gold functions. */
  fn?: FunctionMetrics;
  top10: string[];
  top10_symbols?: string[];
}

export interface IssueRunOptions {
  /** Per-repository cap of the SWE-bench (Python) repositories. */
  cap: number;
  /** Per-repository cap of the Multi-SWE-bench and SWE-PolyBench repositories (default DEFAULT_ML_ISSUE_CAP). */
  mlCap?: number;
  /** Only cases of these languages (all when absent). */
  languages?: readonly string[];
  /** Only the cases of one half (both when absent): a larger cap's tuning half without indexing its held-out trees. */
  half?: Half;
  repo?: string;
  limit?: number;
  k: number;
  tuneOn: TuneOn;
  includeGenerated: boolean;
  /** Give rankers each base tree's history from its mirror (default true). */
  history?: boolean;
  /**
   * The held-out repositories' cases instead (HELD_OUT_ISSUE_REPOS, at most `cap` each), every one in the held-out
   * half: a report, never tuned on.
   */
  heldOutRepos?: boolean;
}

export interface IssueRun {
  results: IssueCaseResult[];
  checkoutMs: number;
  skipped: number;
  trees: number;
  notices: string[];
}

/**
 * The issue set's cases: `cap` per SWE-bench repository, `mlCap` per Multi-SWE-bench or SWE-PolyBench repository.
 * run.ts and tuneTask.ts both select with it, so they rank the same cases.
 */
export function selectIssueSet(instances: readonly IssueInstance[], cap: number, mlCap: number): IssueInstance[] {
  const mlRepos = [...ML_ISSUE_REPOS, ...PB_ISSUE_REPOS].map((m) => m.repo);
  return [...selectIssueCases(instances, cap), ...selectIssueCases(instances, mlCap, mlRepos)];
}

/**
 * Runs the issue set. `listCandidates` is run.ts's (passed in to keep this module free of run.ts).
 */
export async function runIssues(
  instances: readonly IssueInstance[],
  o: IssueRunOptions,
  rankers: readonly Ranker[],
  findMirror: (hint: string) => string | undefined,
  listCandidates: (treeDir: string, includeGenerated: boolean) => string[],
  timing: Map<string, { prepareMs: number; rankMs: number }>,
): Promise<IssueRun> {
  const selected = o.heldOutRepos ? selectHeldOutIssueCases(instances, o.cap) : selectIssueSet(instances, o.cap, o.mlCap ?? DEFAULT_ML_ISSUE_CAP);
  const halves = issueHalves(instances, o.tuneOn);
  const perRepo = new Map<string, number>();
  const cases = selected.filter((c) => {
    if (o.repo && o.repo !== c.repo && o.repo !== c.repo.split('/')[1]) return false;
    if (o.languages && !o.languages.includes(issueLanguage(c.repo))) return false;
    if (o.half && (halves.get(c.instance_id) ?? 'holdout') !== o.half) return false;
    const n = perRepo.get(c.repo) ?? 0;
    if (o.limit !== undefined && n >= o.limit) return false;
    perRepo.set(c.repo, n + 1);
    return true;
  });
  const notices: string[] = [];
  const repos = [...new Set(cases.map((c) => c.repo))];
  console.error(`[eval] issues: ${cases.length} cases (${repos.map((r) => `${r.split('/')[1]}:${cases.filter((c) => c.repo === r).length}`).join(' ')}), cap ${o.cap} per SWE-bench repository, ${o.mlCap ?? DEFAULT_ML_ISSUE_CAP} per Multi-SWE-bench or SWE-PolyBench one`);

  const results: IssueCaseResult[] = [];
  let checkoutMs = 0;
  let skipped = 0;
  let trees = 0;
  let done = 0;
  const noMirror = new Set<string>();
  for (const c of cases) {
    const short = c.repo.split('/')[1] ?? c.repo;
    const answers = goldFiles(c.patch);
    if (answers.length === 0) {
      notices.push(`${c.instance_id}: no gold source file (patch edits only tests, docs or non-code files), skipped`);
      skipped++;
      continue;
    }
    if (noMirror.has(c.repo)) {
      skipped++;
      continue;
    }
    const tc = performance.now();
    let treeDir: string;
    let files: string[];
    try {
      const cached = existsSync(treeDirFor(short, c.base_commit));
      const gitDir = cached ? undefined : findMirror(c.repo);
      if (!cached && !gitDir) {
        noMirror.add(c.repo);
        const n = cases.filter((x) => x.repo === c.repo).length;
        notices.push(`${c.repo}: no mirror found, its ${n} case(s) skipped`);
        console.error(`[eval] issues: no mirror of ${c.repo}; its ${n} case(s) are skipped`);
        skipped++;
        continue;
      }
      treeDir = materialise(short, c.base_commit, gitDir);
      files = listCandidates(treeDir, o.includeGenerated);
    } catch (err) {
      if (err instanceof Error && err.message.includes('CODERAG_EVAL_MIRRORS')) throw err;
      notices.push(`${c.instance_id}: ${err instanceof Error ? err.message : String(err)}`);
      skipped++;
      continue;
    }
    checkoutMs += performance.now() - tc;
    trees++;
    const fileSet = new Set(files);
    const missing = answers.filter((f) => !fileSet.has(f));
    if (missing.length) console.error(`[eval] ${c.instance_id}: gold file(s) not among candidates: ${missing.join(', ')}`);
    const gold = goldFunctions(c.patch, (p) => {
      const full = join(treeDir, p);
      return existsSync(full) ? readFileSync(full, 'utf8') : undefined;
    });
    const q: RankQuery = { query: c.problem_statement, keywords: keywordTerms(c.problem_statement) };
    // The base commit is before the fix: its history holds nothing of the fix.
    const history = o.history === false ? undefined : treeHistory(findMirror, c.repo, c.base_commit);
    for (const ranker of rankers) {
      const tm = timing.get(ranker.name);
      let t = performance.now();
      const prepared = await ranker.prepare(treeDir, files, undefined, history);
      if (tm) tm.prepareMs += performance.now() - t;
      t = performance.now();
      let ranked: string[];
      let symbols: RankedSymbol[] | undefined;
      if (hasSymbols(ranker)) {
        const r = await ranker.rankWithSymbols(prepared, q, o.k);
        ranked = r.files;
        symbols = r.symbols;
      } else ranked = await ranker.rank(prepared, q, o.k);
      if (tm) tm.rankMs += performance.now() - t;
      results.push({
        set: o.heldOutRepos ? 'heldout-issues' : 'issues',
        ranker: ranker.name,
        repo: short,
        language: issueLanguage(c.repo),
        half: halves.get(c.instance_id) ?? 'holdout',
        commit: c.instance_id,
        base_commit: c.base_commit,
        answers,
        ...caseMetrics(ranked, answers),
        acc1: accAtK(ranked, answers, 1),
        acc5: accAtK(ranked, answers, 5),
        acc10: accAtK(ranked, answers, 10),
        gold_functions: gold.map((g) => `${g.file}:${g.qualname}@${g.line}`),
        ...(symbols && gold.length ? { fn: functionMetrics(symbols, gold) } : {}),
        top10: ranked.slice(0, 10),
        ...(symbols ? { top10_symbols: symbols.slice(0, 10).map((s) => `${s.file}:${s.ast_path.replace(/-/g, '.')}@${s.start_line}`) } : {}),
      });
    }
    done++;
    if (process.stderr.isTTY) process.stderr.write(`\r[eval] issues: ${done}/${cases.length} cases`);
    else if (done % 10 === 0) console.error(`[eval] issues: ${done}/${cases.length} cases`);
  }
  if (process.stderr.isTTY) process.stderr.write('\n');
  return { results, checkoutMs, skipped, trees, notices };
}

// ---------------------------------------------------------------------------------------------------------------
// Report

export interface IssueRow {
  group: string;
  ranker: string;
  cases: number;
  acc1: number;
  acc5: number;
  acc10: number;
  r1: number;
  mrr: number;
  /** Cases with gold functions, for rankers that return symbols. */
  fnCases: number;
  fnAcc1: number;
  fnAcc5: number;
  fnAcc10: number;
}

function mean(list: readonly number[]): number {
  return list.length ? list.reduce((s, x) => s + x, 0) / list.length : 0;
}

/** Rows per repository, per half and overall, for each ranker. */
export function issueRows(rankers: readonly string[], results: readonly IssueCaseResult[]): IssueRow[] {
  const rows: IssueRow[] = [];
  const repos = [...new Set(results.map((r) => r.repo))];
  const languages = [...new Set(results.map((r) => r.language))];
  type Group = [string, (r: IssueCaseResult) => boolean];
  // With more than one language: each language, and each language's halves (a tuning rule holds per language too).
  const perLanguage: Group[] =
    languages.length > 1
      ? languages.flatMap((l): Group[] => [
          [`lang: ${l}`, (r) => r.language === l],
          [`lang: ${l}, tune`, (r) => r.language === l && r.half === 'tune'],
          [`lang: ${l}, held out`, (r) => r.language === l && r.half === 'holdout'],
        ])
      : [];
  const groups: Group[] = [
    ...repos.map((repo): Group => [repo, (r) => r.repo === repo]),
    ...perLanguage,
    ['half: tune', (r) => r.half === 'tune'],
    ['half: held out', (r) => r.half === 'holdout'],
    // SWE-bench Lite keeps only fixes that edit one file, so its published Acc@k are read on such cases; a fix of
    // seven files is rarely all in the top five, whatever the ranker.
    ['tune, one gold file', (r) => r.half === 'tune' && r.answers.length === 1],
    ['held out, one gold file', (r) => r.half === 'holdout' && r.answers.length === 1],
    ['overall', () => true],
  ];
  for (const [group, pick] of groups) {
    for (const ranker of rankers) {
      const list = results.filter((r) => r.ranker === ranker && pick(r));
      if (!list.length) continue;
      const fn = list.flatMap((r) => (r.fn ? [r.fn] : []));
      rows.push({
        group,
        ranker,
        cases: list.length,
        acc1: mean(list.map((r) => r.acc1)),
        acc5: mean(list.map((r) => r.acc5)),
        acc10: mean(list.map((r) => r.acc10)),
        r1: mean(list.map((r) => r.r1)),
        mrr: mean(list.map((r) => r.rr)),
        fnCases: fn.length,
        fnAcc1: mean(fn.map((f) => f.fnAcc1)),
        fnAcc5: mean(fn.map((f) => f.fnAcc5)),
        fnAcc10: mean(fn.map((f) => f.fnAcc10)),
      });
    }
  }
  return rows;
}

export function issueTable(rows: readonly IssueRow[]): string {
  const f = (x: number): string => x.toFixed(3);
  const head = ['group', 'ranker', 'cases', 'Acc@1', 'Acc@5', 'Acc@10', 'R@1', 'MRR', 'fn cases', 'fn Acc@1', 'fn Acc@5', 'fn Acc@10'];
  const body = rows.map((r) => [
    r.group, r.ranker, String(r.cases), f(r.acc1), f(r.acc5), f(r.acc10), f(r.r1), f(r.mrr),
    r.fnCases ? String(r.fnCases) : '-', r.fnCases ? f(r.fnAcc1) : '-', r.fnCases ? f(r.fnAcc5) : '-', r.fnCases ? f(r.fnAcc10) : '-',
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i < 2 ? c.padEnd(w[i] ?? 0) : c.padStart(w[i] ?? 0))).join('  ');
  return [line(head), w.map((n) => '-'.repeat(n)).join('  '), ...body.map(line)].join('\n');
}

/**
 * File and function level side by side, as Markdown: per language and its halves, per half and overall (the rows
 * of issueRows that are not repositories), one column per ranker: Acc@1 / Acc@5 / Acc@10 of files, then of
 * definitions (`fn`, over the cases with gold definitions, their count in parentheses; no such column for a ranker
 * that returns files only).
 */
export function issueLevelsTable(rows: readonly IssueRow[]): string {
  const f = (x: number): string => x.toFixed(3).replace(/^0\./, '.');
  const rankers = [...new Set(rows.map((r) => r.ranker))];
  const groups = [...new Set(rows.map((r) => r.group))].filter((g) => g.startsWith('lang:') || g.startsWith('half:') || g === 'overall');
  const ranksDefs = new Set(rows.filter((r) => r.fnCases > 0).map((r) => r.ranker));
  const head = ['group', 'cases', ...rankers.flatMap((r) => (ranksDefs.has(r) ? [`${r} files`, `${r} fn (cases)`] : [`${r} files`]))];
  const body = groups.map((g) => {
    const mine = rankers.map((r) => rows.find((x) => x.group === g && x.ranker === r));
    const cases = mine.find((x) => x)?.cases ?? 0;
    return [
      g.replace(/^lang: /, '').replace(/^half: /, ''),
      String(cases),
      ...mine.flatMap((x, k) => [
        x ? `${f(x.acc1)} / ${f(x.acc5)} / ${f(x.acc10)}` : '',
        ...(ranksDefs.has(rankers[k] as string) ? [x && x.fnCases ? `${f(x.fnAcc1)} / ${f(x.fnAcc5)} / ${f(x.fnAcc10)} (${x.fnCases})` : '-'] : []),
      ]),
    ];
  });
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...body.map(line)].join('\n');
}
