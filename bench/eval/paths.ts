/**
 * Path rules shared by the miner (what counts as a "source file" answer) and the runner
 * (which files are ranking candidates). All paths are repo-relative POSIX.
 */
import { posix } from 'node:path';

/** Known code extensions (lower-case, with dot). */
export const CODE_EXTS: ReadonlySet<string> = new Set([
  '.js', '.mjs', '.cjs', '.ts', '.tsx', '.jsx', '.py', '.go', '.rs', '.java', '.rb', '.php', '.c', '.h', '.cpp', '.cs',
]);

/** Directory segments that mark non-source code (tests, docs, examples, benchmarks, CI, build output). */
const NON_SOURCE_SEGMENTS: ReadonlySet<string> = new Set([
  'test', 'tests', '__tests__', '__mocks__', 'testdata', 'spec', 'specs', 'fixtures',
  'docs', 'doc', 'example', 'examples', 'benchmark', 'benchmarks', 'bench',
  'sandbox', 'playground', 'scripts', '.github', 'node_modules', 'vendor', 'dist',
]);

/** File-name patterns for tests, tooling config and generated files. */
const NON_SOURCE_BASENAMES: readonly RegExp[] = [
  /_test\.go$/, /\.test\.[^.]+$/, /\.spec\.[^.]+$/, /^test_.*\.py$/, /_test\.py$/, /^conftest\.py$/,
  // generated
  /^zz_generated/, /\.pb\.go$/, /\.generated\./, /\.min\.[^.]+$/,
  // tooling / build configuration
  /^\./, /\.config\.[cm]?[jt]s$/, /^(gulpfile|gruntfile|karma\.conf|webpack\.config|rollup\.config)\b/i,
];

/** Whole repo-relative paths known to be generated (per ecosystem conventions seen in the mined repos). */
const GENERATED_PATHS: readonly RegExp[] = [
  /^lib\/env\/data\.js$/, // axios: VERSION constant written by the release tooling
];

export function toPosix(p: string): string {
  return p.replace(/\\/g, '/').replace(/^\.\//, '');
}

export function isCodePath(path: string): boolean {
  return CODE_EXTS.has(posix.extname(path).toLowerCase());
}

/** The answer rule: a hand-written, non-test source file. */
export function isSourceFile(path: string): boolean {
  const p = toPosix(path);
  if (!isCodePath(p)) return false;
  const parts = p.split('/');
  const base = parts[parts.length - 1] ?? '';
  for (const seg of parts.slice(0, -1)) {
    const s = seg.toLowerCase();
    if (NON_SOURCE_SEGMENTS.has(s) || /^tests?[-_]|[-_]tests?$/.test(s)) return false;
  }
  if (NON_SOURCE_BASENAMES.some((re) => re.test(base))) return false;
  if (GENERATED_PATHS.some((re) => re.test(p))) return false;
  return true;
}

/** Segments never offered to rankers. */
const CANDIDATE_EXCLUDED_SEGMENTS: ReadonlySet<string> = new Set(['node_modules', 'vendor', '.git']);

/**
 * The candidate rule: any code-extension file outside node_modules/vendor/.git.
 * Unless `includeGenerated`, committed build bundles (`dist/` segments, `*.min.*`) are also left out:
 * they concatenate every source file and would otherwise top every lexical ranking while never being an answer.
 */
export function isCandidatePath(path: string, includeGenerated = false): boolean {
  const p = toPosix(path);
  if (!isCodePath(p)) return false;
  const parts = p.split('/');
  for (const seg of parts.slice(0, -1)) {
    if (CANDIDATE_EXCLUDED_SEGMENTS.has(seg)) return false;
    if (!includeGenerated && seg === 'dist') return false;
  }
  if (!includeGenerated && /\.min\.[^.]+$/.test(parts[parts.length - 1] ?? '')) return false;
  return true;
}
