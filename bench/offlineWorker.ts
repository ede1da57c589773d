/**
 * One offline measurement in a fresh process, so peak RSS belongs to it alone:
 *   parse <dir>     read every file the pipeline would profile, then time tree-sitter parses alone
 *   pipeline <dir>  time the whole offline pipeline (walk, classify, extract, profile, relate, build)
 * Prints one JSON line: { mode, files, bytes, ms, maxRssMb }.
 */
import { readFile } from 'node:fs/promises';
import { defaultConfig } from '../src/config/schema.js';
import { ParserPool } from '../src/extract/parser.js';
import { detectLanguage } from '../src/extract/languages.js';
// The pipeline runs from the compiled build, as users run it: extraction workers need compiled JavaScript.
import { indexRepository } from '../dist/pipeline/runIndex.js';
import { walkRepository } from '../src/pipeline/walk.js';

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
  const index = await indexRepository(root, { config });
  const ms = performance.now() - start;
  const ok = index.file_summaries.filter((f) => f.status === 'ok');
  return { files: ok.length, bytes: ok.reduce((n, f) => n + f.size_bytes, 0), ms, skipped: index.file_summaries.length - ok.length };
}

const result = mode === 'parse' ? await measureParse(dir) : await measurePipeline(dir);
const maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`${JSON.stringify({ mode, ...result, maxRssMb })}\n`);
