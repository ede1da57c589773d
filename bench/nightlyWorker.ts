/**
 * One nightly-indexing run in a fresh process: `runIndex` from the compiled build over `<repo>`, writing into
 * `<out>` and reusing whatever index is already there. Prints one JSON line: { ms, cpuMs, maxRssMb, files, reuse },
 * where reuse says how many entries were reused (by mtime, git blob, content hash) and how many files were
 * read and parsed. cpuMs is the process's CPU time, every thread included: on a busy machine it says what the
 * run cost when wall time says mostly how long it waited.
 */
import { defaultConfig } from '../dist/config/schema.js';
import { runIndex } from '../dist/pipeline/runIndex.js';

const [repo, out] = process.argv.slice(2);
if (!repo || !out) {
  process.stderr.write('usage: nightlyWorker.ts <repo> <out>\n');
  process.exit(2);
}

/** The corpus is a node_modules copy committed to git: index everything git lists. */
const config = defaultConfig();
config.file_analysis.skip_directories = ['.git'];
config.file_analysis.skip_generated = false;

const start = performance.now();
const result = await runIndex([repo], { config, outDir: out, searchPacks: false });
const ms = performance.now() - start;
const written = result.written[0];
if (!written?.reuse) throw new Error('no index written');
const usage = process.resourceUsage();
const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
const maxRssMb = Math.round(usage.maxRSS / 1024);
process.stdout.write(`${JSON.stringify({ ms, cpuMs, maxRssMb, files: written.index.total_files, reuse: written.reuse })}\n`);
