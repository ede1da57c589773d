/**
 * How offline indexing grows with the repository: wall time and peak RSS of the whole pipeline at several
 * sizes (buildCorpus repeats the node_modules tree under copyN/ past the ~8,000 files available), each run a
 * fresh process. Time per file should stay constant (linear growth) and RSS should stay nearly flat; the
 * findings say where they do not.
 *
 *   node --import tsx bench/growth.ts [--quick]
 */
import { isMain } from './lib/child.js';
import { buildCorpus, warmPageCache } from './lib/corpus.js';
import { Figures, renderTable, type SectionResult } from './lib/figures.js';
import { runOffline, type OfflineRun } from './lib/offlineRuns.js';
import { describeRegime, policyThresholds } from './lib/policy.js';
import { median, round } from './lib/stats.js';

export interface GrowthBenchOptions {
  sizes: number[];
  /** Runs per size; a size whose runs are given in `reuse` takes those instead. */
  reps: number;
  /** Fewer runs for the largest size, which costs the most. */
  largestReps: number;
  /** Pipeline runs already measured at a size (by the offline benchmark), used instead of new runs. */
  reuse?: Map<number, OfflineRun[]>;
  log?: (line: string) => void;
}

export const GROWTH_FULL: GrowthBenchOptions = { sizes: [1000, 5000, 20000, 50000], reps: 3, largestReps: 1 };
export const GROWTH_QUICK: GrowthBenchOptions = { sizes: [500, 1000, 2000], reps: 1, largestReps: 1 };

/** Per-file time may drift this much above the smallest size's before we call growth superlinear. */
const LINEAR_TOLERANCE = 1.3;
/** Peak RSS may grow this much from the smallest to the largest size before we call memory not flat. */
const FLAT_TOLERANCE = 1.5;

interface SizeResult {
  size: number;
  reused: boolean;
  runs: OfflineRun[];
  ms: number;
  msPerFile: number;
  rssMb: number;
}

export async function benchGrowth(options: GrowthBenchOptions): Promise<SectionResult> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const results: SizeResult[] = [];
  const largest = Math.max(...options.sizes);
  for (const size of options.sizes) {
    const reused = options.reuse?.get(size);
    let runs: OfflineRun[];
    if (reused && reused.length > 0) {
      runs = reused;
      log(`growth ${size}: reusing ${runs.length} offline pipeline run(s)`);
    } else {
      const corpus = buildCorpus(size);
      warmPageCache(corpus);
      runs = [];
      const reps = size === largest ? options.largestReps : options.reps;
      for (let i = 0; i < reps; i++) {
        const run = await runOffline('pipeline', corpus, size);
        log(`growth ${size} #${i + 1}: ${(run.ms / 1000).toFixed(2)} s, ${run.maxRssMb} MB`);
        runs.push(run);
      }
    }
    const ms = median(runs.map((r) => r.ms));
    const files = runs[0]?.files ?? size;
    results.push({ size, reused: Boolean(reused), runs, ms, msPerFile: ms / files, rssMb: median(runs.map((r) => r.maxRssMb)) });
  }

  const f = new Figures('growth');
  const findings: string[] = [];
  const base = results[0] as SizeResult;
  for (const r of results) {
    const note = `median of ${r.runs.length}${r.reused ? ' (the offline runs)' : ''}; ${describeRegime(r.size)}`;
    f.add(`${r.size} files: wall time`, round(r.ms / 1000, 2), 's', note);
    f.add(`${r.size} files: time per file`, round(r.msPerFile, 2), 'ms/file', r === base ? 'baseline' : `${(r.msPerFile / base.msPerFile).toFixed(2)} × the ${base.size}-file figure`);
    f.add(`${r.size} files: peak RSS`, r.rssMb, 'MB', r === base ? 'baseline' : `${(r.rssMb / base.rssMb).toFixed(2)} × the ${base.size}-file figure`);
  }
  const top = results[results.length - 1] as SizeResult;
  const slope = ((top.rssMb - base.rssMb) / (top.size - base.size)) * 1000;
  f.add('peak RSS growth', round(slope, 1), 'MB per 1,000 files', `${base.size} → ${top.size} files`);
  for (let i = 1; i < results.length; i++) {
    const a = results[i - 1] as SizeResult;
    const b = results[i] as SizeResult;
    f.add(`peak RSS growth ${a.size} → ${b.size}`, round(((b.rssMb - a.rssMb) / (b.size - a.size)) * 1000, 1), 'MB per 1,000 files');
  }
  const indexMbPer1k = median(top.runs.map((r) => r.indexBytes ?? Number.NaN)) / 1024 / 1024 / (top.size / 1000);
  if (Number.isFinite(indexMbPer1k)) f.add('index size (compact JSON)', round(indexMbPer1k, 2), 'MB per 1,000 files', `at ${top.size} files`);
  for (const r of results.slice(1)) {
    const drift = r.msPerFile / base.msPerFile;
    if (drift > LINEAR_TOLERANCE) findings.push(`Growth is not linear at ${r.size} files: ${r.msPerFile.toFixed(2)} ms a file, ${drift.toFixed(2)} × the ${base.size}-file figure.`);
    else if (drift < 1 / LINEAR_TOLERANCE && describeRegime(r.size) !== describeRegime(base.size)) findings.push(`Time per file falls at ${r.size} files (${drift.toFixed(2)} × the ${base.size}-file figure) where the pipeline changes regime (${describeRegime(base.size)} → ${describeRegime(r.size)}).`);
    else if (drift < 1 / LINEAR_TOLERANCE) findings.push(`Time per file falls with size (${drift.toFixed(2)} × at ${r.size} files): fixed start-up costs (workers, grammars) dominate the ${base.size}-file figure.`);
  }
  if (top.rssMb / base.rssMb > FLAT_TOLERANCE) {
    const held = Number.isFinite(indexMbPer1k) ? ` The index itself is ${indexMbPer1k.toFixed(1)} MB per 1,000 files as compact JSON, and the run holds all of it as objects until it is written.` : '';
    findings.push(`Memory is not flat: peak RSS grows from ${base.rssMb} MB at ${base.size} files to ${top.rssMb} MB at ${top.size} (${slope.toFixed(1)} MB per 1,000 files).${held}`);
  }
  return {
    setup: { thresholds: policyThresholds(), sizes: options.sizes, reps: options.reps, largest_reps: options.largestReps, reused_sizes: results.filter((r) => r.reused).map((r) => r.size) },
    figures: f.list,
    runs: results.map(({ size, reused, runs }) => ({ size, reused, runs })),
    findings,
    seconds: round((performance.now() - started) / 1000, 1),
  };
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const result = await benchGrowth({ ...(quick ? GROWTH_QUICK : GROWTH_FULL), log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(`${renderTable(result.figures)}\n\n${result.findings.join('\n')}\n`);
}
