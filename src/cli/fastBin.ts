#!/usr/bin/env node
/**
 * The command npm links as `coderag` (dist/bin/coderag.cjs), a small CommonJS file. A plain `search`, what coding
 * agents run most and wait on, runs from the search bundle beside it (searchEntry.ts, `search.cjs`), compiled
 * with V8's code cache (compileCache.ts): Node then never starts its ES module loader, never reads the ES
 * bundle's chunks one import after another, and takes most of the search's compiled code from the last run
 * (bench/README.md). Any other command line is the ES module bundle's (bin.ts, `coderag.js`), which reads the
 * line again itself.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../shared/errors.js';
import { compileCacheDir, requireCompiled, type CompiledModule } from './compileCache.js';

interface SearchEntry {
  runPlainSearch(argv: string[]): boolean;
}

const here = path.dirname(fileURLToPath(import.meta.url));
if (!(process.argv[2] === 'search' && runSearch())) {
  // A computed specifier: the bundler leaves it to Node, which loads the ES module bundle beside this file.
  const bundle = new URL('./coderag.js', import.meta.url).href;
  import(bundle).catch((error: unknown) => {
    process.stderr.write(`error: cannot load ${bundle}: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  });
}

function runSearch(): boolean {
  const file = path.join(here, 'search.cjs');
  let entry: CompiledModule;
  try {
    entry = requireCompiled(file, compileCacheDir());
  } catch (error) {
    process.stderr.write(`error: cannot load ${file}: ${errorMessage(error)}\n`);
    process.exitCode = 1;
    return true;
  }
  const handled = (entry.exports as SearchEntry).runPlainSearch(process.argv);
  // Saved once the search is done, so the cache holds every function it compiled.
  if (handled) process.once('exit', entry.save);
  return handled;
}
