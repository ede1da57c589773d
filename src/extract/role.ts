/**
 * A file's role from its path alone: test, config, docs, entry point, build, example, benchmark, type
 * declarations, lock file or plain source. Search uses it to keep tests, docs, declarations and lock files below
 * source unless a query asks for them.
 */
import path from 'node:path';
import type { FileRole } from '../index/types.js';

const TEST_DIRS = new Set(['test', 'tests', '__tests__', 'spec', 'specs', 'testing', 'e2e', '__mocks__', 'fixtures', 'testdata', 'test_data', 'test-data', '__snapshots__', 'test_utils', 'test-utils', 'cypress', 'functional_tests', 'functional-tests', 'integration_tests', 'integration-tests']);
/** Benchmarks: `bench/`, `benches/` (Rust's convention), `benchmark(s)/`. */
const BENCH_DIRS = new Set(['bench', 'benches', 'benchmark', 'benchmarks']);
/** Documentation sites: a top-level `website/` or `docs-site/` is the project's site, whatever its language. */
const SITE_DIRS = new Set(['website', 'docs-site', 'doc-site']);
/** Type declarations beside an implementation: TypeScript's `.d.ts` family, Python's stubs. */
const DECLARATION_FILE = /\.d\.[cm]?ts$|\.pyi$/;
const LOCK_FILES = /^(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.ya?ml|yarn\.lock|bun\.lockb?|deno\.lock|cargo\.lock|poetry\.lock|pipfile\.lock|pdm\.lock|uv\.lock|composer\.lock|gemfile\.lock|go\.sum|gradle\.lockfile|flake\.lock|mix\.lock|pubspec\.lock|podfile\.lock|packages\.lock\.json)$/i;
const DOC_DIRS = new Set(['docs', 'doc', 'documentation']);
const EXAMPLE_DIRS = new Set(['example', 'examples', 'demo', 'demos', 'samples', 'sample']);
/** A project's top-level development playground (axios's `sandbox/`, vite's `playground/`); deeper, such a folder may be source (`src/sandbox/`). */
const PLAYGROUND_DIRS = new Set(['sandbox', 'playground', 'playgrounds']);
/**
 * A repository's own tooling at its top level: maintenance scripts (`scripts/`), CI steps (`ci/`, `.github/`,
 * `.circleci/`) and git hooks (`.husky/`): the code there runs the project, it is not what the project does (its
 * configuration and pages keep their own roles).
 */
const TOOLING_DIRS = new Set(['scripts', 'ci', '.ci', '.github', '.circleci', '.husky']);
const ENTRY_STEMS = new Set(['main', 'index', 'cli', '__main__', 'app', 'server', 'program', 'mod', 'lib']);
const BUILD_FILES = /^(makefile|dockerfile|cmakelists\.txt|build\.gradle(\.kts)?|setup\.py|setup\.cfg|rakefile|gemfile|justfile|build\.rs|gulpfile\.[cm]?js|gruntfile\.js|webpack\.config\.[cm]?[jt]s|rollup\.config\.[cm]?[jt]s|vite\.config\.[cm]?[jt]s)$/i;
const CONFIG_FILES = /^(package\.json|tsconfig.*\.json|pyproject\.toml|cargo\.toml|go\.mod|composer\.json|\.?eslintrc.*|\.?prettierrc.*|\.babelrc|babel\.config\..*|jest\.config\..*|vitest\.config\..*|tox\.ini|pytest\.ini|\.editorconfig|.*\.(config|conf)\.[cm]?[jt]s)$/i;
const CONFIG_EXTENSIONS = new Set(['.json', '.yaml', '.yml', '.toml', '.ini', '.cfg', '.xml', '.properties']);
const DOC_EXTENSIONS = new Set(['.md', '.rst', '.txt', '.adoc']);

export function detectRole(filePath: string): FileRole {
  const segments = filePath.toLowerCase().split('/');
  const base = segments[segments.length - 1] ?? '';
  const dirs = segments.slice(0, -1);
  const ext = path.posix.extname(base);
  const stem = base.slice(0, base.length - ext.length);

  if (dirs.some(isTestDir) || isTestFileName(filePath, stem, ext)) return 'test';
  if (LOCK_FILES.test(base)) return 'lockfile';
  if (dirs.some((d) => BENCH_DIRS.has(d))) return 'benchmark';
  if (DECLARATION_FILE.test(base)) return 'types';
  if (BUILD_FILES.test(base)) return 'build';
  if (CONFIG_FILES.test(base) || (CONFIG_EXTENSIONS.has(ext) && !dirs.some((d) => DOC_DIRS.has(d)))) return 'config';
  if (DOC_EXTENSIONS.has(ext) || dirs.some((d) => DOC_DIRS.has(d)) || SITE_DIRS.has(dirs[0] ?? '')) return 'docs';
  if (TOOLING_DIRS.has(dirs[0] ?? '')) return 'build';
  if (dirs.some((d) => EXAMPLE_DIRS.has(d)) || PLAYGROUND_DIRS.has(dirs[0] ?? '')) return 'example';
  const shallow = dirs.length === 0 || (dirs.length === 1 && ['src', 'lib', 'bin', 'app'].includes(dirs[0] ?? ''));
  if (dirs.includes('bin') || dirs[0] === 'cmd' && stem === 'main' || (shallow && ENTRY_STEMS.has(stem))) return 'entry_point';
  return 'source';
}

/**
 * A test folder: one of TEST_DIRS, or a name that joins `test(s)` to another word (`tokio-test`, `tests-integration`,
 * `integration-test`, `test-helpers`, `rubi_tests`): test crates, suites and their helpers.
 */
function isTestDir(dir: string): boolean {
  return TEST_DIRS.has(dir) || /^tests?[-_]|[-_]tests?$/.test(dir);
}

/** `x.test.ts`, `x_test.go`, `test_x.py`, `conftest.py`, `FooTest.java`, `foo_spec.rb`, tsd's `index.test-d.ts`. */
function isTestFileName(filePath: string, stem: string, ext: string): boolean {
  if (/[._-](test|spec)s?(?:-d)?(?:\.d)?$/.test(stem) || /^test_/.test(stem) || stem === 'conftest') return true;
  const original = path.posix.basename(filePath, path.posix.extname(filePath));
  return ['.java', '.cs', '.kt', '.scala', '.php', '.swift'].includes(ext) && /[a-z0-9](Test|Tests|Spec)$/.test(original);
}

const ROLE_WORDS: Record<FileRole, string> = {
  source: 'source',
  test: 'test',
  config: 'configuration',
  entry_point: 'entry point',
  docs: 'documentation',
  build: 'build script',
  example: 'example',
  data: 'data',
  generated: 'generated code',
  types: 'type declarations',
  benchmark: 'benchmark',
  lockfile: 'lock file',
};

/** DeepCode's free-text `file_type`, built from facts: "TypeScript source", "Python test", "YAML configuration". */
export function describeFileType(language: string, role: FileRole): string {
  return `${language} ${ROLE_WORDS[role]}`;
}
