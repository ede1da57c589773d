/**
 * Model answers, cached in two layers:
 * - an lru-cache (`performance.max_cache_size` entries) for repeat look-ups within a process;
 * - a persistent store on disk, one JSON file per entry, keyed by a hash of the content hash, provider,
 *   model, prompt versions, schema version and everything else that shapes the answer. A fresh clone (new
 *   mtimes, same content) therefore re-uses every unchanged profile, and bumping a prompt version retires
 *   stale entries without any code.
 * A corrupt entry is deleted and recomputed, never fatal.
 *
 * Both layers use the content key. DeepCode's `path:mtime:size` key would only pay if it let a run skip
 * reading the file, and every run reads it anyway: the parser's facts come from the current text.
 */
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import { writeFileAtomic } from '../shared/atomicFile.js';

export interface CacheKeyParts {
  contentHash: string;
  provider: string;
  model: string;
  promptVersion: string;
  schemaVersion: number;
  /** Everything else that changes the answer: focus, target structure, relationship types, limits. */
  context: string;
}

export function cacheKey(parts: CacheKeyParts): string {
  return createHash('sha256')
    .update([parts.contentHash, parts.provider, parts.model, parts.promptVersion, String(parts.schemaVersion), parts.context].join('\0'))
    .digest('hex');
}

export interface CacheStats {
  hits: number;
  misses: number;
  corrupt: number;
}

export class ProfileCache<T extends object> {
  private readonly memory: LRUCache<string, T>;
  readonly stats: CacheStats = { hits: 0, misses: 0, corrupt: 0 };

  constructor(private readonly dir: string | null, maxEntries: number) {
    this.memory = new LRUCache<string, T>({ max: maxEntries });
  }

  async get(key: string, isValid: (value: unknown) => value is T): Promise<T | undefined> {
    const remembered = this.memory.get(key);
    if (remembered) {
      this.stats.hits++;
      return remembered;
    }
    if (!this.dir) {
      this.stats.misses++;
      return undefined;
    }
    const file = this.fileFor(key);
    let raw: string;
    try {
      raw = await readFile(file, 'utf8');
    } catch {
      this.stats.misses++;
      return undefined;
    }
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!isValid(parsed)) throw new Error('invalid entry');
      this.memory.set(key, parsed);
      this.stats.hits++;
      return parsed;
    } catch {
      this.stats.corrupt++;
      this.stats.misses++;
      await rm(file, { force: true });
      return undefined;
    }
  }

  async set(key: string, value: T): Promise<void> {
    this.memory.set(key, value);
    if (this.dir) await writeFileAtomic(this.fileFor(key), JSON.stringify(value));
  }

  private fileFor(key: string): string {
    return path.join(this.dir as string, key.slice(0, 2), `${key}.json`);
  }
}
