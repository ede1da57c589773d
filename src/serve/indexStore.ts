/**
 * The indexes a server answers from, always whole. Each reading of the folder is a generation in a private
 * folder: an index file new or changed since the previous reading is copied there (a copy, not a link: `cp` or
 * `scp` onto an existing file rewrites it in place), an unchanged one is linked from the previous generation with
 * the search file built for it. So a `coderag index` or `merge` that renames a new index into place, or a copy
 * still under way, changes nothing under a request that started before it, and the search files a load writes
 * stay out of the served folder. An index that a new reading cannot load (half copied, corrupt) is answered from
 * its previous copy; a generation is removed once it is replaced and its last request has ended.
 */
import { copyFileSync, linkSync, mkdirSync, readdirSync, rmSync, statSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { folderSignature, type IndexSnapshot, type IndexSource } from '../mcp/indexCache.js';
import { isIndexFileName, loadIndexes, type LoadOptions, type LoadResult } from '../search/load.js';
import { folderPackPath } from '../search/folderPack.js';
import { packPathFor, type PackSource } from '../search/pack.js';
import { SearchCorpus } from '../search/search.js';
import { readRepositoryFile } from '../search/sourceFiles.js';
import type { LoadedIndex } from '../search/types.js';
import { errorMessage } from '../shared/errors.js';
import type { Scope } from './tokens.js';

/** What answers name as their indexes folder: the server's own path is nobody's business. */
export const SERVED_FOLDER = 'indexes';

export interface IndexStoreOptions {
  /** The served folder. */
  dir: string;
  /** A private folder for the generations; made if missing, removed by `close`. */
  stageDir: string;
  load?: (dir: string, options?: LoadOptions) => Promise<LoadResult>;
  signature?: (dir: string) => Promise<string>;
  log?: (line: string) => void;
  /** Scoped views kept per generation, least recently used dropped first. */
  maxViews?: number;
  /** How long the folder must be quiet after a change before it is read (a copy in several writes is read once). */
  settleMs?: number;
  /** How often the folder is looked at even without a change event (file systems that send none); 0: never. */
  pollMs?: number;
}

interface Generation {
  id: number;
  dir: string;
  /** Size, modification time and inode of the served file each staged index file is a copy of. */
  sources: ReadonlyMap<string, PackSource>;
  indexes: readonly LoadedIndex[];
  warnings: readonly string[];
  corpus: SearchCorpus;
  leases: number;
  retired: boolean;
  views: Map<string, IndexSnapshot>;
}

/** A request's hold on one generation: what it answers from until it calls `release`. */
export interface Lease {
  /** The indexes the scope may read, as the MCP tools take them. */
  source(scope: Scope): IndexSource;
  view(scope: Scope): IndexSnapshot;
  release(): void;
}

export class IndexStore {
  private current: Generation | null = null;
  private lastSignature: string | null = null;
  private nextId = 1;
  private refreshing: Promise<void> = Promise.resolve();
  private watcher: FSWatcher | null = null;
  private poller: NodeJS.Timeout | null = null;
  private settle: NodeJS.Timeout | null = null;
  private readonly load: (dir: string, options?: LoadOptions) => Promise<LoadResult>;
  private readonly signature: (dir: string) => Promise<string>;
  private readonly log: (line: string) => void;

  constructor(private readonly options: IndexStoreOptions) {
    this.load = options.load ?? loadIndexes;
    this.signature = options.signature ?? folderSignature;
    this.log = options.log ?? (() => {});
  }

  /** Reads the folder once, then follows its changes. */
  async start(): Promise<void> {
    mkdirSync(this.options.stageDir, { recursive: true });
    await this.refresh();
    const settleMs = this.options.settleMs ?? 250;
    try {
      this.watcher = watch(this.options.dir, { persistent: false }, () => this.refreshSoon(settleMs));
      this.watcher.on('error', (error) => this.log(`warning: stopped watching the indexes folder (${errorMessage(error)}); looking at it every ${this.options.pollMs ?? 0} ms`));
    } catch (error) {
      this.log(`warning: cannot watch the indexes folder (${(error as NodeJS.ErrnoException).code ?? 'error'}); looking at it on a timer`);
    }
    const pollMs = this.options.pollMs ?? 5000;
    if (pollMs > 0) {
      this.poller = setInterval(() => this.refreshSoon(0), pollMs);
      this.poller.unref();
    }
  }

  /** Reads the folder after `delayMs` of quiet. */
  refreshSoon(delayMs = 0): void {
    if (this.settle) clearTimeout(this.settle);
    this.settle = setTimeout(() => {
      this.settle = null;
      void this.refresh();
    }, delayMs);
    this.settle.unref();
  }

  /** Reads the folder when its index files changed since the last reading; one reading at a time. */
  refresh(): Promise<void> {
    this.refreshing = this.refreshing.then(() => this.readFolder()).catch((error: unknown) => this.log(`warning: could not read the indexes folder (${errorMessage(error)}); answering from the previous indexes`));
    return this.refreshing;
  }

  /** The newest generation, held until `release`. */
  acquire(): Lease {
    const generation = this.current ?? this.emptyGeneration();
    generation.leases += 1;
    let released = false;
    return {
      view: (scope) => this.viewOf(generation, scope),
      source: (scope) => {
        const view = this.viewOf(generation, scope);
        return {
          get: async (dir) => (dir === SERVED_FOLDER ? view : refusedFolder()),
          forget: () => this.refreshSoon(0),
        };
      },
      release: () => {
        if (released) return;
        released = true;
        generation.leases -= 1;
        this.dropIfDone(generation);
      },
    };
  }

  /** Repository names of the newest generation. */
  repositories(): string[] {
    return (this.current?.indexes ?? []).map(repoNameOf);
  }

  /** Stops following the folder and removes the generations: call it once no request is in flight. */
  close(): void {
    this.watcher?.close();
    if (this.poller) clearInterval(this.poller);
    if (this.settle) clearTimeout(this.settle);
    rmSync(this.options.stageDir, { recursive: true, force: true });
  }

  private async readFolder(): Promise<void> {
    const { dir } = this.options;
    const signature = await this.signature(dir);
    if (signature === this.lastSignature && this.current) return;
    const previous = this.current;
    const id = this.nextId++;
    const genDir = path.join(this.options.stageDir, `g${id}`);
    const sources = stage(dir, genDir, previous);
    const names = [...sources.keys()];
    const load = () => this.load(genDir, { sourceOf: (file) => sources.get(path.basename(file)) ?? statSync(file) });
    let result = await load();
    const kept: string[] = [];
    if (previous) {
      const loadedNow = new Set(result.indexes.map((l) => path.basename(l.file)));
      const loadedBefore = new Set(previous.indexes.map((l) => path.basename(l.file)));
      for (const name of names) {
        if (loadedNow.has(name) || !loadedBefore.has(name)) continue;
        // The previous copy is still linked in the previous generation's folder.
        link(path.join(previous.dir, name), path.join(genDir, name));
        link(packPathFor(path.join(previous.dir, name)), packPathFor(path.join(genDir, name)));
        const before = previous.sources.get(name);
        if (before) sources.set(name, before);
        const why = result.warnings.find((w) => w.includes(name)) ?? `${name} could not be read`;
        this.log(`kept the previous ${name}: ${displayed(why, genDir)}`);
        kept.push(name);
      }
      if (kept.length) result = await load();
    }
    const warnings = result.warnings.map((w) => displayed(w, genDir));
    for (const warning of warnings) this.log(`warning: ${warning}`);
    const generation: Generation = {
      id,
      dir: genDir,
      sources,
      indexes: result.indexes,
      warnings,
      corpus: new SearchCorpus(result.indexes, { readFile: readRepositoryFile }),
      leases: 0,
      retired: false,
      views: new Map(),
    };
    this.current = generation;
    this.lastSignature = signature;
    this.log(`${previous ? 'reloaded' : 'loaded'} ${result.indexes.length} index(es) (generation ${id})`);
    if (previous) {
      previous.retired = true;
      this.dropIfDone(previous);
    }
  }

  private viewOf(generation: Generation, scope: Scope): IndexSnapshot {
    const key = scope.all ? '*' : [...scope.repos].sort().join(',');
    const hit = generation.views.get(key);
    if (hit) {
      generation.views.delete(key);
      generation.views.set(key, hit);
      return hit;
    }
    let view: IndexSnapshot;
    if (scope.all) {
      view = { dir: SERVED_FOLDER, indexes: generation.indexes, warnings: generation.warnings, corpus: generation.corpus, failed: false };
    } else {
      const indexes = generation.indexes.filter((l) => scope.repos.has(repoNameOf(l)));
      // Folder warnings may name indexes outside the scope: a scoped token sees none of them.
      view = { dir: SERVED_FOLDER, indexes, warnings: [], corpus: new SearchCorpus(indexes, { readFile: readRepositoryFile }), failed: false };
    }
    generation.views.set(key, view);
    for (const old of generation.views.keys()) {
      if (generation.views.size <= (this.options.maxViews ?? 16)) break;
      generation.views.delete(old);
    }
    return view;
  }

  private dropIfDone(generation: Generation): void {
    if (!generation.retired || generation.leases > 0) return;
    generation.views.clear();
    rmSync(generation.dir, { recursive: true, force: true });
  }

  private emptyGeneration(): Generation {
    return { id: 0, dir: this.options.stageDir, sources: new Map(), indexes: [], warnings: [], corpus: new SearchCorpus([]), leases: 0, retired: false, views: new Map() };
  }
}

function repoNameOf(loaded: LoadedIndex): string {
  return loaded.packed?.repoName ?? loaded.index.repo_name;
}

function refusedFolder(): IndexSnapshot {
  return { dir: SERVED_FOLDER, indexes: [], warnings: ['this server answers from its own indexes only: leave indexes_path out'], corpus: new SearchCorpus([]), failed: true };
}

/** A warning as answers and logs show it: the private folder's path replaced by the served folder's name. */
function displayed(warning: string, genDir: string): string {
  return warning.split(genDir).join(SERVED_FOLDER);
}

/**
 * Stages the folder's index files in `genDir`: copied with their search files when new or changed since
 * `previous`, else linked from it with the search files built there. Answers each staged name with the size and
 * modification time of the served file it is a copy of, checked unchanged across the copy.
 */
function stage(dir: string, genDir: string, previous: Generation | null): Map<string, PackSource> {
  mkdirSync(path.dirname(packPathFor(path.join(genDir, 'x.json'))), { recursive: true });
  const staged = new Map<string, PackSource>();
  for (const name of readdirSync(dir).filter(isIndexFileName).sort()) {
    const from = path.join(dir, name);
    const to = path.join(genDir, name);
    const before = statOf(from);
    if (!before) continue;
    const known = previous?.sources.get(name);
    if (previous && known && sameSource(known, before) && link(path.join(previous.dir, name), to)) {
      link(packPathFor(path.join(previous.dir, name)), packPathFor(to));
      staged.set(name, known);
      continue;
    }
    if (!copy(from, to)) continue;
    // Replaced or rewritten while it was copied: the copy is of no one version; the change event reads it again.
    if (!sameSource(before, statOf(from))) {
      rmSync(to, { force: true });
      continue;
    }
    // The served search file is copied too; the load checks it against the size and time vouched for here.
    copy(packPathFor(from), packPathFor(to));
    staged.set(name, before);
  }
  copy(folderPackPath(dir), folderPackPath(genDir));
  return staged;
}

interface StagedSource extends PackSource {
  ino: number;
}

function statOf(file: string): StagedSource | null {
  try {
    const info = statSync(file);
    return info.isFile() ? { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino } : null;
  } catch {
    return null;
  }
}

function sameSource(a: PackSource & { ino?: number }, b: StagedSource | null): boolean {
  return b !== null && a.size === b.size && a.mtimeMs === b.mtimeMs && (a.ino === undefined || a.ino === b.ino);
}

/** Hard-links `from` to `to`, replacing `to` (copies across file systems); false when `from` is gone. */
function link(from: string, to: string): boolean {
  rmSync(to, { force: true });
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    return copy(from, to);
  }
}

/** Copies `from` to `to`; false when `from` is gone. */
function copy(from: string, to: string): boolean {
  try {
    copyFileSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
