/**
 * One index per repository, wherever it is cloned. A repository is named by its git remote (`origin`, normalised:
 * `git@github.com:pallets/flask.git` and `https://github.com/pallets/flask` are both `flask`), by its folder when
 * it has none, or by `--name`; its index file is named after that name. So a clone in another folder, a CI
 * checkout and a developer's clone write and reuse one index, and a search never sees a repository twice.
 *
 * Two different repositories that would take one name (`a/app` and `b/app`) do not overwrite each other: the one
 * that finds the name taken by the other is named with its owner (the remote's) or its parent folder (`b/app`).
 * An index written before repositories were named this way (named after a folder, `flask-fresh_index.json`) is
 * adopted: the run takes its entries and, once the new index is written, removes it (`replaces`). `--name` names a
 * repository outright: a folder indexed with the name of an index that records no remote (or one without a remote
 * itself) updates that index, as a CI checkout of a repository first indexed elsewhere should.
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { readTrailingMetadata } from '../search/freshness.js';
import { isIndexFileName } from '../search/load.js';
import { normalizeRemote, remoteName, remoteOwnerAndName } from '../shared/gitRemote.js';
import { UsageError } from '../shared/errors.js';
import { stateFileFor } from './incremental/incremental.js';
import type { Shard } from './shard.js';
import { runGit, type GitRunner } from './walk.js';
import { indexFileName, indexPathFor } from './writeIndex.js';

/** Where one repository of a run is indexed, and under which name. */
export interface RepositoryTarget {
  /** As given on the command line. */
  repoPath: string;
  root: string;
  name: string;
  /** The normalised `origin` remote; null without one. */
  remote: string | null;
  outputPath: string;
  /**
   * The index whose entries the run may take: the one at outputPath, else an adopted one, else the index of another
   * repository that had the plain name (by blob and content only); null when there is none.
   */
  previous: string | null;
  /** Indexes of this repository under an older name, removed once the new index is written. */
  replaces: string[];
  /** Why the name is not the plain one, when it is not. */
  note?: string;
}

export interface ResolveOptions {
  config: Config;
  outDir: string;
  shard?: Shard | null;
  /** `--name`: the name of the one repository indexed. */
  name?: string;
  git?: GitRunner;
}

/** What a written index says of the repository it was made from. */
interface Recorded {
  path: string | null;
  remote: string | null;
}

/**
 * Names each repository, in the order given (a folder given twice taken once), and finds the index it reuses.
 * Two folders of one repository in one run are refused: they would write one index.
 */
export async function resolveRepositories(repoPaths: readonly string[], options: ResolveOptions): Promise<RepositoryTarget[]> {
  const git = options.git ?? runGit;
  if (options.name !== undefined) checkName(options.name);
  const unique = [...new Map(repoPaths.map((p) => [path.resolve(p), p])).entries()];
  if (options.name !== undefined && unique.length > 1) throw new UsageError('--name names one repository; index the others in their own runs');
  const identities = await Promise.all(unique.map(async ([root]) => ({ root, remote: await remoteOf(root, git) })));
  const claimed = new Map<string, RepositoryTarget>();
  const targets: RepositoryTarget[] = [];
  for (const [i, [root, repoPath]] of unique.entries()) {
    const { remote } = identities[i] as { remote: string | null };
    const plain = options.name ?? (remote ? remoteName(remote) : path.basename(root));
    const target = await place({ repoPath, root, remote }, plain, options, claimed);
    claimed.set(target.outputPath, target);
    targets.push(target);
  }
  return targets;
}

function checkName(name: string): void {
  if (!name.trim() || /[\\]|^\.|\/\/|^\/|\/$/.test(name) || name.length > 200) {
    throw new UsageError(`--name ${JSON.stringify(name)}: expected a repository name such as flask or pallets/flask`);
  }
}

async function place(
  repo: { repoPath: string; root: string; remote: string | null },
  plain: string,
  options: ResolveOptions,
  claimed: ReadonlyMap<string, RepositoryTarget>,
): Promise<RepositoryTarget> {
  const own = (name: string) => indexPathFor(options.outDir, options.config, name, options.shard);
  let name = plain;
  let note: string | undefined;
  // Another repository's index under the plain name: its entries are keyed by what files hold, so a fork's or
  // a copy's serve this one's first run (by git blob and content hash), though it is never overwritten.
  let seed: string | null = null;
  const sameRun = claimed.get(own(plain));
  const other = sameRun ? { path: sameRun.root, remote: sameRun.remote } : await recordedAt(own(plain));
  // `--name` says which repository a folder is: unless both it and the index under that name record a remote (and
  // they differ), the folder (a CI checkout, an unpacked archive) updates that index rather than being refused.
  const claimedByName = other !== null && options.name !== undefined && !sameRun && !(other.remote && repo.remote);
  if (other && claimedByName && !isSameRepository(other, repo)) {
    note = `indexed as ${plain} (--name): updates the index of ${other.remote ?? other.path ?? 'the repository'} named so`;
  } else if (other && !isSameRepository(other, repo)) {
    const qualified = `${repo.remote ? remoteOwnerAndName(repo.remote) : `${path.basename(path.dirname(repo.root))}/${plain}`}`;
    const takenBy = other.remote ?? other.path ?? 'another repository';
    if (options.name !== undefined || qualified === plain || claimed.has(own(qualified))) {
      throw new UsageError(`${repo.repoPath} and ${takenBy} are different repositories that would both be indexed as ${plain} into ${own(plain)}`, {
        hint: 'give this one another name with --name, or another --out folder',
      });
    }
    name = qualified;
    if (!sameRun) seed = own(plain);
    note = `indexed as ${name}: the name ${plain} is taken in ${options.outDir} by another repository (${takenBy}); --name sets another`;
  } else if (sameRun) {
    throw new UsageError(`${sameRun.repoPath} and ${repo.repoPath} are clones of one repository (${repo.remote ?? plain}): both would write ${own(plain)}`, {
      hint: 'index one of them, or give the other a --name in a run of its own',
    });
  }
  const outputPath = own(name);
  const replaces = options.shard ? [] : await sameRepositoryIndexes(legacyIndexes(options, outputPath), repo);
  const previous = existsSync(outputPath) ? outputPath : (replaces[0] ?? seed);
  return { repoPath: repo.repoPath, root: repo.root, name, remote: repo.remote, outputPath, previous, replaces, ...(note ? { note } : {}) };
}

/** The normalised `origin` of a folder that is the top of a git work tree; null otherwise (a folder inside another repository is not it). */
async function remoteOf(root: string, git: GitRunner): Promise<string | null> {
  try {
    const top = (await git(['rev-parse', '--show-toplevel'], root)).trim();
    if (!top || realpathSync(top) !== realpathSync(root)) return null;
    const url = (await git(['config', '--get', 'remote.origin.url'], root)).trim();
    return url ? normalizeRemote(url, root) : null;
  } catch {
    return null;
  }
}

/**
 * Whether a recorded index is of this repository: the same remote; with no remote on either side, the same folder,
 * or a folder that is gone (moved); a local remote that is the other's folder.
 */
function isSameRepository(recorded: Recorded, repo: { root: string; remote: string | null }): boolean {
  if (recorded.path !== null && path.resolve(recorded.path) === repo.root) return true;
  if (recorded.remote && repo.remote) return recorded.remote === repo.remote;
  if (recorded.remote && recorded.remote === repo.root) return true;
  if (repo.remote && recorded.path !== null && repo.remote === path.resolve(recorded.path)) return true;
  if (recorded.remote || repo.remote) return false;
  return recorded.path === null || !existsSync(recorded.path);
}

/** What the index at `file` records of its repository: its reuse state's header, else its metadata; null when there is no index. */
async function recordedAt(file: string): Promise<Recorded | null> {
  if (!existsSync(file)) return null;
  const state = await stateRepository(file);
  if (state) return state;
  const meta = readTrailingMetadata(file);
  return { path: meta?.repo_path ?? null, remote: meta?.repo_remote ?? null };
}

/** The repository a reuse state records (its first line), its origin normalised; null without a readable state. */
async function stateRepository(indexFile: string): Promise<Recorded | null> {
  let handle;
  try {
    handle = await open(stateFileFor(indexFile), 'r');
  } catch {
    return null;
  }
  try {
    const chunks: Buffer[] = [];
    const buffer = Buffer.allocUnsafe(1 << 16);
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      const end = buffer.subarray(0, bytesRead).indexOf(10);
      chunks.push(Buffer.from(buffer.subarray(0, end < 0 ? bytesRead : end)));
      if (end >= 0) break;
      position += bytesRead;
    }
    const header = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { repo?: { path?: unknown; origin?: unknown } };
    const recordedPath = typeof header.repo?.path === 'string' ? header.repo.path : null;
    const origin = typeof header.repo?.origin === 'string' ? normalizeRemote(header.repo.origin, recordedPath ?? undefined) : null;
    return { path: recordedPath, remote: origin };
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/**
 * Indexes in the output folder named after the folder they were made in, as CodeRAG named every index before
 * repositories were named by their remote, other than the one this run writes.
 */
function legacyIndexes(options: ResolveOptions, outputPath: string): string[] {
  let names: string[];
  try {
    names = readdirSync(options.outDir).filter(isIndexFileName);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const name of names.sort()) {
    const file = path.join(options.outDir, name);
    if (path.resolve(file) === path.resolve(outputPath)) continue;
    const meta = readTrailingMetadata(file);
    if (!meta?.repo_path || meta.repo_remote !== undefined || name !== indexFileName(options.config, path.basename(meta.repo_path))) continue;
    found.push(file);
  }
  return found;
}

/** Of the folder-named indexes found, those of this repository: made in its folder, or in a clone of its remote. */
async function sameRepositoryIndexes(files: readonly string[], repo: { root: string; remote: string | null }): Promise<string[]> {
  const kept: string[] = [];
  for (const file of files) {
    const recorded = await recordedAt(file);
    if (recorded && recorded.path !== null && isSameRepository(recorded, repo) && (recorded.remote !== null || path.resolve(recorded.path) === repo.root)) kept.push(file);
  }
  return kept;
}
