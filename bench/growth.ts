/**
 * How `coderag index` grows with the repository, offline: wall time and peak RSS at several sizes
 * (buildCorpus repeats the node_modules tree under copyN/ past the ~8,000 files available), each run a fresh
 * plain-`node` process (bench/lib/indexWorker.mjs) doing what the command does: runIndex, from the walk to the
 * written index and its reuse state, then the search pack built from the written file. Time per file should
 * stay constant (linear growth) and the indexing's peak RSS should stay nearly flat; the findings say where
 * they do not, and where the search pack, not the indexing, is the command's peak.
 *
 *   node --import tsx bench/growth.ts [--quick]      (after npm run build)
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { isMain, runJsonChild } from './lib/child.js';
import { buildCorpus, WORK_DIR, warmPageCache } from './lib/corpus.js';
import { Figures, renderTable, type SectionResult } from './lib/figures.js';
import { offlineTimeoutMs } from './lib/offlineRuns.js';
import { describeRegime, policyThresholds } from './lib/policy.js';
import { median, round } from './lib/stats.js';

export interface GrowthBenchOptions {
  /** Sizes in files, smallest first, each with its number of runs. */
  sizes: Array<{ files: number; reps: number }>;
  log?: (line: string) => void;
}

export const GROWTH_FULL: GrowthBenchOptions = {
  sizes: [
    { files: 5000, reps: 3 },
    { files: 20000, reps: 2 },
    { files: 50000, reps: 1 },
  ],
};
export const GROWTH_QUICK: GrowthBenchOptions = {
  sizes: [
    { files: 1000, reps: 1 },
    { files: 2000, reps: 1 },
  ],
};

/** The flat-memory target (issue 9): peak RSS of indexing 50,000 files, offline. */
const RSS_TARGET_MB = 400;
/** Per-file time may drift this much above the smallest size's before we call growth superlinear. */
const LINEAR_TOLERANCE = 1.3;
/** Peak RSS may grow this much from the smallest to the largest size before we call memory not flat. */
const FLAT_TOLERANCE = 1.5;

export interface IndexRun {
  mode: 'index';
  files: number;
  ms: number;
  /** Peak RSS once the index and its state are written. */
  maxRssMb: number;
  indexBytes: number;
  /** The search pack built from the written index (null when not built). */
  packMs: number | null;
  /** Peak RSS once the pack is built too: the whole command's. */
  packMaxRssMb: number | null;
}

interface SizeResult {
  size: number;
  runs: IndexRun[];
  ms: number;
  msPerFile: number;
  rssMb: number;
  packRssMb: number;
  packMs: number;
}

function runIndexWorker(corpus: string, files: number): Promise<IndexRun> {
  const out = path.join(WORK_DIR, `growth-out-${files}`);
  rmSync(out, { recursive: true, force: true });
  // The pack takes as long again at the largest sizes.
  return runJsonChild<IndexRun>('lib/indexWorker.mjs', [corpus, out], { timeoutMs: 2 * offlineTimeoutMs(files) }).finally(() => rmSync(out, { recursive: true, force: true }));
}

export async function benchGrowth(options: GrowthBenchOptions): Promise<SectionResult> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const results: SizeResult[] = [];
  for (const { files: size, reps } of options.sizes) {
    const corpus = buildCorpus(size);
    warmPageCache(corpus);
    const runs: IndexRun[] = [];
    for (let i = 0; i < reps; i++) {
      const run = await runIndexWorker(corpus, size);
      log(`growth ${size} #${i + 1}: ${(run.ms / 1000).toFixed(2)} s, ${run.maxRssMb} MB; search pack ${((run.packMs ?? 0) / 1000).toFixed(2)} s, ${run.packMaxRssMb} MB`);
      runs.push(run);
    }
    const ms = median(runs.map((r) => r.ms));
    const files = runs[0]?.files ?? size;
    results.push({
      size,
      runs,
      ms,
      msPerFile: ms / files,
      rssMb: median(runs.map((r) => r.maxRssMb)),
      packRssMb: median(runs.map((r) => r.packMaxRssMb ?? Number.NaN)),
      packMs: median(runs.map((r) => r.packMs ?? Number.NaN)),
    });
  }

  const f = new Figures('growth');
  const findings: string[] = [];
  const base = results[0] as SizeResult;
  const top = results[results.length - 1] as SizeResult;
  for (const r of results) {
    const note = `median of ${r.runs.length}; ${describeRegime(r.size)}`;
    f.add(`${r.size} files: wall time`, round(r.ms / 1000, 2), 's', `${note}; walk to written index and reuse state`);
    f.add(`${r.size} files: time per file`, round(r.msPerFile, 2), 'ms/file', r === base ? 'baseline' : `${(r.msPerFile / base.msPerFile).toFixed(2)} × the ${base.size}-file figure`);
    f.add(`${r.size} files: peak RSS`, r.rssMb, 'MB', r === base ? 'indexing, whole process (extraction threads included)' : `${(r.rssMb / base.rssMb).toFixed(2)} × the ${base.size}-file figure`);
    f.add(`${r.size} files: search pack`, round(r.packMs / 1000, 2), 's', 'built from the written index, as coderag index does');
    f.add(`${r.size} files: peak RSS with search pack`, r.packRssMb, 'MB', 'the whole coderag index command');
  }
  const slope = top === base ? 0 : ((top.rssMb - base.rssMb) / (top.size - base.size)) * 1000;
  f.add('peak RSS growth', round(slope, 1), 'MB per 1,000 files', `${base.size} → ${top.size} files, indexing`);
  f.add('index size (indented JSON)', round(median(top.runs.map((r) => r.indexBytes)) / 1024 / 1024 / (top.size / 1000), 2), 'MB per 1,000 files', `at ${top.size} files`);
  for (const r of results.slice(1)) {
    const drift = r.msPerFile / base.msPerFile;
    if (drift > LINEAR_TOLERANCE) findings.push(`Growth is not linear at ${r.size} files: ${r.msPerFile.toFixed(2)} ms a file, ${drift.toFixed(2)} × the ${base.size}-file figure.`);
    else if (drift < 1 / LINEAR_TOLERANCE) findings.push(`Time per file falls with size (${drift.toFixed(2)} × at ${r.size} files): fixed start-up costs (workers, grammars) weigh on the ${base.size}-file figure.`);
  }
  if (top.rssMb / base.rssMb > FLAT_TOLERANCE) {
    findings.push(`Memory is not flat: indexing's peak RSS grows from ${base.rssMb} MB at ${base.size} files to ${top.rssMb} MB at ${top.size} (${slope.toFixed(1)} MB per 1,000 files).`);
  }
  if (top.size >= 50000 && top.rssMb > RSS_TARGET_MB) findings.push(`Indexing ${top.size} files peaked at ${top.rssMb} MB, above the ${RSS_TARGET_MB} MB target.`);
  const packPeaks = results.filter((r) => r.packRssMb > r.rssMb * 1.1);
  if (packPeaks.length > 0) {
    findings.push(
      `The search pack is coderag index's memory peak at ${packPeaks.map((r) => `${r.size} files (${r.packRssMb} MB against indexing's ${r.rssMb} MB)`).join(', ')}: tokenising the profiles and building its postings costs more than the indexing did.`,
    );
  }
  return {
    setup: { thresholds: policyThresholds(), sizes: options.sizes, worker: 'bench/lib/indexWorker.mjs (plain node, compiled build)' },
    figures: f.list,
    runs: results.map(({ size, runs }) => ({ size, runs })),
    findings,
    seconds: round((performance.now() - started) / 1000, 1),
  };
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const result = await benchGrowth({ ...(quick ? GROWTH_QUICK : GROWTH_FULL), log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(`${renderTable(result.figures)}\n\n${result.findings.join('\n')}\n`);
}
