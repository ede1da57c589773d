/**
 * Freshness: whether each loaded index still describes its repository as it is on disk, so an agent knows
 * when to re-index instead of re-indexing blindly or trusting an old answer. The check is cheap and bounded:
 * `git rev-parse HEAD` (milliseconds at any size), then `git status -uno` (tracked files only) under a short
 * time limit, since it grows with the work tree; only when an index was made from a dirty tree, a stat of at
 * most MAX_STATS changed files. At most CONCURRENT_CHECKS git processes run at once. A repository that is
 * not on disk (indexes copied from CI) is not checked.
 */
import { closeSync, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { LimitFunction } from 'p-limit';
import type { AnalysisMetadata } from '../index/types.js';
import type { IndexedState, LoadedIndex } from './types.js';

export interface RepoFreshness {
  repo_name: string;
  /** The index's key (its file name without `.json`). */
  index: string;
  repo_path: string | null;
  /** The commit the index was made from: the index's `analysis_metadata.git_commit`, under the same name. */
  git_commit: string | null;
  /** Whether tracked files differed from `git_commit` when it was indexed. */
  git_dirty: boolean | null;
  /** Whether the repository on disk was looked at; when not, `reason` says why. */
  checked: boolean;
  stale: boolean;
  /** Why the index is stale, or why it was not checked (or not fully). */
  reason?: string;
  /** HEAD on disk, when it differs from the indexed commit. */
  head_commit?: string;
}

/** Runs git in a folder and answers its stdout; rejects on failure or after the time limit (ms). */
export type GitQuery = (args: string[], cwd: string, timeoutMs?: number) => Promise<string>;

export interface FreshnessOptions {
  git?: GitQuery;
  /** Modification time of a file in ms, or null when it is gone. */
  mtime?: (file: string) => Promise<number | null>;
}

const GIT_TIMEOUT_MS = 2000;
/** `git status` stats every tracked file: past this, a search answers without waiting for it. */
const STATUS_TIMEOUT_MS = 1000;
const MAX_STATS = 200;
const CONCURRENT_CHECKS = 4;

/**
 * A git runner of its own: at most CONCURRENT_CHECKS git processes at once, however many indexes it is asked
 * about. child_process and p-limit are loaded by the first call: most searches ask git nothing (indexes of
 * folders that are not work trees, or not on disk), and loading them is a noticeable part of a cold search.
 */
export function gitQuery(): GitQuery {
  let gitLimit: Promise<LimitFunction> | undefined;
  return async (args, cwd, timeoutMs = GIT_TIMEOUT_MS) => {
    gitLimit ??= import('p-limit').then(({ default: pLimit }) => pLimit(CONCURRENT_CHECKS));
    const [limit, { execFile }] = await Promise.all([gitLimit, import('node:child_process')]);
    return limit(
      () =>
        new Promise<string>((resolve, reject) => {
          execFile('git', args, { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
        }),
    );
  };
}

const fileMtime = async (file: string): Promise<number | null> => {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return null;
  }
};

export async function checkFreshness(loaded: readonly LoadedIndex[], options: FreshnessOptions = {}): Promise<RepoFreshness[]> {
  const git = options.git ?? gitQuery();
  const mtime = options.mtime ?? fileMtime;
  return Promise.all(loaded.map((l) => checkOne(l, git, mtime)));
}

/** How long a repository's freshness, once checked, is taken as it was: a client's burst of calls checks git once. */
const FRESHNESS_TTL_MS = 2000;

/**
 * `checkFreshness` with answers kept for `ttlMs` per loaded index, for a server answering bursts of calls: a
 * reloaded index is a new object, so a re-index is seen at once; a repository moving on, within `ttlMs`.
 */
export function freshnessWithin(ttlMs = FRESHNESS_TTL_MS, options: FreshnessOptions & { now?: () => number } = {}): (loaded: readonly LoadedIndex[]) => Promise<RepoFreshness[]> {
  const git = options.git ?? gitQuery();
  const mtime = options.mtime ?? fileMtime;
  const now = options.now ?? Date.now;
  const memo = new WeakMap<LoadedIndex, { at: number; answer: Promise<RepoFreshness> }>();
  return (loaded) =>
    Promise.all(
      loaded.map((l) => {
        const hit = memo.get(l);
        if (hit && now() - hit.at < ttlMs) return hit.answer;
        const answer = checkOne(l, git, mtime);
        memo.set(l, { at: now(), answer });
        return answer;
      }),
    );
}

async function checkOne(loaded: LoadedIndex, git: GitQuery, mtime: (file: string) => Promise<number | null>): Promise<RepoFreshness> {
  const meta = indexMetadata(loaded);
  const repoName = loaded.packed?.repoName ?? loaded.index.repo_name;
  const base = {
    repo_name: repoName,
    index: loaded.key,
    repo_path: meta?.repo_path ?? null,
    git_commit: meta?.git_commit ?? null,
    git_dirty: meta?.git_dirty ?? null,
  };
  const unchecked = (reason: string): RepoFreshness => ({ ...base, checked: false, stale: false, reason });
  const stale = (reason: string, extra: Partial<RepoFreshness> = {}): RepoFreshness => ({ ...base, checked: true, stale: true, reason, ...extra });
  if (!meta) return unchecked('the index records no analysis_metadata');
  if (!meta.repo_path) return unchecked('the index records no repository path');
  // Synchronous: one stat per index, and a search over many indexes would otherwise queue them in libuv's pool.
  if (!isFolder(meta.repo_path)) return unchecked(`repository not on disk at ${meta.repo_path}`);
  if (!meta.git_commit) return unchecked('the repository was not a git work tree when indexed');

  let head: string;
  let top: string;
  try {
    [head = '', top = ''] = (await git(['rev-parse', 'HEAD', '--show-toplevel'], meta.repo_path)).trim().split('\n');
  } catch {
    return unchecked('git could not read the repository (not a work tree now, no commit, or git timed out)');
  }
  if (head !== meta.git_commit) {
    return stale(`HEAD moved from ${short(meta.git_commit)} to ${short(head)} since indexing`, { head_commit: head });
  }
  let changed: string[];
  try {
    changed = changedFiles(await git(['status', '--porcelain=v2', '-z', '-uno', '--', '.'], meta.repo_path, STATUS_TIMEOUT_MS));
  } catch {
    return { ...base, checked: true, stale: false, reason: `HEAD is the indexed commit; edits to tracked files not checked (git status gave no answer within ${STATUS_TIMEOUT_MS} ms)` };
  }
  if (changed.length === 0) {
    return meta.git_dirty ? stale(`the uncommitted changes that were indexed are gone; the work tree now matches ${short(head)}`) : { ...base, checked: true, stale: false };
  }
  if (!meta.git_dirty) {
    return stale(`${plural(changed.length, 'tracked file')} changed since indexing (${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ', …' : ''})`);
  }
  // Indexed with uncommitted changes and still dirty: a changed file modified after the run began is news, and so
  // is a deleted one the index still holds (one deleted before the run is not in it).
  const startedAt = Date.parse(meta.analysis_date ?? '') - (meta.duration_ms ?? 0);
  // Relative to the folder as git sees it: git's paths are real ones.
  const repoPath = realFolder(meta.repo_path);
  let held: ReadonlySet<string> | null = null;
  for (const file of changed.slice(0, MAX_STATS)) {
    const absolute = path.join(top, file);
    const modified = await mtime(absolute);
    if (modified === null) {
      held ??= indexedPaths(loaded);
      if (held.has(path.relative(repoPath, absolute).split(path.sep).join('/'))) return stale(`${file} was deleted since indexing (uncommitted)`);
    } else if (modified > startedAt) {
      return stale(`${file} changed since indexing (uncommitted)`);
    }
  }
  return { ...base, checked: true, stale: false };
}

/** The paths of the files an index holds: its pack's searchable files, or every entry of the whole index. */
function indexedPaths(loaded: LoadedIndex): Set<string> {
  const packed = loaded.packed;
  if (!packed) return new Set(loaded.index.file_summaries.map((f) => f.file_path));
  const paths = new Set<string>();
  for (let d = 0; d < packed.size; d++) paths.add(packed.fieldIndex.paths.at(packed.start + d) as string);
  return paths;
}

function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}

function isFolder(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/** Fields before the path in `git status --porcelain=v2` entries: ordinary (1), renamed or copied (2), unmerged (u). */
const PATH_FIELD: Record<string, number> = { '1': 8, '2': 9, u: 10 };

/**
 * The changed tracked files in `git status --porcelain=v2 -z`, relative to the top of the work tree; a
 * rename's source follows it as a separate entry and is passed over.
 */
export function changedFiles(output: string): string[] {
  const entries = output.split('\0');
  const changed: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as string;
    const skip = PATH_FIELD[entry[0] ?? ''];
    if (skip === undefined) continue;
    changed.push(entry.split(' ').slice(skip).join(' '));
    if (entry[0] === '2') i++;
  }
  return changed;
}

const short = (commit: string): string => commit.slice(0, 12);
const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * The fields of metadata the check reads, each kept only when it has its type (metadata may come from a damaged
 * file); null when there are none.
 */
export function indexedStateOf(metadata: unknown): IndexedState | null {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return null;
  const m = metadata as Record<string, unknown>;
  const state: IndexedState = {};
  if (typeof m.repo_path === 'string') state.repo_path = m.repo_path;
  if (typeof m.git_commit === 'string' || m.git_commit === null) state.git_commit = m.git_commit;
  if (typeof m.git_dirty === 'boolean' || m.git_dirty === null) state.git_dirty = m.git_dirty;
  if (typeof m.analysis_date === 'string') state.analysis_date = m.analysis_date;
  if (typeof m.duration_ms === 'number') state.duration_ms = m.duration_ms;
  return Object.keys(state).length > 0 ? state : null;
}

function indexMetadata(loaded: LoadedIndex): IndexedState | null {
  return loaded.packed ? loaded.packed.indexed : indexedStateOf(loaded.index.analysis_metadata);
}

/** Metadata is a few kilobytes; a long `.coderagignore` or many skip reasons can make it more. */
const TAIL_BYTES = [8 * 1024, 256 * 1024];

export function readTrailingMetadata(file: string): AnalysisMetadata | null {
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    for (const bytes of TAIL_BYTES) {
      const length = Math.min(size, bytes);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      const tail = buffer.toString('utf8');
      const at = tail.lastIndexOf('"analysis_metadata"');
      if (at < 0) {
        if (length === size) return null;
        continue;
      }
      const body = tail.slice(tail.indexOf(':', at) + 1).trimEnd();
      if (!body.endsWith('}')) return null;
      const value = JSON.parse(body.slice(0, -1)) as unknown;
      return typeof value === 'object' && value !== null ? (value as AnalysisMetadata) : null;
    }
    return null;
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
