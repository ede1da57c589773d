/**
 * Walk: the repository's candidate files as repo-relative POSIX paths. In a git work tree, git itself lists
 * them (`ls-files --cached --others --exclude-standard`: every .gitignore, nested ones too, and
 * .git/info/exclude); elsewhere fast-glob lists them and the `ignore` package applies the same files.
 * Symlinked directories are never followed (so no loops); a symlinked file is kept only when it points
 * inside the repository. `.coderagignore` files (gitignore syntax, at the root or in any folder) exclude more,
 * whether or not .gitignore is honoured, and the walk counts what each of their rules excluded.
 *
 * CodeRAG never indexes what it writes, whatever .gitignore says: the output and cache folders it is given
 * (compared as resolved absolute paths), and wherever they are, the folders that hold its indexes (a search
 * pack folder or a reuse state beside them), its answer caches (`ab/ab…64 hex….json`), state files and shard
 * files. So a run from inside the repository it indexes, or shards whose runners left different things
 * behind, walk the same files.
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FileSystemAdapter } from 'fast-glob';
import ignore, { type Ignore } from 'ignore';
import type { WalkedFile } from '../extract/walkedFile.js';
import { compareCodeUnits } from '../shared/text.js';

const execFileAsync = promisify(execFile);

export interface WalkOptions {
  supportedExtensions: readonly string[];
  skipDirectories: readonly string[];
  respectGitignore: boolean;
  /**
   * Whether build output outside git (BUILD_OUTPUT_DIRECTORIES) is skipped: the config's `skip_generated`, since
   * build output is generated code. True when not given.
   */
  skipBuildOutput?: boolean;
  /** CodeRAG's own output and cache folders (absolute, or relative to the working directory): never walked. */
  ownOutput?: readonly string[];
  /** The file system a folder outside git is listed from (fast-glob's adapter); Node's by default. */
  fs?: Partial<FileSystemAdapter>;
}

export interface WalkResult {
  files: WalkedFile[];
  /** Symlinks that point out of the repository: recorded, never read. */
  outside: WalkedFile[];
  /** Which source listed the files: git, or the filesystem with .gitignore rules applied by us. */
  source: 'git' | 'filesystem';
  gitCommit: string | null;
  /** Whether tracked files differed from the commit when the walk ran (`git status --porcelain -uno`); null outside git. */
  gitDirty: boolean | null;
  /** Candidate files each `.coderagignore` rule excluded, by rule (`pattern`, or `pattern (in folder/)` for a nested file). */
  excludedByRule: Record<string, number>;
  /** CodeRAG's own files and folders the walk left out (repo-relative, folders with a trailing `/`), when they held candidates. */
  ownOutput: string[];
  /** Folders that could not be listed or looked into (permission denied), repo-relative with a trailing `/`: their files are not in `files`. */
  unreadable: string[];
  /**
   * Folders skipped by name (`skipDirectories`, and build output outside git), repo-relative with a trailing `/`,
   * with the files of supported extensions each held: what the closing line says was left out.
   */
  skippedFolders: Record<string, number>;
}

/**
 * Names of build output that may as well be source (`build/build-validation.js`): in a git work tree git's
 * ignore rules decide (an ignored `target/` is never listed); outside git, with no such say, they are skipped, unless
 * the config keeps generated files (`skip_generated: false`).
 */
const BUILD_OUTPUT_DIRECTORIES: readonly string[] = ['build', 'out', 'target', 'env'];

/** Skipped folders a walk outside git does not even list (version control, installed packages, caches): not counted. */
const NEVER_ENTERED: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', 'node_modules', 'bower_components', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache', '.pytest_cache', '.ruff_cache', '.cache', '.gradle', '.terraform', '.next', '.nuxt']);

/** The tool's own ignore file, beside `.gitignore`. */
export const CODERAG_IGNORE = '.coderagignore';

export interface GitRunner {
  (args: string[], cwd: string): Promise<string>;
}

/**
 * Runs git in `cwd`. In a folder with no git directory in it or above it, where every question would fail,
 * fails at once without starting git: a run outside git would otherwise start half a dozen git processes to
 * learn that. `GIT_DIR` in the environment leaves the answer to git.
 */
export const runGit: GitRunner = async (args, cwd) => {
  if (!mayBeInGitRepository(cwd)) throw new Error(`not a git repository: no .git in ${cwd} or above it`);
  const { stdout } = await execFileAsync('git', args, { cwd, maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' });
  return stdout;
};

/**
 * Whether git may find a repository from `dir`: `GIT_DIR` is set, or `dir` or a folder above it holds `.git` (a
 * folder, or the file of a linked work tree or submodule) or is itself a git directory (`HEAD`, `objects`, `refs`).
 * False only where git's own discovery finds nothing.
 */
export function mayBeInGitRepository(dir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.GIT_DIR) return true;
  // git looks up from the folder itself, not from the symbolic link that named it.
  let start = path.resolve(dir);
  try {
    start = realpathSync(start);
  } catch {
    // Not there: git will say so.
    return true;
  }
  for (let at = start; ; ) {
    if (existsSync(path.join(at, '.git'))) return true;
    if (existsSync(path.join(at, 'HEAD')) && existsSync(path.join(at, 'objects')) && existsSync(path.join(at, 'refs'))) return true;
    const parent = path.dirname(at);
    if (parent === at) return false;
    at = parent;
  }
}

export async function walkRepository(repoPath: string, options: WalkOptions, git: GitRunner = runGit): Promise<WalkResult> {
  const root = await realpath(repoPath);
  // Every question for git is asked at once; outside a work tree the answers are failures, and ignored.
  const asked = options.respectGitignore ? { list: listWithGit(root, git), head: headCommit(root, git), dirty: hasTrackedChanges(root, git) } : null;
  const listed = asked ? await asked.list : null;
  const unreadable = new Set<string>();
  const candidates = listed ?? (await listWithGlob(root, options, unreadable));
  const extensions = new Set(options.supportedExtensions.map((e) => e.toLowerCase()));
  const skip = new Set(listed || options.skipBuildOutput === false ? options.skipDirectories : [...options.skipDirectories, ...BUILD_OUTPUT_DIRECTORIES]);
  const skippedFolders: Record<string, number> = {};
  const ownRules = await loadIgnoreFiles(root, candidates, CODERAG_IGNORE);
  const excludedByRule: Record<string, number> = {};
  const ownOutput = ownOutputOf(root, candidates, options.ownOutput ?? []);
  const leftOut = new Set<string>();

  const files: WalkedFile[] = [];
  const outside: WalkedFile[] = [];
  let looked = 0;
  for (const relative of [...new Set(candidates)].sort()) {
    if (!extensions.has(path.posix.extname(relative).toLowerCase())) continue;
    const segments = relative.split('/');
    const skippedAt = segments.findIndex((segment, i) => i < segments.length - 1 && skip.has(segment));
    if (skippedAt >= 0) {
      const folder = `${segments.slice(0, skippedAt + 1).join('/')}/`;
      skippedFolders[folder] = (skippedFolders[folder] ?? 0) + 1;
      continue;
    }
    const own = ownOutput(relative);
    if (own !== null) {
      leftOut.add(own);
      continue;
    }
    const rule = excludingRule(relative, ownRules);
    if (rule !== null) {
      excludedByRule[rule] = (excludedByRule[rule] ?? 0) + 1;
      continue;
    }
    // Stat calls answered from the inode cache are far cheaper made at once than through the thread pool;
    // the event loop gets a turn every few thousand.
    if (++looked % STATS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const absolute = path.join(root, ...segments);
    const entry = statCandidate(root, absolute);
    if (entry === DENIED) unreadable.add(`${segments.slice(0, -1).join('/') || '.'}/`);
    if (!entry || entry === DENIED) continue;
    const file = { path: relative, absolute, size: entry.size, mtimeMs: entry.mtimeMs };
    if (entry.outside) outside.push(file);
    else files.push(file);
  }
  const gitCommit = listed && asked ? await asked.head : null;
  const gitDirty = gitCommit && asked ? await asked.dirty : null;
  // Nor is one .coderagignore excludes, one inside a skipped folder (listed only to be counted), or CodeRAG's own output.
  const missed = [...unreadable].filter((folder) => folder === './' || (!folder.split('/').some((s) => skip.has(s)) && excludingRule(folder, ownRules) === null && ownOutput(folder) === null));
  return { files, outside, source: listed ? 'git' : 'filesystem', gitCommit, gitDirty, excludedByRule, ownOutput: [...leftOut].sort(), unreadable: missed.sort(), skippedFolders: sortedCounts(skippedFolders) };
}

/** Counts with their keys in code order, so an index says them alike from run to run. */
function sortedCounts(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => compareCodeUnits(a, b)));
}

/** A search pack folder (search/pack.ts PACK_DIR): it sits beside the indexes it serves. */
const PACK_FOLDER = '.coderag-search';
/** A reuse state, `.<index file>.state` (incremental/reuseState.ts), beside the index it describes. */
const STATE_FILE = /^\.(.+\.json)\.state$/;
/** A partial index of `coderag index --shard i/n` (shard.ts shardFileName). */
const SHARD_FILE = /\.shard-\d+-of-\d+\.json$/;
/** An answer of the profile cache: `<first two hex digits>/<64 hex digits>.json` (cache/profileCache.ts). */
const CACHE_ENTRY = /(?:^|\/)([0-9a-f]{2})\/\1[0-9a-f]{62}\.json$/;

/**
 * Which of CodeRAG's own things a candidate belongs to (its label: a folder with a trailing `/`, or a file),
 * or null: the folders given, as resolved paths; and, wherever they are, folders holding CodeRAG's indexes
 * or answer caches, search packs, reuse states and shard files. The repository's root is never left out
 * whole: an index written into it is left out file by file.
 */
function ownOutputOf(root: string, candidates: readonly string[], given: readonly string[]): (relative: string) => string | null {
  const folders = new Set<string>();
  for (const dir of given) {
    const relative = path.relative(root, resolvedPath(dir)).split(path.sep).join('/');
    if (relative && !relative.startsWith('..') && !path.isAbsolute(relative)) folders.add(relative);
  }
  const ownFiles = new Set<string>();
  for (const candidate of candidates) {
    const slash = candidate.lastIndexOf('/');
    const dir = slash < 0 ? '' : candidate.slice(0, slash);
    const name = candidate.slice(slash + 1);
    const packAt = `/${candidate}`.indexOf(`/${PACK_FOLDER}/`);
    const state = STATE_FILE.exec(name);
    const cache = CACHE_ENTRY.exec(candidate);
    const holder = packAt >= 0 ? candidate.slice(0, Math.max(0, packAt - 1)) : state ? dir : cache ? candidate.slice(0, Math.max(0, candidate.length - name.length - 4)) : null;
    if (holder === null) continue;
    if (holder) folders.add(holder);
    else if (state) ownFiles.add(state[1] as string);
  }
  const ordered = [...folders].sort();
  return (relative) => {
    for (const folder of ordered) if (relative === folder || relative.startsWith(`${folder}/`)) return `${folder}/`;
    const packAt = `/${relative}`.indexOf(`/${PACK_FOLDER}/`);
    if (packAt >= 0) return `${relative.slice(0, packAt)}${PACK_FOLDER}/`;
    const name = relative.slice(relative.lastIndexOf('/') + 1);
    if (STATE_FILE.test(name) || SHARD_FILE.test(name) || ownFiles.has(relative) || CACHE_ENTRY.test(relative)) return relative;
    return null;
  };
}

/** An absolute path with its symbolic links resolved, as far as it exists (the rest appended as given). */
function resolvedPath(dir: string): string {
  const absolute = path.resolve(dir);
  let existing = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(realpathSync(existing), ...rest.reverse());
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) return absolute;
      rest.push(path.basename(existing));
      existing = parent;
    }
  }
}

const STATS_PER_TURN = 2000;

/** What a folder that may not be looked into answers. */
const DENIED = 'denied';
const isDenied = (error: unknown): boolean => ['EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException | null)?.code ?? '');

/**
 * A regular file (or a symlink to one), with its size and mtime; directories and broken links are dropped.
 * DENIED when its folder may not be looked into (a file git lists in a folder without search permission).
 */
function statCandidate(root: string, absolute: string): { size: number; mtimeMs: number; outside: boolean } | typeof DENIED | null {
  try {
    // Not only a missing path: a listed `a/b.ts` whose `a` is now a file throws ENOTDIR, a locked folder EACCES.
    const info = lstatSync(absolute, { throwIfNoEntry: false });
    if (!info) return null;
    if (info.isFile()) return { size: info.size, mtimeMs: info.mtimeMs, outside: false };
    if (!info.isSymbolicLink()) return null;
    const target = realpathSync(absolute);
    const targetInfo = statSync(target);
    if (!targetInfo.isFile()) return null;
    const inside = target === root || target.startsWith(root + path.sep);
    return { size: targetInfo.size, mtimeMs: targetInfo.mtimeMs, outside: !inside };
  } catch (error) {
    return isDenied(error) ? DENIED : null;
  }
}

async function listWithGit(root: string, git: GitRunner): Promise<string[] | null> {
  try {
    const [top, ignored, output] = await Promise.all([
      git(['rev-parse', '--show-toplevel'], root),
      isIgnoredByGit(root, git),
      git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root),
    ]);
    if (!top.trim() || ignored) return null;
    return output.split('\0').filter(Boolean);
  } catch {
    return null;
  }
}

/** A folder git itself ignores (a `node_modules` tree indexed as a corpus) has nothing for git to list. */
async function isIgnoredByGit(root: string, git: GitRunner): Promise<boolean> {
  try {
    await git(['check-ignore', '-q', '.'], root);
    return true;
  } catch {
    return false;
  }
}

async function headCommit(root: string, git: GitRunner): Promise<string | null> {
  try {
    return (await git(['rev-parse', 'HEAD'], root)).trim() || null;
  } catch {
    return null;
  }
}

/** Tracked files that differ from HEAD (staged or not); untracked files are not counted. */
async function hasTrackedChanges(root: string, git: GitRunner): Promise<boolean | null> {
  try {
    return (await git(['status', '--porcelain', '-uno', '--', '.'], root)).trim() !== '';
  } catch {
    return null;
  }
}

/** Every path under `root`; folders that may not be listed go into `unreadable` (repo-relative, with a trailing `/`). */
async function listWithGlob(root: string, options: WalkOptions, unreadable: Set<string>): Promise<string[]> {
  // Loaded here: a git work tree is listed by git, and a nightly run in one never needs the glob library.
  const [{ default: fg }, fs] = await Promise.all([import('fast-glob'), import('node:fs')]);
  const readdir = (options.fs?.readdir ?? fs.readdir) as (dir: string, settings: object, done: (error: NodeJS.ErrnoException | null, entries: unknown) => void) => void;
  // fast-glob drops a folder it cannot list without a word (suppressErrors); the walk says which.
  const noting = (dir: string, settings: object, done: (error: NodeJS.ErrnoException | null, entries: unknown) => void): void =>
    readdir(dir, settings, (error, entries) => {
      if (isDenied(error)) unreadable.add(`${path.relative(root, path.resolve(root, dir)).split(path.sep).join('/') || '.'}/`);
      done(error, entries);
    });
  const all = await fg('**/*', {
    cwd: root,
    dot: true,
    onlyFiles: false,
    followSymbolicLinks: false,
    // Folders that hold thousands of files nobody wrote are never entered; the other skipped ones are listed, so the
    // closing line can say how many files each held.
    ignore: options.skipDirectories.filter((dir) => NEVER_ENTERED.has(dir)).map((dir) => `**/${dir}/**`),
    suppressErrors: true,
    fs: { ...options.fs, readdir: noting as unknown as FileSystemAdapter['readdir'] },
  });
  const candidates = all.filter((p) => !p.endsWith('/'));
  if (!options.respectGitignore) return candidates;
  const rules = await loadIgnoreRules(root, candidates);
  // A folder the .gitignore leaves out (a database volume owned by another user) is missed on purpose.
  for (const folder of unreadable) if (folder !== './' && isIgnored(folder, rules)) unreadable.delete(folder);
  return candidates.filter((file) => !isIgnored(file, rules));
}

interface IgnoreRule {
  /** The folder the .gitignore sits in, '' for the root. */
  base: string;
  matcher: Ignore;
}

async function loadIgnoreRules(root: string, candidates: string[]): Promise<IgnoreRule[]> {
  const rules: IgnoreRule[] = [];
  const exclude = await readOptional(path.join(root, '.git', 'info', 'exclude'));
  if (exclude) rules.push({ base: '', matcher: ignore().add(exclude) });
  rules.push(...(await loadIgnoreFiles(root, candidates, '.gitignore')));
  return rules;
}

/** Every ignore file of that name among the candidates, shallowest first. */
async function loadIgnoreFiles(root: string, candidates: string[], name: string): Promise<IgnoreRule[]> {
  const rules: IgnoreRule[] = [];
  for (const file of candidates.filter((p) => p === name || p.endsWith(`/${name}`)).sort()) {
    const text = await readOptional(path.join(root, file));
    if (text) rules.push({ base: path.posix.dirname(file) === '.' ? '' : path.posix.dirname(file), matcher: ignore().add(text) });
  }
  return rules;
}

/** The rule of the first ignore file that excludes the file (a later `!pattern` in the same file re-includes). */
function excludingRule(file: string, rules: IgnoreRule[]): string | null {
  for (const rule of rules) {
    if (rule.base && !file.startsWith(`${rule.base}/`)) continue;
    const result = rule.matcher.test(rule.base ? file.slice(rule.base.length + 1) : file);
    if (!result.ignored) continue;
    const pattern = result.rule?.pattern ?? '?';
    return rule.base ? `${pattern} (in ${rule.base}/)` : pattern;
  }
  return null;
}

function isIgnored(file: string, rules: IgnoreRule[]): boolean {
  if (file === '.git' || file.startsWith('.git/')) return true;
  for (const rule of rules) {
    if (rule.base && !file.startsWith(`${rule.base}/`)) continue;
    const relative = rule.base ? file.slice(rule.base.length + 1) : file;
    if (rule.matcher.ignores(relative)) return true;
  }
  return false;
}

async function readOptional(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}
