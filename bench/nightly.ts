/**
 * Nightly re-indexing of a git repository, offline: what a CI job pays when the repository barely changed.
 * A corpus of real files (bench/lib/corpus.ts) is committed to a git repository, then indexed in four cases,
 * each in a fresh process from the compiled build, each against the same previous index (the cold run's):
 *   cold       no previous index
 *   unchanged  the same tree again (every file recognised by mtime and size, none read)
 *   clone      a fresh `git clone` with new mtimes (every file recognised by its git blob id, none read)
 *   commit     a commit that changes 1% of the files, deletes a few and renames a few
 * and reports wall time (also as a share of the cold run's), files read and parsed, entries reused by each
 * identity, and peak RSS. Targets: unchanged ≤ 10% of cold, clone ≤ 15%, commit ≤ 20%.
 *
 *   node --import tsx bench/nightly.ts [--quick]      (after npm run build)
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { isMain, runJsonChild } from './lib/child.js';
import { buildCorpus, warmPageCache, WORK_DIR } from './lib/corpus.js';
import { Figures, renderTable, type SectionResult } from './lib/figures.js';
import { offlineTimeoutMs } from './lib/offlineRuns.js';
import { median, round } from './lib/stats.js';

export interface NightlyBenchOptions {
  files: number;
  /** Measured repetitions of each case. */
  reps: number;
  /** Share of the files the commit changes, and how many it deletes and renames. */
  changedShare: number;
  deletions: number;
  renames: number;
  log?: (line: string) => void;
}

export const NIGHTLY_FULL: NightlyBenchOptions = { files: 5000, reps: 3, changedShare: 0.01, deletions: 5, renames: 5 };
export const NIGHTLY_QUICK: NightlyBenchOptions = { files: 5000, reps: 1, changedShare: 0.01, deletions: 5, renames: 5 };

const TARGETS = { unchanged: 0.1, clone: 0.15, commit: 0.2 } as const;
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
  return execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@coderag.invalid', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
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

function run(repo: string, out: string, files: number): Promise<NightlyRun> {
  return runJsonChild<NightlyRun>('nightlyWorker.ts', [repo, out], { timeoutMs: offlineTimeoutMs(files) });
}

function copyOut(from: string, to: string): string {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
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

  const runs: Record<Case, NightlyRun[]> = { cold: [], unchanged: [], clone: [], commit: [] };
  const record = (which: Case, result: NightlyRun, rep: number) => {
    runs[which].push(result);
    const r = result.reuse;
    log(`nightly ${which} #${rep + 1}: ${(result.ms / 1000).toFixed(2)} s, read ${r.hashed + r.extracted}, parsed ${r.parsed}, reused ${r.reused} (mtime ${r.byMtime}, blob ${r.byBlob}, hash ${r.byHash}), ${result.maxRssMb} MB`);
  };
  const base = path.join(work, 'out-base');
  for (let rep = 0; rep < options.reps; rep++) {
    rmSync(base, { recursive: true, force: true });
    record('cold', await run(repo, base, options.files), rep);
    record('unchanged', await run(repo, copyOut(base, path.join(work, 'out-unchanged')), options.files), rep);
    record('clone', await run(clone, copyOut(base, path.join(work, 'out-clone')), options.files), rep);
  }
  const change = commitChanges(repo, options);
  warmPageCache(repo);
  for (let rep = 0; rep < options.reps; rep++) {
    record('commit', await run(repo, copyOut(base, path.join(work, 'out-commit')), options.files), rep);
  }

  const f = new Figures('nightly');
  const findings: string[] = [];
  const coldMs = median(runs.cold.map((r) => r.ms));
  const coldCpuMs = median(runs.cold.map((r) => r.cpuMs));
  f.add('files', runs.cold[0]?.files ?? options.files, 'files', `a git repository of real files; the commit changes ${change.changed}, deletes ${change.deleted}, renames ${change.renamed}`);
  for (const which of ['cold', 'unchanged', 'clone', 'commit'] as const) {
    const list = runs[which];
    const ms = median(list.map((r) => r.ms));
    const last = list[list.length - 1] as NightlyRun;
    const r = last.reuse;
    f.add(`${which}: wall time`, round(ms / 1000, 2), 's', `median of ${list.length}`);
    if (which !== 'cold') {
      const share = ms / coldMs;
      const target = TARGETS[which];
      f.add(`${which}: share of cold`, round(share * 100, 1), '%', `target ≤ ${target * 100}%`);
      if (share > target) findings.push(`The ${which} case took ${(share * 100).toFixed(1)}% of the cold run's wall time, above its ${target * 100}% target.`);
    }
    const cpuMs = median(list.map((x) => x.cpuMs));
    f.add(`${which}: CPU time`, round(cpuMs / 1000, 2), 's', which === 'cold' ? 'every thread' : `${((cpuMs / coldCpuMs) * 100).toFixed(1)}% of the cold run's`);
    f.add(`${which}: files read`, r.hashed + r.extracted, 'files', `${r.hashed} to hash, ${r.extracted} to extract`);
    f.add(`${which}: files parsed`, r.parsed, 'files');
    f.add(`${which}: entries reused`, r.reused, 'files', `${r.byMtime} by mtime and size, ${r.byBlob} by git blob, ${r.byHash} by content hash`);
    f.add(`${which}: peak RSS`, median(list.map((x) => x.maxRssMb)), 'MB');
  }
  return {
    setup: { files: options.files, reps: options.reps, commit: change, targets: TARGETS, note: 'each run a fresh process running runIndex from dist/ (walk to written index)' },
    figures: f.list,
    runs,
    findings,
    seconds: round((performance.now() - started) / 1000, 1),
  };
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const result = await benchNightly({ ...(quick ? NIGHTLY_QUICK : NIGHTLY_FULL), log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(`${renderTable(result.figures)}\n\n${result.findings.join('\n')}\n`);
}
