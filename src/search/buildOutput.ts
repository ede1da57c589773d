/**
 * Build output: files a build tool wrote into a package (`dist/`, `build/`, `cjs/`, `esm/`, `umd/` and the like),
 * as installed dependencies ship them. A bundle concatenates every module of a package and a compiled file
 * carries the compiler's helpers, so their length and how many of a request's words they happen to contain
 * measure the build, not the module: the ranker weighs neither for them (bm25f.ts). Hand-written source is
 * never in these folders by convention, and CodeRAG skips `dist`, `build` and `out` unless configured to index
 * them, so this changes nothing for a repository's own source.
 */
import type { FieldIndex } from './fieldIndex.js';

/** Folder names that hold a build's output (lower-case). `es` is left out: it is also a locale's folder. */
const BUILD_OUTPUT_DIRS: ReadonlySet<string> = new Set([
  'dist', 'build', 'cjs', 'esm', 'mjs', 'commonjs', 'umd', 'bundle', 'bundles', 'es5', 'es6', 'es2015', 'es2017',
  'es2018', 'es2019', 'es2020', 'es2022', 'esnext',
]);

/** Whether a repository-relative path lies in a build output folder. */
export function isBuildOutput(path: string): boolean {
  const folders = path.toLowerCase().split('/').slice(0, -1);
  return folders.some((f) => BUILD_OUTPUT_DIRS.has(f));
}

/** 1 for each of the index's documents that is build output, computed once per index. */
export function buildOutputDocs(index: FieldIndex): Uint8Array {
  return index.memo('build-output', () => {
    const out = new Uint8Array(index.size);
    for (let d = 0; d < index.size; d++) if (isBuildOutput(index.paths.at(d))) out[d] = 1;
    return out;
  });
}
