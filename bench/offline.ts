/**
 * Offline indexing against the bare tree-sitter parse of the same files. Each measurement is a fresh process
 * (bench/offlineWorker.ts), run in alternation (parse, pipeline, parse, pipeline, …) so the machine's noise
 * falls on both sides of each ratio; the figures are medians, the ratio is the median of per-pair ratios.
 *
 *   parse     single-threaded parse of pre-read files (reading and grammar loading excluded)
 *   pipeline  indexRepository from dist/: walk, classify, extract on worker threads, profile, relate, build
 *             (writing the JSON file excluded)
 *
 *   node --import tsx bench/offline.ts [--quick]
 */
import { availableParallelism } from 'node:os';
import { isMain } from './lib/child.js';
import { buildCorpus, warmPageCache } from './lib/corpus.js';
import { Figures, renderTable, type SectionResult } from './lib/figures.js';
import { filesPerSecond, mbPerSecond, runOffline, type OfflineRun } from './lib/offlineRuns.js';
import { pipelineRegime, policyThresholds } from './lib/policy.js';
import { median, round, spread } from './lib/stats.js';

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
  const parse: OfflineRun[] = [];
  const pipeline: OfflineRun[] = [];
  for (let i = -options.warmups; i < options.pairs; i++) {
    const p = await runOffline('parse', corpus, options.files);
    const q = await runOffline('pipeline', corpus, options.files);
    const tag = i < 0 ? 'warm-up' : `#${i + 1}`;
    log(`offline ${tag}: parse ${filesPerSecond(p).toFixed(0)} files/s, pipeline ${filesPerSecond(q).toFixed(0)} files/s (${q.maxRssMb} MB)`);
    if (i < 0) continue;
    parse.push(p);
    pipeline.push(q);
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
    runs: { parse, pipeline },
    findings,
    seconds: round((performance.now() - started) / 1000, 1),
  };
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const result = await benchOffline({ ...(quick ? OFFLINE_QUICK : OFFLINE_FULL), log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(`${renderTable(result.figures)}\n\n${result.findings.join('\n')}\n`);
}
