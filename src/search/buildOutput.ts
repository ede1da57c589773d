/**
 * Build output: files a build tool wrote into a package (`dist/`, `build/`, `cjs/`, `esm/`, `umd/` and the like),
 * as installed dependencies ship them. A bundle concatenates every module of a package and a compiled file
 * carries the compiler's helpers, so their length and how many of a request's words they happen to contain
 * measure the build, not the module: the ranker weighs neither for them (bm25f.ts). Hand-written source is
 * never in these folders by convention, and CodeRAG skips `dist`, `build` and `out` unless configured to index
 * them, so this changes nothing for a repository's own source.
 */
import { fileStem } from '../shared/text.js';
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

/**
 * The module a file is one form of: its folders without build output folders and a `src/` or `source/` folder,
 * and its name up to the first dot. `dist/esm/walker.js`, `dist/commonjs/walker.js` and `src/walker.ts` are one
 * module (`walker`), as are `cjs/react-is.production.js` and `cjs/react-is.development.js`.
 */
export function moduleKey(path: string): string {
  const folders = path.toLowerCase().split('/').slice(0, -1).filter((f) => !BUILD_OUTPUT_DIRS.has(f) && f !== 'src' && f !== 'source');
  return [...folders, fileStem(path)].join('/');
}

/**
 * Whether an index's document is build output, worked out for a document when first asked and kept: a search
 * asks about the documents its words match, a few of a large index's.
 */
export function buildOutputDocs(index: FieldIndex): (d: number) => boolean {
  const known = index.memo('build-output', () => new Uint8Array(index.size));
  return (d) => {
    let state = known[d];
    if (!state) known[d] = state = isBuildOutput(index.paths.at(d)) ? BUILT : NOT_BUILT;
    return state === BUILT;
  };
}

const NOT_BUILT = 1;
const BUILT = 2;
