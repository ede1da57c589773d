/**
 * Offline indexing against the bare tree-sitter parse of the same files. Each measurement is a fresh process
 * (bench/offlineWorker.ts), run in alternation (parse, pipeline, parse, pipeline, …) so the machine's noise
 * falls on both sides of each ratio; the figures are medians, the ratio is the median of per-pair ratios.
 *
 *   parse     single-threaded parse of pre-read files (reading and grammar loading excluded)
 *   pipeline  indexRepository from dist/: walk, classify, extract on worker threads, profile, relate, build
 *             (writing the JSON file excluded)
 *   command   the whole `coderag index` a user runs, from spawn to exit, into an empty folder: module loading,
 *             threads, the index, its reuse state, its search pack and the run reports (CPU and peak RSS by
 *             GNU time)
 *   repomix   `repomix --compress` on the same tree, the same way; installed in bench/.work/repomix (npm
 *             install --prefix, a pinned version), never a dependency of CodeRAG. When it cannot be installed
 *             the row is left out and a finding says why.
 *
 *   node --import tsx bench/offline.ts [--quick]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { COMMAND, isMain, REPO_ROOT } from './lib/child.js';
import { buildCorpus, warmPageCache, WORK_DIR } from './lib/corpus.js';
import { Figures, renderTable, type SectionResult } from './lib/figures.js';
import { filesPerSecond, mbPerSecond, offlineTimeoutMs, runOffline, type OfflineRun } from './lib/offlineRuns.js';
import { pipelineRegime, policyThresholds } from './lib/policy.js';
import { median, round, spread } from './lib/stats.js';
import { timeCommand, type CommandRun } from './lib/wholeCommand.js';

/** The repomix the offline section compares with, pinned so its figures compare across runs. */
const REPOMIX_VERSION = '1.14.0';
const REPOMIX_DIR = path.join(WORK_DIR, 'repomix');
const REPOMIX_BIN = path.join(REPOMIX_DIR, 'node_modules', 'repomix', 'bin', 'repomix.cjs');

/** repomix installed in the bench's own folder; the reason when it cannot be. */
function installRepomix(log: (line: string) => void): { bin: string } | { problem: string } {
  if (existsSync(REPOMIX_BIN)) return { bin: REPOMIX_BIN };
  log(`offline: installing repomix@${REPOMIX_VERSION} into ${REPOMIX_DIR}`);
  try {
    mkdirSync(REPOMIX_DIR, { recursive: true });
    if (!existsSync(path.join(REPOMIX_DIR, 'package.json'))) writeFileSync(path.join(REPOMIX_DIR, 'package.json'), '{ "private": true }\n');
    execFileSync('npm', ['install', '--prefix', REPOMIX_DIR, '--no-audit', '--no-fund', `repomix@${REPOMIX_VERSION}`], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
  } catch (error) {
    return { problem: `repomix could not be installed (${(error as Error).message.split('\n')[0]})` };
  }
  return existsSync(REPOMIX_BIN) ? { bin: REPOMIX_BIN } : { problem: `repomix installed, but ${REPOMIX_BIN} is missing` };
}

/** What offlineWorker.ts configures, as a config file for the CLI: index everything in the corpus. */
const COMMAND_CONFIG = 'file_analysis:\n  skip_directories: [.git]\n  skip_generated: false\n  respect_gitignore: false\n';

export interface OfflineBenchOptions {
  files: number;
  /** Untimed parse + pipeline pairs first. */
  warmups: number;
  pairs: number;
  log?: (line: string) => void;
}

export const OFFLINE_FULL: OfflineBenchOptions = { files: 5000, warmups: 1, pairs: 3 };
export const OFFLINE_QUICK: OfflineBenchOptions = { files: 1000, warmups: 0, pairs: 2 };

export async function benchOffline(options: OfflineBenchOptions): Promise<SectionResult> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const corpus = buildCorpus(options.files);
  warmPageCache(corpus);
  const work = path.join(WORK_DIR, `offline-${options.files}`);
  mkdirSync(work, { recursive: true });
  const config = path.join(work, 'config.yaml');
  writeFileSync(config, COMMAND_CONFIG);
  const out = path.join(work, 'out');
  const repomix = installRepomix(log);
  const timeoutMs = offlineTimeoutMs(options.files);
  const command = async (): Promise<CommandRun> => {
    rmSync(out, { recursive: true, force: true });
    return timeCommand(process.execPath, [COMMAND, 'index', corpus, '--out', out, '--config', config, '--quiet'], { cwd: REPO_ROOT, timeoutMs });
  };
  // Written where it cannot be taken for a corpus file; --no-gitignore because the corpus sits in a folder git ignores.
  const repomixRun = async (bin: string): Promise<CommandRun> =>
    timeCommand(process.execPath, [bin, '--compress', '--no-gitignore', '--quiet', '-o', path.join(work, 'repomix-output.xml'), corpus], { cwd: work, timeoutMs });
  const parse: OfflineRun[] = [];
  const pipeline: OfflineRun[] = [];
  const commands: CommandRun[] = [];
  const repomixes: CommandRun[] = [];
  for (let i = -options.warmups; i < options.pairs; i++) {
    const p = await runOffline('parse', corpus, options.files);
    const q = await runOffline('pipeline', corpus, options.files);
    const c = await command();
    const r = 'bin' in repomix ? await repomixRun(repomix.bin) : null;
    const tag = i < 0 ? 'warm-up' : `#${i + 1}`;
    log(
      `offline ${tag}: parse ${filesPerSecond(p).toFixed(0)} files/s, pipeline ${filesPerSecond(q).toFixed(0)} files/s (${q.maxRssMb} MB), ` +
        `command ${(c.ms / 1000).toFixed(2)} s (${c.maxRssMb} MB)${r ? `, repomix --compress ${(r.ms / 1000).toFixed(2)} s (${r.maxRssMb} MB)` : ''}`,
    );
    if (i < 0) continue;
    parse.push(p);
    pipeline.push(q);
    commands.push(c);
    if (r) repomixes.push(r);
  }

  const f = new Figures('offline');
  const findings: string[] = [];
  const n = `median of ${options.pairs}`;
  const ratios = pipeline.map((q, i) => filesPerSecond(q) / filesPerSecond(parse[i] as OfflineRun));
  const workers = Math.max(...pipeline.map((r) => r.threads ?? 0));
  const last = pipeline[pipeline.length - 1] as OfflineRun;
  f.add('files', last.files, 'files', `${round(last.bytes / 1024 / 1024, 1)} MB of node_modules code`);
  f.add('pipeline: rate', round(median(pipeline.map(filesPerSecond)), 0), 'files/s', `${n}; ${workers === 0 ? 'extraction in-process' : `${workers} extraction worker threads`}`);
  f.add('pipeline: throughput', round(median(pipeline.map(mbPerSecond)), 2), 'MB/s');
  f.add('pipeline: wall time', round(median(pipeline.map((r) => r.ms)) / 1000, 2), 's');
  f.add('pipeline: peak RSS', median(pipeline.map((r) => r.maxRssMb)), 'MB', 'whole process, workers included');
  f.add('bare parse: rate', round(median(parse.map(filesPerSecond)), 0), 'files/s', `${n}; one thread, files pre-read`);
  f.add('bare parse: throughput', round(median(parse.map(mbPerSecond)), 2), 'MB/s');
  f.add('bare parse: peak RSS', median(parse.map((r) => r.maxRssMb)), 'MB');
  f.add('pipeline rate / bare parse rate', round(median(ratios), 2), '×', `per pair: ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
  if (workers > 0) f.add('pipeline rate / bare parse rate per worker', round(median(ratios) / workers, 2), '×', `${availableParallelism()} CPUs`);

  f.add('whole command: wall time', round(median(commands.map((c) => c.ms)) / 1000, 2), 's', `${n}; coderag index into an empty folder, spawn to exit, search pack and reports included`);
  f.add('whole command: CPU time', round(median(commands.map((c) => c.cpuMs ?? NaN)) / 1000, 2), 's', 'every thread, GNU time');
  f.add('whole command: peak RSS', median(commands.map((c) => c.maxRssMb ?? NaN)), 'MB', 'target ≤ 250 MB');
  if ('bin' in repomix && repomixes.length === commands.length) {
    const wallRatios = commands.map((c, i) => c.ms / (repomixes[i] as CommandRun).ms);
    const cpuRatios = commands.map((c, i) => (c.cpuMs ?? NaN) / ((repomixes[i] as CommandRun).cpuMs ?? NaN));
    f.add('repomix --compress: wall time', round(median(repomixes.map((r) => r.ms)) / 1000, 2), 's', `${n}; repomix ${REPOMIX_VERSION} on the same tree, spawn to exit, alternating with ours`);
    f.add('repomix --compress: CPU time', round(median(repomixes.map((r) => r.cpuMs ?? NaN)) / 1000, 2), 's');
    f.add('repomix --compress: peak RSS', median(repomixes.map((r) => r.maxRssMb ?? NaN)), 'MB');
    f.add('whole command / repomix --compress, wall', round(median(wallRatios), 2), '×', `target ≤ 0.8; per round: ${wallRatios.map((x) => x.toFixed(2)).join(', ')}`);
    f.add('whole command / repomix --compress, CPU', round(median(cpuRatios), 2), '×', `per round: ${cpuRatios.map((x) => x.toFixed(2)).join(', ')}`);
    if (median(wallRatios) > 0.8) findings.push(`The whole offline command took ${median(wallRatios).toFixed(2)}× repomix --compress's wall time on the same tree, above the 0.8× target.`);
  } else if ('problem' in repomix) {
    findings.push(`No repomix row: ${repomix.problem}.`);
  }
  const peak = median(commands.map((c) => c.maxRssMb ?? NaN));
  if (peak > 250) findings.push(`The whole offline command peaked at ${peak} MB, above the 250 MB target.`);
  const pipeSpread = spread(pipeline.map((r) => r.ms));
  const parseSpread = spread(parse.map((r) => r.ms));
  if (pipeSpread > 1.3 || parseSpread > 1.3) {
    findings.push(`Offline runs disagree (slowest / fastest: pipeline ${pipeSpread.toFixed(2)}, parse ${parseSpread.toFixed(2)}): the machine is noisy; trust the ratio more than the rates.`);
  }
  if (pipelineRegime(last.files).liftoffOnly) {
    findings.push(`At ${last.files} files the pipeline keeps V8's baseline wasm compiler (--liftoff-only below ${policyThresholds().fast_startup_max_files} files) while the bare parse tiers up to the optimising one: the offline ratio includes that choice.`);
  }
  if (pipeline.some((r) => (r.skipped ?? 0) > 0)) findings.push(`Offline pipeline skipped ${Math.max(...pipeline.map((r) => r.skipped ?? 0))} files of the corpus.`);
  return {
    setup: { ...options, log: undefined, corpus, extraction_workers: workers, cpus: availableParallelism(), thresholds: policyThresholds() },
    figures: f.list,
    runs: { parse, pipeline, whole_command: commands, repomix: repomixes },
    findings,
    seconds: round((performance.now() - started) / 1000, 1),
  };
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const result = await benchOffline({ ...(quick ? OFFLINE_QUICK : OFFLINE_FULL), log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(`${renderTable(result.figures)}\n\n${result.findings.join('\n')}\n`);
}
