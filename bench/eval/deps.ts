/**
 * The dependency-folder set: look-ups over the code npm packages ship ("which installed package does this?").
 *
 *   node --import tsx bench/eval/deps.ts --select --from FILE.tsv [--want N]   (re-pick deps-packages.json)
 *
 * The corpus is what `npm install` puts in node_modules: each package's shipped code (compiled `lib/`, `dist/`
 * bundles, UMD / ESM / CJS builds, `.d.ts` declarations), every package searched together. The query is the first
 * descriptive sentence of the package's shipped README with the package's names removed (describe.ts's rules);
 * the answer is the package; a ranker returns files and a package ranks where its best file ranks. npm's
 * `description` field is never read: sets built from it are held out (issue 20).
 *
 * Reproducible on a fresh machine: deps-packages.json lists `name@exact-version` (never the tarballs); run.ts
 * installs them into bench/.work/deps-install with `npm install --ignore-scripts` from the registry and copies each
 * package's candidate files into bench/.work/deps/<scope+name@version>/. READMEs, markdown, package.json, licences
 * and changelogs are not candidates (they hold the query's words), nor are minified twins (`*.min.*`), source maps
 * or a package's own node_modules.
 *
 * How the list was chosen (`--select`): the npm packages with the most downloads a month in a registry listing
 * (name, version, downloads; its summaries, which are npm's description field, are not read), most first,
 * skipping held-out names, type-only `@types/*` packages and platform binaries; a package is kept when its shipped
 * README has a descriptive sentence leaving at least MIN_QUERY_WORDS words without its names and it ships a code
 * file; the first DEFAULT_WANT kept form the list. Nothing about how any ranker does on a package is looked at.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIN_QUERY_WORDS, composeDescription, isHeldOut, majorityLanguage, nameVariants, readmeSentences } from './describe.js';
import { configSchema } from '../../src/config/schema.js';
import type { Language } from './types.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const DEPS_LIST_FILE = join(HERE, 'deps-packages.json');
export const DEPS_INSTALL_DIR = resolve(HERE, '..', '.work', 'deps-install');
export const DEPS_DIR = resolve(HERE, '..', '.work', 'deps');

/** Packages kept by `--select`. */
export const DEFAULT_WANT = 72;
/** Files indexed per package, the shallowest first (as the description set caps repositories). */
export const FILES_PER_PACKAGE = 60;
/** CodeRAG's default `max_file_size`: larger shipped files are left out for every ranker alike. */
export const MAX_FILE_BYTES = 1_048_576;

/** Build folders CodeRAG skips by default and packages ship their code in. */
const BUILD_FOLDERS = new Set(['dist', 'build', 'out']);

/**
 * CodeRAG's index configuration for this set: the default, less the build folders among the skipped directories
 * (indexing a dependency folder means indexing its builds, as a user pointing CodeRAG at node_modules would set).
 */
export function depsIndexConfig(): { file_analysis: { skip_directories: string[] } } {
  const skip = configSchema.parse({}).file_analysis.skip_directories.filter((d) => !BUILD_FOLDERS.has(d));
  return { file_analysis: { skip_directories: skip } };
}

/** The committed list. */
export interface DepsList {
  rule: string;
  packages: string[];
}

/** One package case: the query, and the package's candidate files. */
export interface DepsCase {
  /** `name@version`, the id the half is drawn from. */
  spec: string;
  name: string;
  version: string;
  /** Folder under DEPS_DIR: `scope+name@version`. */
  root: string;
  language: Language;
  query: string;
  /** Package-relative candidate files (at most FILES_PER_PACKAGE). */
  files: string[];
}

/** `name@version` → its parts; a scoped name keeps its `@`. */
export function splitSpec(spec: string): { name: string; version: string } {
  const at = spec.lastIndexOf('@');
  if (at <= 0) throw new Error(`"${spec}" is not name@version`);
  return { name: spec.slice(0, at), version: spec.slice(at + 1) };
}

/** A package's folder name under DEPS_DIR. */
export function depsRoot(spec: string): string {
  return spec.replace(/^@/, '').replace('/', '+');
}

const CODE_EXTS = new Set(['.js', '.mjs', '.cjs', '.jsx', '.ts', '.mts', '.cts', '.tsx']);

/** The candidate rule: shipped code (builds and declarations), not minified twins, maps or nested dependencies. */
export function isDepsCandidate(path: string): boolean {
  const parts = path.split('/');
  const base = parts[parts.length - 1] ?? '';
  if (!CODE_EXTS.has(posix.extname(base).toLowerCase())) return false;
  if (parts.slice(0, -1).some((s) => s === 'node_modules' || s.startsWith('.'))) return false;
  return !/\.min\.[^.]+$/i.test(base) && !base.startsWith('.');
}

/** The indexed files of a package: candidates up to MAX_FILE_BYTES, the shallowest first, then by path. */
export function pickPackageFiles(entries: ReadonlyArray<{ path: string; size: number }>, cap = FILES_PER_PACKAGE): string[] {
  const depth = (p: string): number => p.split('/').length;
  return entries
    .filter((e) => e.size <= MAX_FILE_BYTES && isDepsCandidate(e.path))
    .map((e) => e.path)
    .sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, cap);
}

/** The names removed from a package's query: its name, unscoped, and scope and name together (`babel types`). */
export function packageNames(name: string): string[] {
  const scoped = /^@([^/]+)\/(.+)$/.exec(name);
  return nameVariants(scoped ? [name, `${scoped[1]}-${scoped[2]}`] : [name]);
}

const README = /^readme(\.(md|markdown|rst|txt))?$/i;

/**
 * Names the `--select` rule skips before looking at a package: held-out names, type-only packages and platform
 * binaries (`@rollup/rollup-linux-x64-musl`, `@esbuild/darwin-arm64`).
 */
export function skippedByName(name: string): boolean {
  const base = name.replace(/^@[^/]+\//, '');
  return isHeldOut(base) || name.startsWith('@types/') || /(^|[-/])(linux|darwin|win32|android|freebsd|openbsd|sunos|aix)([-/]|$)/.test(name);
}

function listFiles(dir: string, rel = ''): Array<{ path: string; size: number }> {
  const out: Array<{ path: string; size: number }> = [];
  for (const d of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) {
      if (d.name !== 'node_modules') out.push(...listFiles(dir, p));
    } else if (d.isFile()) out.push({ path: p, size: statSync(join(dir, p)).size });
  }
  return out;
}

/** A package's case from its installed folder, or why it has none. Reads the README and the file list only. */
export function depsCase(spec: string, packageDir: string): DepsCase | string {
  const { name, version } = splitSpec(spec);
  if (!existsSync(packageDir)) return 'not installed';
  const entries = listFiles(packageDir);
  const readme = entries.map((e) => e.path).filter((p) => !p.includes('/') && README.test(p)).sort()[0];
  if (!readme) return 'no README shipped';
  const sentences = readmeSentences(readFileSync(join(packageDir, readme), 'utf8'));
  if (sentences.length === 0) return `no descriptive sentence in ${readme}`;
  const { query } = composeDescription(sentences, packageNames(name));
  if ((query.match(/[A-Za-z][A-Za-z'-]*/g) ?? []).length < MIN_QUERY_WORDS) return `description too short once names are removed: "${query}"`;
  const files = pickPackageFiles(entries);
  if (files.length === 0) return 'no code file shipped';
  const language = majorityLanguage(files) ?? 'javascript';
  return { spec, name, version, root: depsRoot(spec), language, query, files };
}

/** Where npm put a package under an install prefix. */
export function installedDir(prefix: string, name: string): string {
  return join(prefix, 'node_modules', ...name.split('/'));
}

function installedVersion(prefix: string, name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(installedDir(prefix, name), 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

export type Exec = (cmd: string, args: readonly string[]) => void;
const npmExec: Exec = (cmd, args) => {
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
};

/** Installs the specs not already installed at their exact version into `prefix` (one npm call). */
export function ensureInstalled(specs: readonly string[], prefix: string, exec: Exec = npmExec): void {
  const missing = specs.filter((s) => {
    const { name, version } = splitSpec(s);
    return installedVersion(prefix, name) !== version;
  });
  if (missing.length === 0) return;
  mkdirSync(prefix, { recursive: true });
  console.error(`[deps] npm install of ${missing.length} package(s) into ${prefix}`);
  exec('npm', ['install', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', ...missing]);
}

/**
 * The set's cases from the committed list: installs what is missing, builds each case and copies its candidate
 * files into DEPS_DIR/<root>/ (a folder of candidates only, as the description set's). Skipped packages are told.
 */
export function prepareDeps(listFile = DEPS_LIST_FILE, exec: Exec = npmExec): DepsCase[] {
  const list = JSON.parse(readFileSync(listFile, 'utf8')) as DepsList;
  ensureInstalled(list.packages, DEPS_INSTALL_DIR, exec);
  const cases: DepsCase[] = [];
  for (const spec of list.packages) {
    const { name } = splitSpec(spec);
    if (skippedByName(name)) throw new Error(`${spec} is held out or skipped by name and must not be in ${listFile}`);
    const dir = installedDir(DEPS_INSTALL_DIR, name);
    const c = depsCase(spec, dir);
    if (typeof c === 'string') {
      console.error(`[deps] ${spec}: skipped, ${c}`);
      continue;
    }
    const into = join(DEPS_DIR, c.root);
    if (!existsSync(into)) {
      const tmp = `${into}.tmp-${process.pid}`;
      rmSync(tmp, { recursive: true, force: true });
      for (const f of c.files) {
        mkdirSync(dirname(join(tmp, f)), { recursive: true });
        cpSync(join(dir, f), join(tmp, f));
      }
      renameSync(tmp, into);
    }
    cases.push(c);
  }
  return cases;
}

/** Names of a registry listing (tab-separated: name, version, downloads a month, …), most downloads first. */
export function rankListing(tsv: string): Array<{ name: string; version: string }> {
  const rows: Array<{ name: string; version: string; downloads: number }> = [];
  for (const line of tsv.split('\n').slice(1)) {
    const [name, version, downloads] = line.split('\t');
    if (!name || !version || !downloads || !/^\d+$/.test(downloads)) continue;
    rows.push({ name, version, downloads: Number(downloads) });
  }
  return rows.sort((a, b) => b.downloads - a.downloads || (a.name < b.name ? -1 : 1)).map(({ name, version }) => ({ name, version }));
}

function select(from: string, want: number): void {
  const ranked = rankListing(readFileSync(from, 'utf8')).filter((r) => !skippedByName(r.name));
  const prefix = join(DEPS_INSTALL_DIR, '..', 'deps-select');
  const kept: string[] = [];
  for (let i = 0; i < ranked.length && kept.length < want; i += 20) {
    const batch = ranked.slice(i, i + 20).map((r) => `${r.name}@${r.version}`);
    try {
      ensureInstalled(batch, prefix);
    } catch {
      // One package that will not install fails the batch: try them one by one.
      for (const s of batch) {
        try {
          ensureInstalled([s], prefix);
        } catch {
          console.error(`[deps] ${s}: does not install; skipped`);
        }
      }
    }
    for (const spec of batch) {
      if (kept.length >= want) break;
      const c = depsCase(spec, installedDir(prefix, splitSpec(spec).name));
      if (typeof c === 'string') {
        console.error(`[deps] ${spec}: skipped, ${c}`);
        continue;
      }
      if (installedVersion(prefix, c.name) !== c.version) {
        console.error(`[deps] ${spec}: skipped, another version of it was installed at the top level`);
        continue;
      }
      console.error(`[deps] ${spec} (${c.files.length} files): ${c.query}`);
      kept.push(spec);
    }
  }
  const rule =
    'npm packages by downloads a month (most first), less held-out names, @types/* and platform binaries; ' +
    `kept when the shipped README has a descriptive sentence and the package ships code; the first ${want} kept`;
  writeFileSync(DEPS_LIST_FILE, JSON.stringify({ rule, packages: kept } satisfies DepsList, null, 2) + '\n');
  console.error(`[deps] wrote ${kept.length} packages to ${DEPS_LIST_FILE}`);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const args = process.argv.slice(2);
  const opt = (n: string): string | undefined => {
    const i = args.indexOf(n);
    return i >= 0 ? args[i + 1] : undefined;
  };
  try {
    const from = opt('--from');
    if (!args.includes('--select') || !from) throw new Error('usage: deps.ts --select --from LISTING.tsv [--want N]');
    select(from, Number(opt('--want') ?? DEFAULT_WANT));
  } catch (err) {
    console.error(`[deps] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
