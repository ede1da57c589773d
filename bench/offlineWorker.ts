/**
 * One offline measurement in a fresh process, so peak RSS belongs to it alone:
 *   parse <dir>     read every file the pipeline would profile, then time tree-sitter parses alone
 *   pipeline <dir>  time the whole offline pipeline (walk, classify, extract, profile, relate, build)
 * Prints one JSON line: { mode, files, bytes, ms, maxRssMb } (pipeline: also skipped; threads, the extraction
 * worker threads the run used, 0 when it extracted in-process; indexBytes, the index as compact JSON).
 */
import { readFile } from 'node:fs/promises';
// Everything comes from the compiled build, as users run it: extraction workers need compiled JavaScript, and
// the process then starts without transpiling the sources.
import { defaultConfig } from '../dist/config/schema.js';
import { ParserPool } from '../dist/extract/parser.js';
import { detectLanguage } from '../dist/extract/languages.js';
import { createExtractors, indexRepository } from '../dist/pipeline/runIndex.js';
import { walkRepository } from '../dist/pipeline/walk.js';

const [mode, dir] = process.argv.slice(2);
if (!dir || (mode !== 'parse' && mode !== 'pipeline')) {
  process.stderr.write('usage: offlineWorker.ts parse|pipeline <dir>\n');
  process.exit(2);
}

/** The corpus is a node_modules copy: index everything in it, not what a project would skip. */
const config = defaultConfig();
config.file_analysis.skip_directories = ['.git'];
config.file_analysis.skip_generated = false;
config.file_analysis.respect_gitignore = false;

async function measureParse(root: string) {
  const walked = await walkRepository(root, { supportedExtensions: config.file_analysis.supported_extensions, skipDirectories: ['.git'], respectGitignore: false });
  const inputs: Array<{ grammar: NonNullable<ReturnType<typeof detectLanguage>['grammar']>; text: string }> = [];
  let bytes = 0;
  for (const file of walked.files) {
    const grammar = detectLanguage(file.path).grammar;
    if (!grammar || file.size > config.file_analysis.max_file_size) continue;
    const text = await readFile(file.absolute, 'utf8');
    inputs.push({ grammar, text });
    bytes += file.size;
  }
  const parsers = new ParserPool();
  for (const g of new Set(inputs.map((i) => i.grammar))) await parsers.withTree(g, '', () => undefined);
  const start = performance.now();
  for (const { grammar, text } of inputs) await parsers.withTree(grammar, text, (tree) => tree.rootNode.childCount);
  const ms = performance.now() - start;
  await parsers.dispose();
  return { files: inputs.length, bytes, ms };
}

async function measurePipeline(root: string) {
  const start = performance.now();
  // The run's own pool, passed in so its thread count can be read afterwards; it starts no worker until
  // the repository's size asks for them.
  const extractors = createExtractors(config);
  const index = await indexRepository(root, { config, extractors });
  const threads = extractors.threads;
  await extractors.close();
  const ms = performance.now() - start;
  // Peak RSS is taken before serialising, which would add the JSON text to it.
  const maxRssMb = peakRssMb();
  const ok = index.file_summaries.filter((f) => f.status === 'ok');
  const indexBytes = Buffer.byteLength(JSON.stringify(index));
  return { files: ok.length, bytes: ok.reduce((n, f) => n + f.size_bytes, 0), ms, skipped: index.file_summaries.length - ok.length, threads, indexBytes, maxRssMb };
}

function peakRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

const result = mode === 'parse' ? { ...(await measureParse(dir)), maxRssMb: peakRssMb() } : await measurePipeline(dir);
process.stdout.write(`${JSON.stringify({ mode, ...result })}\n`);
