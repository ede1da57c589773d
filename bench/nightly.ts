/**
 * Nightly re-indexing of a git repository, offline: what a CI job pays when the repository barely changed.
 * A corpus of real files (bench/lib/corpus.ts) is committed to a git repository, then indexed in four cases,
 * each in a fresh process from the compiled build, each against the same previous index (the cold run's):
 *   cold       no previous index
 *   unchanged  the same tree again (every file recognised by mtime and size, none read)
 *   clone      a fresh `git clone` with new mtimes (every file recognised by its git blob id, none read)
 *   commit     a commit that changes 1% of the files, deletes a few and renames a few
 * and reports wall time (also as a share of the cold run's), files read and parsed, entries reused by each
 * identity, and peak RSS. Each case is also run as the whole command a CI job runs, `coderag index` from spawn
 * to exit (module loading, threads, the index, its state, its search pack and the run reports), against the
 * whole command's own cold run; the targets apply to those: unchanged ≤ 10% of cold, clone ≤ 15%, commit ≤ 20%.
 * Last, what the history field costs: the same files in a repository with 5,000 commits of history (the most a
 * run reads by default), indexed cold by the whole command with history and with `--no-history`, alternating;
 * the target is ≤ 15% more with it.
 *
 *   node --import tsx bench/nightly.ts [--quick]      (after npm run build)
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { COMMAND, isMain, REPO_ROOT, runJsonChild } from './lib/child.js';
import { buildCorpus, warmPageCache, WORK_DIR } from './lib/corpus.js';
import { Figures, renderTable, type SectionResult } from './lib/figures.js';
import { offlineTimeoutMs } from './lib/offlineRuns.js';
import { median, round } from './lib/stats.js';
import { timeCommand, type CommandRun } from './lib/wholeCommand.js';

export interface NightlyBenchOptions {
  files: number;
  /** Measured repetitions of each case. */
  reps: number;
  /** Share of the files the commit changes, and how many it deletes and renames. */
  changedShare: number;
  deletions: number;
  renames: number;
  /** Commits of the history case's repository. */
  historyCommits: number;
  log?: (line: string) => void;
}

export const NIGHTLY_FULL: NightlyBenchOptions = { files: 5000, reps: 3, changedShare: 0.01, deletions: 5, renames: 5, historyCommits: 5000 };
export const NIGHTLY_QUICK: NightlyBenchOptions = { files: 5000, reps: 1, changedShare: 0.01, deletions: 5, renames: 5, historyCommits: 5000 };

const TARGETS = { unchanged: 0.1, clone: 0.15, commit: 0.2 } as const;
/** Indexing with history may cost this much more than without. */
const HISTORY_TARGET = 1.15;
type Case = 'cold' | keyof typeof TARGETS;

interface ReuseFigures {
  byMtime: number;
  byBlob: number;
  byHash: number;
  hashed: number;
  reused: number;
  extracted: number;
  parsed: number;
}

interface NightlyRun {
  ms: number;
  /** CPU time of the whole process, threads included (process start and module loading too). */
  cpuMs: number;
  maxRssMb: number;
  files: number;
  reuse: ReuseFigures;
}

function git(cwd: string, ...args: string[]): string {
  return gitWith({ cwd }, ...args);
}

function gitWith(options: { cwd: string; input?: string; env?: NodeJS.ProcessEnv }, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@coderag.invalid', '-c', 'init.defaultBranch=main', ...args], {
    cwd: options.cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    ...(options.input !== undefined ? { input: options.input } : {}),
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
}

function filesUnder(root: string, dir = ''): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    if (name === '.git') return [];
    const relative = dir ? `${dir}/${name}` : name;
    return statSync(path.join(root, relative)).isDirectory() ? filesUnder(root, relative) : [relative];
  });
}

/** The corpus as a git repository with one commit, every file dated a day back (an older checkout). */
function buildRepository(files: number, root: string): void {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(path.dirname(root), { recursive: true });
  cpSync(buildCorpus(files), root, { recursive: true });
  rmSync(path.join(root, '.complete'), { force: true });
  const then = new Date(Date.now() - 86_400_000);
  for (const file of filesUnder(root)) utimesSync(path.join(root, file), then, then);
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'corpus');
}

/** Changes `share` of the files (a function appended), deletes and renames a few, and commits. */
function commitChanges(root: string, options: NightlyBenchOptions): { changed: number; deleted: number; renamed: number } {
  const files = filesUnder(root).sort();
  const step = Math.max(1, Math.round(1 / options.changedShare));
  let changed = 0;
  for (let i = 0; i < files.length; i += step) {
    appendFileSync(path.join(root, files[i] as string), `\nfunction nightlyChange${i}() {\n  return ${i};\n}\n`);
    changed++;
  }
  const rest = files.filter((_, i) => i % step !== 0);
  const deleted = rest.slice(0, options.deletions);
  const renamed = rest.slice(options.deletions, options.deletions + options.renames);
  for (const file of deleted) git(root, 'rm', '-q', file);
  for (const file of renamed) {
    const ext = path.posix.extname(file);
    git(root, 'mv', file, `${file.slice(0, -ext.length || undefined)}_renamed${ext}`);
  }
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'nightly change');
  return { changed, deleted: deleted.length, renamed: renamed.length };
}

const DAY_SECONDS = 86_400;
const SUBJECT_VERBS = ['Fix', 'Handle', 'Refactor', 'Speed up', 'Document', 'Simplify', 'Support', 'Validate', 'Clean up', 'Test'];
const SUBJECT_WHATS = ['empty input', 'a missing option', 'unicode names', 'large files', 'the error message', 'nested values', 'the default', 'a race on close', 'trailing slashes', 'old Node versions'];

/**
 * The corpus in a git repository with a history: an import two years back, then `commits` commits each editing
 * one to five files (a subject naming what and where), a day or so apart, and a last commit restoring every file
 * the history edited, so the tree is the corpus again. Written with `git fast-import` (seconds, where a commit
 * at a time would take minutes); the history's file contents are placeholders, as `git log --name-status` reads
 * only which paths changed.
 */
function buildHistoryRepository(files: number, root: string, commits: number): void {
  buildRepository(files, root);
  const start = Math.floor(Date.now() / 1000) - 2 * 365 * DAY_SECONDS;
  const date = `${start} +0000`;
  gitWith({ cwd: root, env: { GIT_COMMITTER_DATE: date } }, 'commit', '-q', '--amend', `--date=${date}`, '-m', 'Import the sources');
  // Each file's mode and blob as imported, to restore it by.
  const blobs = new Map<string, string>();
  for (const line of git(root, 'ls-tree', '-r', 'HEAD').split('\n')) {
    const match = /^(\d+) blob ([0-9a-f]+)\t(.+)$/.exec(line);
    if (match) blobs.set(match[3] as string, `${match[1]} ${match[2]}`);
  }
  const paths = [...blobs.keys()].sort();
  // A fixed sequence (xorshift32), so every run builds the same history.
  let seed = 2_463_534_242;
  const next = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const stream: string[] = [];
  const touched = new Set<string>();
  const step = Math.floor((2 * 365 * DAY_SECONDS) / (commits + 1));
  for (let c = 1; c <= commits; c++) {
    const edits = new Set(Array.from({ length: 1 + next(5) }, () => paths[next(paths.length)] as string));
    const first = [...edits][0] as string;
    const subject = `${SUBJECT_VERBS[next(SUBJECT_VERBS.length)]} ${SUBJECT_WHATS[next(SUBJECT_WHATS.length)]} in ${path.posix.basename(first)}`;
    stream.push(`commit refs/heads/main`, `committer bench <bench@coderag.invalid> ${start + c * step} +0000`, `data ${Buffer.byteLength(subject)}`, subject);
    if (c === 1) stream.push('from refs/heads/main^0');
    for (const file of edits) {
      const body = `revision ${c}\n`;
      stream.push(`M ${blobs.get(file)?.split(' ')[0]} inline ${file}`, `data ${Buffer.byteLength(body)}`, body.slice(0, -1));
      touched.add(file);
    }
    stream.push('');
  }
  const restore = 'Restore the sources';
  stream.push(`commit refs/heads/main`, `committer bench <bench@coderag.invalid> ${start + (commits + 1) * step} +0000`, `data ${restore.length}`, restore);
  for (const file of [...touched].sort()) stream.push(`M ${blobs.get(file)} ${file}`);
  stream.push('', 'done', '');
  gitWith({ cwd: root, input: stream.join('\n') }, 'fast-import', '--quiet', '--done');
  git(root, 'reset', '-q', '--hard', 'main');
}

/**
 * The whole command, cold, with history and with `--no-history`, alternating: what reading the history costs.
 * Runs in its own repository (buildHistoryRepository), after the reuse cases.
 */
async function historyCost(options: NightlyBenchOptions, work: string, config: string): Promise<{ withHistory: CommandRun[]; without: CommandRun[]; commits: number }> {
  const log = options.log ?? (() => {});
  const repo = path.join(work, 'history', 'nightly');
  buildHistoryRepository(options.files, repo, options.historyCommits);
  warmPageCache(repo);
  const commits = Number(git(repo, 'rev-list', '--count', 'HEAD').trim());
  const withHistory: CommandRun[] = [];
  const without: CommandRun[] = [];
  const out = path.join(work, 'out-history');
  for (let rep = 0; rep < options.reps; rep++) {
    for (const history of rep % 2 ? [false, true] : [true, false]) {
      rmSync(out, { recursive: true, force: true });
      const result = await runCommand(repo, out, config, options.files, history ? [] : ['--no-history']);
      (history ? withHistory : without).push(result);
      log(`nightly history ${history ? 'on' : 'off'} #${rep + 1}, whole command: ${(result.ms / 1000).toFixed(2)} s, CPU ${((result.cpuMs ?? NaN) / 1000).toFixed(2)} s`);
    }
  }
  return { withHistory, without, commits };
}

function run(repo: string, out: string, files: number): Promise<NightlyRun> {
  return runJsonChild<NightlyRun>('nightlyWorker.ts', [repo, out], { timeoutMs: offlineTimeoutMs(files) });
}

/** What nightlyWorker.ts configures, as a config file for the CLI: index everything git lists. */
const COMMAND_CONFIG = 'file_analysis:\n  skip_directories: [.git]\n  skip_generated: false\n';

/** `coderag index <repo> --out <out>` from the build, timed from spawn to exit. */
function runCommand(repo: string, out: string, config: string, files: number, extra: readonly string[] = []): Promise<CommandRun> {
  return timeCommand(process.execPath, [COMMAND, 'index', repo, '--out', out, '--config', config, '--quiet', ...extra], {
    cwd: REPO_ROOT,
    timeoutMs: offlineTimeoutMs(files),
  });
}

/**
 * A copy of an output folder with its dates to the nanosecond, as a cache restore keeps them: a search pack
 * answers for its index's exact modification time (cpSync's preserveTimestamps rounds it to the millisecond).
 */
function copyOut(from: string, to: string): string {
  rmSync(to, { recursive: true, force: true });
  execFileSync('cp', ['-a', from, to]);
  return to;
}

export async function benchNightly(options: NightlyBenchOptions): Promise<SectionResult> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const work = path.join(WORK_DIR, `nightly-${options.files}`);
  // The index file is named after the folder: the clone keeps the name, as a CI checkout does.
  const repo = path.join(work, 'repo', 'nightly');
  const clone = path.join(work, 'clone', 'nightly');
  buildRepository(options.files, repo);
  rmSync(path.dirname(clone), { recursive: true, force: true });
  git(work, 'clone', '-q', repo, clone);
  warmPageCache(repo);
  warmPageCache(clone);

  const config = path.join(work, 'config.yaml');
  writeFileSync(config, COMMAND_CONFIG);

  const runs: Record<Case, NightlyRun[]> = { cold: [], unchanged: [], clone: [], commit: [] };
  const commands: Record<Case, CommandRun[]> = { cold: [], unchanged: [], clone: [], commit: [] };
  const record = (which: Case, result: NightlyRun, rep: number) => {
    runs[which].push(result);
    const r = result.reuse;
    log(`nightly ${which} #${rep + 1}: ${(result.ms / 1000).toFixed(2)} s, read ${r.hashed + r.extracted}, parsed ${r.parsed}, reused ${r.reused} (mtime ${r.byMtime}, blob ${r.byBlob}, hash ${r.byHash}), ${result.maxRssMb} MB`);
  };
  const recordCommand = (which: Case, result: CommandRun, rep: number) => {
    commands[which].push(result);
    log(`nightly ${which} #${rep + 1}, whole command: ${(result.ms / 1000).toFixed(2)} s, CPU ${((result.cpuMs ?? NaN) / 1000).toFixed(2)} s, ${result.maxRssMb} MB`);
  };
  // Each case starts from a copy of its own kind's cold output: the command's holds search packs and reports too.
  const base = path.join(work, 'out-base');
  const baseCommand = path.join(work, 'out-base-command');
  const eachCase = async (which: Exclude<Case, 'cold'>, from: string, rep: number) => {
    record(which, await run(from, copyOut(base, path.join(work, `out-${which}`)), options.files), rep);
    recordCommand(which, await runCommand(from, copyOut(baseCommand, path.join(work, `out-${which}-command`)), config, options.files), rep);
  };
  for (let rep = 0; rep < options.reps; rep++) {
    rmSync(base, { recursive: true, force: true });
    rmSync(baseCommand, { recursive: true, force: true });
    record('cold', await run(repo, base, options.files), rep);
    recordCommand('cold', await runCommand(repo, baseCommand, config, options.files), rep);
    await eachCase('unchanged', repo, rep);
    await eachCase('clone', clone, rep);
  }
  const change = commitChanges(repo, options);
  warmPageCache(repo);
  for (let rep = 0; rep < options.reps; rep++) await eachCase('commit', repo, rep);
  const history = await historyCost(options, work, config);

  const f = new Figures('nightly');
  const findings: string[] = [];
  const coldMs = median(runs.cold.map((r) => r.ms));
  const coldCpuMs = median(runs.cold.map((r) => r.cpuMs));
  f.add('files', runs.cold[0]?.files ?? options.files, 'files', `a git repository of real files; the commit changes ${change.changed}, deletes ${change.deleted}, renames ${change.renamed}`);
  const coldCommandMs = median(commands.cold.map((r) => r.ms));
  const coldCommandCpuMs = median(commands.cold.map((r) => r.cpuMs ?? NaN));
  for (const which of ['cold', 'unchanged', 'clone', 'commit'] as const) {
    const list = runs[which];
    const ms = median(list.map((r) => r.ms));
    const last = list[list.length - 1] as NightlyRun;
    const r = last.reuse;
    const whole = commands[which];
    const commandMs = median(whole.map((x) => x.ms));
    const commandCpuMs = median(whole.map((x) => x.cpuMs ?? NaN));
    f.add(`${which}: whole command, wall time`, round(commandMs / 1000, 2), 's', `coderag index, spawn to exit, search pack and reports included; median of ${whole.length}`);
    if (which !== 'cold') {
      const share = commandMs / coldCommandMs;
      const target = TARGETS[which];
      f.add(`${which}: whole command, share of cold`, round(share * 100, 1), '%', `target ≤ ${target * 100}%`);
      if (share > target) findings.push(`The ${which} case, as a whole command, took ${(share * 100).toFixed(1)}% of the cold command's wall time, above its ${target * 100}% target.`);
    }
    f.add(`${which}: whole command, CPU time`, round(commandCpuMs / 1000, 2), 's', which === 'cold' ? 'every thread, GNU time' : `${((commandCpuMs / coldCommandCpuMs) * 100).toFixed(1)}% of the cold command's`);
    f.add(`${which}: whole command, peak RSS`, median(whole.map((x) => x.maxRssMb ?? NaN)), 'MB');
    f.add(`${which}: wall time`, round(ms / 1000, 2), 's', `in-process runIndex, no search pack; median of ${list.length}`);
    if (which !== 'cold') f.add(`${which}: share of cold`, round((ms / coldMs) * 100, 1), '%', 'in-process');
    const cpuMs = median(list.map((x) => x.cpuMs));
    f.add(`${which}: CPU time`, round(cpuMs / 1000, 2), 's', which === 'cold' ? 'every thread' : `${((cpuMs / coldCpuMs) * 100).toFixed(1)}% of the cold run's`);
    f.add(`${which}: files read`, r.hashed + r.extracted, 'files', `${r.hashed} to hash, ${r.extracted} to extract`);
    f.add(`${which}: files parsed`, r.parsed, 'files');
    f.add(`${which}: entries reused`, r.reused, 'files', `${r.byMtime} by mtime and size, ${r.byBlob} by git blob, ${r.byHash} by content hash`);
    f.add(`${which}: peak RSS`, median(list.map((x) => x.maxRssMb)), 'MB');
  }
  const historyMs = median(history.withHistory.map((x) => x.ms));
  const noHistoryMs = median(history.without.map((x) => x.ms));
  const historyRatio = historyMs / noHistoryMs;
  f.add('history: whole command, wall time', round(historyMs / 1000, 2), 's', `cold, a repository of the same files with ${history.commits} commits; median of ${history.withHistory.length}`);
  f.add('history: whole command with --no-history', round(noHistoryMs / 1000, 2), 's', `median of ${history.without.length}, alternating`);
  f.add('history: cost', round((historyRatio - 1) * 100, 1), '%', `with history against without; target ≤ ${Math.round((HISTORY_TARGET - 1) * 100)}%`);
  if (historyRatio > HISTORY_TARGET) findings.push(`Indexing with history took ${((historyRatio - 1) * 100).toFixed(1)}% longer than without, above its ${Math.round((HISTORY_TARGET - 1) * 100)}% target.`);
  return {
    setup: { files: options.files, reps: options.reps, commit: change, targets: TARGETS, history_commits: history.commits, history_target: HISTORY_TARGET, note: 'each run a fresh process running runIndex from dist/ (walk to written index), and the whole coderag index command (spawn to exit, GNU time for CPU and peak RSS)' },
    figures: f.list,
    runs: { ...runs, whole_command: commands, history: { with: history.withHistory, without: history.without } },
    findings,
    seconds: round((performance.now() - started) / 1000, 1),
  };
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const result = await benchNightly({ ...(quick ? NIGHTLY_QUICK : NIGHTLY_FULL), log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(`${renderTable(result.figures)}\n\n${result.findings.join('\n')}\n`);
}
