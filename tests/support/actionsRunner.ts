/**
 * Runs a GitHub Actions workflow's jobs on this machine, as far as a test needs to see what a night does.
 *
 * Jobs run in order (a job after those it needs), matrices expanded, each job instance on its own "runner": a
 * temporary folder with a workspace named like GitHub's (`work/<repo>/<repo>`) and its own RUNNER_TEMP. Every
 * `run:` step runs for real in bash, as GitHub runs `shell: bash` (`bash --noprofile --norc -eo pipefail`),
 * with `${{ }}` expressions substituted and GitHub's variables set. `uses:` steps are replaced by their effect
 * on files, which is all a later step or job sees of them:
 *   actions/checkout            a git clone of the origin repository into the workspace
 *   actions/setup-node          nothing: this machine's node is already on the PATH
 *   actions/cache/restore, save copies of the named paths into and out of a cache store that outlives a run,
 *                               restored by exact key, else by the newest key starting with a restore key
 *   actions/upload-artifact,    copies of the matched files into and out of the run's artifact store
 *   actions/download-artifact
 * Inputs these stand-ins do not know are refused, so a misspelt one fails the test. Conditions (`if:`) are
 * those a night needs: success(), always(), failure(), !cancelled(); nothing is ever cancelled here.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fg from 'fast-glob';
import { makeTempDir } from './tempRepo.js';

export interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, unknown>;
  with?: Record<string, unknown>;
}
export interface Job {
  name?: string;
  needs?: string | string[];
  if?: string;
  env?: Record<string, unknown>;
  strategy?: { matrix?: Record<string, unknown> };
  steps: Step[];
}
export interface Workflow {
  env?: Record<string, unknown>;
  defaults?: { run?: { shell?: string } };
  jobs: Record<string, Job>;
}

export type Outcome = 'success' | 'failure' | 'skipped';

export interface StepResult {
  name: string;
  outcome: Outcome;
  exitCode?: number;
  stdout: string;
  stderr: string;
  /** `::warning::` and `::error::` lines the step printed. */
  annotations: string[];
  /** For cache and artifact steps: what they stored or brought back. */
  cache?: { key: string; restoredKey?: string | null; saved?: boolean };
  /** Paths a cache save or an upload named that did not exist. */
  missing: string[];
  durationMs: number;
}

export interface JobResult {
  job: string;
  matrix: Record<string, unknown>;
  outcome: Outcome;
  steps: StepResult[];
  workspace: string;
  runnerTemp: string;
}

/** What outlives a run (caches) and what one run shares between its jobs (artifacts). */
export interface Stores {
  /** Key -> the saved copies, the paths as the workflow wrote them (GitHub's cache version), and when saved. */
  caches: Map<string, { dir: string; version: string; order: number }>;
}

export interface RunOptions {
  /** The repository actions/checkout clones. Its folder name is the workspace's, as on GitHub. */
  origin: string;
  runId: number;
  stores: Stores;
  /** The runner's own environment (PATH and the like), under the workflow's; this process's when not given. */
  env?: NodeJS.ProcessEnv;
  /** Steps that set up the machine rather than the job (an install): run once for all the jobs of every run. */
  oncePerMachine?: (step: Step) => boolean;
  /** Ran once already: shared between runs by passing the same set. */
  doneOnMachine?: Set<string>;
  timeoutMs?: number;
}

export interface RunResult {
  jobs: JobResult[];
  /** Artifact name -> folder holding its files. */
  artifacts: Map<string, string>;
}

export function newStores(): Stores {
  return { caches: new Map() };
}

const KNOWN_INPUTS: Record<string, string[]> = {
  'actions/checkout': ['fetch-depth'],
  'actions/setup-node': ['node-version'],
  'actions/cache/restore': ['path', 'key', 'restore-keys', 'fail-on-cache-miss'],
  'actions/cache/save': ['path', 'key'],
  'actions/upload-artifact': ['name', 'path', 'if-no-files-found', 'retention-days', 'include-hidden-files', 'overwrite'],
  'actions/download-artifact': ['name', 'pattern', 'path', 'merge-multiple'],
};

type Contexts = Record<string, Record<string, unknown>>;

/** `${{ a.b }}` replaced by the value of `a.b`; anything but a context path is refused. */
export function substitute(text: string, contexts: Contexts): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    const m = /^([a-z_]+)\.([A-Za-z0-9_-]+)$/.exec(expr);
    if (!m) throw new Error(`the test runner substitutes context values only, not \${{ ${expr} }}`);
    const value = contexts[m[1] as string]?.[m[2] as string];
    return value === undefined ? '' : String(value);
  });
}

/** The conditions a night uses; `failed` is whether an earlier step (or a needed job) failed. */
export function condition(expr: string | undefined, failed: boolean): boolean {
  const bare = (expr ?? 'success()').replace(/^\$\{\{\s*(.*?)\s*\}\}$/, '$1').trim();
  switch (bare) {
    case 'success()':
      return !failed;
    case 'failure()':
      return failed;
    case 'always()':
    case '!cancelled()':
      return true;
    default:
      throw new Error(`the test runner does not know the condition "${expr}"`);
  }
}

function lines(value: unknown): string[] {
  return String(value ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

function matrixOf(job: Job): Array<Record<string, unknown>> {
  const matrix = job.strategy?.matrix;
  if (!matrix) return [{}];
  let combos: Array<Record<string, unknown>> = [{}];
  for (const [key, values] of Object.entries(matrix)) {
    if (!Array.isArray(values)) throw new Error(`the test runner expands list-valued matrix keys only, not ${key}`);
    combos = combos.flatMap((c) => values.map((v: unknown) => ({ ...c, [key]: v })));
  }
  return combos;
}

function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}

/** Files under `dir`, relative, hidden ones (a segment starting with '.') left out unless asked for. */
function filesUnder(dir: string, hidden: boolean): string[] {
  return fg.sync('**/*', { cwd: dir, dot: hidden, onlyFiles: true }).sort();
}

function copyFiles(files: string[], fromRoot: string, toRoot: string): void {
  for (const file of files) {
    mkdirSync(path.dirname(path.join(toRoot, file)), { recursive: true });
    cpSync(path.join(fromRoot, file), path.join(toRoot, file));
  }
}

export async function runWorkflow(workflow: Workflow, options: RunOptions): Promise<RunResult> {
  if (workflow.defaults?.run?.shell !== 'bash') throw new Error('the test runner runs `shell: bash` workflows only');
  const repoName = path.basename(options.origin);
  const artifactStore = makeTempDir('coderag-artifacts-');
  const artifacts = new Map<string, string>();
  const done = options.doneOnMachine ?? new Set<string>();
  const results: JobResult[] = [];
  const jobOutcome = new Map<string, Outcome>();

  for (const [jobId, job] of Object.entries(workflow.jobs)) {
    const needs = job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs];
    for (const need of needs) if (!jobOutcome.has(need)) throw new Error(`job ${jobId} needs ${need}, which is not above it`);
    const needFailed = needs.some((n) => jobOutcome.get(n) !== 'success');
    const instances = matrixOf(job);
    const outcomes: Outcome[] = [];
    for (const matrix of instances) {
      const runner = makeTempDir('coderag-runner-');
      const workspace = path.join(runner, 'work', repoName, repoName);
      const runnerTemp = path.join(runner, 'work', '_temp');
      mkdirSync(path.dirname(workspace), { recursive: true });
      mkdirSync(runnerTemp, { recursive: true });
      const result: JobResult = { job: jobId, matrix, outcome: 'success', steps: [], workspace, runnerTemp };
      results.push(result);
      if (!condition(job.if, needFailed)) {
        result.outcome = 'skipped';
        outcomes.push('skipped');
        continue;
      }
      const contexts: Contexts = {
        github: { run_id: options.runId, run_attempt: 1, workspace },
        runner: { temp: runnerTemp, os: 'Linux' },
        matrix,
        secrets: {},
        env: {},
      };
      const envOf = (values: Record<string, unknown> | undefined): Record<string, string> =>
        Object.fromEntries(Object.entries(values ?? {}).map(([k, v]) => [k, substitute(String(v), contexts)]));
      contexts.env = envOf(workflow.env);
      const jobEnv = { ...contexts.env, ...envOf(job.env) };
      contexts.env = jobEnv;
      const outputFile = path.join(runnerTemp, '_github_output');
      const summaryFile = path.join(runnerTemp, '_step_summary');
      let failed = false;

      for (const [index, step] of job.steps.entries()) {
        const name = step.name ?? step.uses ?? step.run?.split('\n')[0] ?? `step ${index + 1}`;
        const stepResult: StepResult = { name, outcome: 'success', stdout: '', stderr: '', annotations: [], missing: [], durationMs: 0 };
        const started = Date.now();
        result.steps.push(stepResult);
        if (!condition(step.if, failed)) {
          stepResult.outcome = 'skipped';
          continue;
        }
        const stepEnv = { ...jobEnv, ...envOf(step.env) };
        if (step.run !== undefined) {
          const once = options.oncePerMachine?.(step) ? `${step.run}` : null;
          if (once !== null && done.has(once)) {
            stepResult.stdout = '(ran on this machine already)';
            continue;
          }
          const script = path.join(runnerTemp, `_step_${index + 1}.sh`);
          writeFileSync(script, substitute(step.run, contexts));
          const env: NodeJS.ProcessEnv = {
            ...(options.env ?? process.env),
            CI: 'true',
            GITHUB_ACTIONS: 'true',
            GITHUB_WORKSPACE: workspace,
            GITHUB_RUN_ID: String(options.runId),
            GITHUB_OUTPUT: outputFile,
            GITHUB_STEP_SUMMARY: summaryFile,
            RUNNER_TEMP: runnerTemp,
            RUNNER_OS: 'Linux',
            ...stepEnv,
          };
          const ran = await runScript(script, workspace, env, options.timeoutMs ?? 60_000);
          stepResult.durationMs = Date.now() - started;
          Object.assign(stepResult, { exitCode: ran.code, stdout: ran.stdout, stderr: ran.stderr });
          stepResult.annotations = ran.stdout.split('\n').filter((l) => /^::(warning|error)/.test(l));
          if (ran.code !== 0) {
            stepResult.outcome = 'failure';
            failed = true;
          } else if (once !== null) done.add(once);
          continue;
        }
        const [action, version] = (step.uses ?? '').split('@');
        const known = KNOWN_INPUTS[action ?? ''];
        if (!known || version !== 'v4') throw new Error(`the test runner has no stand-in for ${step.uses}`);
        const inputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, substitute(String(v), contexts)]));
        for (const key of Object.keys(inputs)) if (!known.includes(key)) throw new Error(`${step.uses} has no input "${key}"`);
        try {
          // Every GitHub runner has the same paths; these runners do not, so a cache is told by its paths as written.
          const version = lines(step.with?.path).join('\n');
          useAction(action as string, inputs, { workspace, options, artifacts, artifactStore, stepResult, version });
        } catch (error) {
          stepResult.outcome = 'failure';
          stepResult.stderr = (error as Error).message;
          failed = true;
        }
      }
      result.outcome = failed ? 'failure' : 'success';
      outcomes.push(result.outcome);
    }
    jobOutcome.set(jobId, outcomes.includes('failure') ? 'failure' : outcomes.every((o) => o === 'skipped') ? 'skipped' : 'success');
  }
  return { jobs: results, artifacts };
}

interface ActionScope {
  workspace: string;
  options: RunOptions;
  artifacts: Map<string, string>;
  artifactStore: string;
  stepResult: StepResult;
  version: string;
}

function useAction(action: string, inputs: Record<string, string>, scope: ActionScope): void {
  const { workspace, options, stepResult } = scope;
  const absolute = (p: string) => path.resolve(workspace, p);
  const caches = options.stores.caches;
  switch (action) {
    case 'actions/checkout': {
      // As on GitHub: one commit deep unless fetch-depth says otherwise (0: all history). A file:// URL, since git
      // ignores --depth for a clone from a local path.
      const depth = Number(inputs['fetch-depth'] ?? '1');
      const deep = depth === 0 ? [] : ['--depth', String(depth)];
      stepResult.stdout = execFileSync('git', ['clone', '-q', ...deep, pathToFileURL(options.origin).href, workspace], { encoding: 'utf8' });
      return;
    }
    case 'actions/setup-node': {
      const wanted = Number.parseInt(inputs['node-version'] ?? '', 10);
      if (wanted !== Number.parseInt(process.versions.node, 10)) throw new Error(`setup-node asks for node ${inputs['node-version']}; this machine runs ${process.versions.node}`);
      return;
    }
    case 'actions/cache/restore': {
      const key = inputs.key as string;
      const paths = lines(inputs.path);
      let hit = caches.get(key) ? key : null;
      for (const prefix of lines(inputs['restore-keys'])) {
        if (hit) break;
        const newest = [...caches.entries()].filter(([k]) => k.startsWith(prefix)).sort((a, b) => b[1].order - a[1].order)[0];
        hit = newest?.[0] ?? null;
      }
      stepResult.cache = { key, restoredKey: hit };
      if (!hit && inputs['fail-on-cache-miss'] === 'true') throw new Error(`no cache for ${key}`);
      if (!hit) return;
      const entry = caches.get(hit)!;
      if (entry.version !== scope.version) return; // another set of paths: GitHub's cache version does not match
      for (const [i, p] of paths.map(absolute).entries()) {
        const saved = path.join(entry.dir, String(i));
        if (existsSync(saved)) cpSync(saved, p, { recursive: true });
      }
      return;
    }
    case 'actions/cache/save': {
      const key = inputs.key as string;
      const paths = lines(inputs.path).map(absolute);
      stepResult.cache = { key, saved: false };
      stepResult.missing = paths.filter((p) => !existsSync(p));
      if (caches.has(key) || stepResult.missing.length === paths.length) return; // GitHub warns and goes on
      const dir = makeTempDir('coderag-cache-entry-');
      for (const [i, p] of paths.entries()) if (existsSync(p)) cpSync(p, path.join(dir, String(i)), { recursive: true });
      caches.set(key, { dir, version: scope.version, order: caches.size });
      stepResult.cache.saved = true;
      return;
    }
    case 'actions/upload-artifact': {
      const name = inputs.name as string;
      if (scope.artifacts.has(name) && inputs.overwrite !== 'true') throw new Error(`an artifact named ${name} was uploaded already in this run`);
      const hidden = inputs['include-hidden-files'] === 'true';
      const dest = path.join(scope.artifactStore, name);
      let count = 0;
      for (const pattern of lines(inputs.path)) {
        const p = absolute(pattern);
        if (existsSync(p) && statSync(p).isDirectory()) {
          const files = filesUnder(p, hidden);
          copyFiles(files, p, dest);
          count += files.length;
          continue;
        }
        // A glob's files keep their paths below the folder before its first wildcard.
        const segments = p.split('/');
        const firstWild = segments.findIndex((s) => /[*?[{]/.test(s));
        const root = firstWild < 0 ? path.dirname(p) : segments.slice(0, firstWild).join('/');
        const files = fg.sync(path.relative(root, p), { cwd: root, dot: hidden, onlyFiles: true });
        if (files.length === 0) stepResult.missing.push(p);
        copyFiles(files, root, dest);
        count += files.length;
      }
      if (count === 0 && inputs['if-no-files-found'] === 'error') throw new Error(`no files were found with the provided path: ${inputs.path}`);
      if (count > 0) scope.artifacts.set(name, dest);
      return;
    }
    case 'actions/download-artifact': {
      const pattern = inputs.pattern ?? inputs.name ?? '*';
      const matcher = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
      const dest = absolute(inputs.path ?? '.');
      mkdirSync(dest, { recursive: true });
      for (const [name, dir] of scope.artifacts) {
        if (!matcher.test(name)) continue;
        const to = inputs['merge-multiple'] === 'true' ? dest : path.join(dest, name);
        copyFiles(filesUnder(dir, true), dir, to);
      }
      return;
    }
    default:
      throw new Error(`the test runner has no stand-in for ${action}`);
  }
}

/** The files of an artifact, relative to it. */
export function artifactFiles(result: RunResult, name: string): string[] {
  const dir = result.artifacts.get(name);
  return dir ? filesUnder(dir, true) : [];
}

/** The files a saved cache entry holds, each under the last folder name of the path it was saved from. */
export function cacheFiles(stores: Stores, key: string): string[] {
  const entry = stores.caches.get(key);
  if (!entry) return [];
  return lines(entry.version).flatMap((p, i) => {
    const dir = path.join(entry.dir, String(i));
    if (!existsSync(dir)) return [];
    return statSync(dir).isDirectory() ? filesUnder(dir, true).map((f) => path.posix.join(path.posix.basename(p), f)) : [path.posix.basename(p)];
  });
}

