/**
 * One `coderag index` in a fresh process, as users run it: plain `node` (no TypeScript loader) over the compiled
 * build, `runIndex` (walk to the written index and its reuse state) and then the search pack the CLI builds
 * from the written file (`prepareSearchPack`). Prints one JSON line:
 *   { mode: 'index', files, ms, maxRssMb, indexBytes, packMs, packMaxRssMb }
 * where maxRssMb is the peak RSS once the index is written and packMaxRssMb the peak once the pack is built
 * too (the whole command's). Plain JavaScript so that no loader thread counts in its RSS.
 *
 *   node bench/lib/indexWorker.mjs <corpus> <out> [--no-pack]
 */
import { statSync } from 'node:fs';
import { defaultConfig } from '../../dist/config/schema.js';
import { runIndex } from '../../dist/pipeline/runIndex.js';
import { prepareSearchPack, writtenLayout } from '../../dist/search/preparePacks.js';

const [corpus, out, flag] = process.argv.slice(2);
if (!corpus || !out) {
  process.stderr.write('usage: indexWorker.mjs <corpus> <out> [--no-pack]\n');
  process.exit(2);
}

/** The corpus is a node_modules copy: index everything in it, as the offline benchmark does. */
const config = defaultConfig();
config.file_analysis.skip_directories = ['.git'];
config.file_analysis.skip_generated = false;
config.file_analysis.respect_gitignore = false;
config.output.generate_summary = false;
config.output.generate_statistics = false;

const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const start = performance.now();
// The search pack is built and timed on its own below.
const result = await runIndex([corpus], { config, outDir: out, reuse: false, searchPacks: false });
const ms = performance.now() - start;
const maxRssMb = peakRssMb();
const written = result.written[0];
if (!written) throw new Error('no index written');
let packMs = null;
let packMaxRssMb = null;
if (flag !== '--no-pack') {
  const packStart = performance.now();
  await prepareSearchPack(written.outputPath, writtenLayout(written));
  packMs = performance.now() - packStart;
  packMaxRssMb = peakRssMb();
}
const files = written.index.analysis_metadata.files_by_status.ok;
process.stdout.write(`${JSON.stringify({ mode: 'index', files, ms, maxRssMb, indexBytes: statSync(written.outputPath).size, packMs, packMaxRssMb })}\n`);
