/**
 * Loaded indexes kept between MCP tool calls. Each call checks the folder's `*.json` names, sizes and
 * modification times (a readdir and a stat per file), and reloads only when they differ, so a re-index
 * shows up on the next query without restarting the server.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { isIndexFileName, loadIndexes, type LoadOptions, type LoadResult } from '../search/load.js';
import type { LoadedIndex } from '../search/types.js';
import { SearchCorpus } from '../search/search.js';
import { readRepositoryFile } from '../search/sourceFiles.js';
import { errorMessage } from '../shared/errors.js';

export interface IndexSnapshot {
  /** The folder, resolved to an absolute path. */
  dir: string;
  indexes: readonly LoadedIndex[];
  warnings: readonly string[];
  corpus: SearchCorpus;
  /** The folder could not be read at all (missing, not a folder, no permission). */
  failed: boolean;
}

export interface IndexCacheOptions {
  /** Reads a folder of indexes. */
  load?: (dir: string, options?: LoadOptions) => Promise<LoadResult>;
  /** Fingerprints a folder's index files; throws when the folder cannot be read. */
  signature?: (dir: string) => Promise<string>;
  /** How many folders stay loaded; the least recently used one is dropped first. */
  maxFolders?: number;
  log?: (line: string) => void;
}

/** Where the tools get a folder's indexes: an `IndexCache`, or a server's own view of the indexes it serves. */
export type IndexSource = Pick<IndexCache, 'get' | 'forget'>;

interface Entry {
  signature: string;
  snapshot: Promise<IndexSnapshot>;
  /** The snapshot, once loaded. */
  settled?: IndexSnapshot;
}

export class IndexCache {
  private readonly entries = new Map<string, Entry>();
  private readonly load: (dir: string, options?: LoadOptions) => Promise<LoadResult>;
  private readonly signature: (dir: string) => Promise<string>;
  private readonly maxFolders: number;
  private readonly log: (line: string) => void;

  constructor(options: IndexCacheOptions = {}) {
    this.load = options.load ?? loadIndexes;
    this.signature = options.signature ?? folderSignature;
    this.maxFolders = options.maxFolders ?? 8;
    this.log = options.log ?? (() => {});
  }

  /**
   * The folder's indexes, from memory when its files are unchanged. Never rejects: a folder that cannot be read
   * gives no indexes and a warning. `packs: false` loads them again without search files, and keeps that.
   */
  async get(dir: string, { packs = true }: { packs?: boolean } = {}): Promise<IndexSnapshot> {
    const absolute = path.resolve(dir);
    let signature: string;
    try {
      signature = await this.signature(absolute);
    } catch (error) {
      this.entries.delete(absolute);
      return emptySnapshot(absolute, errorMessage(error));
    }
    const hit = this.entries.get(absolute);
    if (hit && hit.signature === signature && packs) {
      // Re-inserting keeps the Map in least-recently-used order.
      this.entries.delete(absolute);
      this.entries.set(absolute, hit);
      return hit.snapshot;
    }
    const entry: Entry = { signature, snapshot: this.build(absolute, hit !== undefined, packs) };
    this.entries.delete(absolute);
    this.entries.set(absolute, entry);
    void entry.snapshot.then((snapshot) => {
      entry.settled = snapshot;
      // A folder that vanished between the fingerprint and the read is looked at afresh next time.
      if (snapshot.failed && this.entries.get(absolute) === entry) this.entries.delete(absolute);
    });
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxFolders) break;
      this.entries.delete(key);
    }
    return entry.snapshot;
  }

  /**
   * Drops what is kept of the folder, when it is still `failed` (the snapshot a call found wanting), so the next
   * `get` loads it again; calls that failed together do not drop each other's reload.
   */
  forget(dir: string, failed: IndexSnapshot): void {
    const absolute = path.resolve(dir);
    if (this.entries.get(absolute)?.settled === failed) this.entries.delete(absolute);
  }

  private async build(dir: string, reload: boolean, packs: boolean): Promise<IndexSnapshot> {
    try {
      const { indexes, warnings } = await this.load(dir, { packs });
      this.log(`${reload ? 'reloaded' : 'loaded'} ${indexes.length} index(es) from ${dir}`);
      for (const warning of warnings) this.log(`warning: ${warning}`);
      return { dir, indexes, warnings, corpus: new SearchCorpus(indexes, { readFile: readRepositoryFile }), failed: false };
    } catch (error) {
      return emptySnapshot(dir, errorMessage(error));
    }
  }
}

function emptySnapshot(dir: string, warning: string): IndexSnapshot {
  return { dir, indexes: [], warnings: [warning], corpus: new SearchCorpus([]), failed: true };
}

/** Names, sizes and modification times of the folder's `*.json` files: what `loadIndexes` would read. */
// Synchronous file calls: a folder of dozens of indexes is stat'ed at every tool call, and asynchronous stats
// each wait their turn in libuv's thread pool, which costs more than the calls.
export async function folderSignature(dir: string): Promise<string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`indexes folder not found: ${dir}`, { cause: error });
    if (code === 'ENOTDIR') throw new Error(`not a folder: ${dir}`, { cause: error });
    throw error;
  }
  const parts = names
    .filter(isIndexFileName)
    .sort()
    .map((name) => {
      try {
        const info = statSync(path.join(dir, name));
        return `${name}\t${info.size}\t${info.mtimeMs}`;
      } catch {
        return `${name}\tgone`;
      }
    });
  return parts.join('\n');
}
