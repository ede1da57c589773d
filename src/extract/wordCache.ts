/**
 * The hot path of concept extraction, made cheap: identifiers are found by a character scan instead of a
 * regex (no match objects), and each distinct identifier is split, and each distinct word stemmed, once per
 * extractor rather than once per file while it is in use. Identifiers repeat across a repository's files, so
 * most look-ups hit.
 */
import { detached, splitIdentifier, stem } from '../shared/text.js';

export class WordCache {
  private readonly splits: Generations<string[]>;
  private readonly stems: Generations<string>;

  /**
   * Entries kept, at most: past half of them the older half is dropped, and a word looked up again is kept.
   * Bounds memory on any corpus (an extraction thread holds one cache for its whole run).
   */
  constructor(limit = 40_000) {
    this.splits = new Generations(limit / 2);
    this.stems = new Generations(limit / 2);
  }

  split(identifier: string): string[] {
    let parts = this.splits.get(identifier);
    if (!parts) {
      // Split the copy: parts sliced from the parser's text would keep that text alive as much as the key.
      const key = detached(identifier);
      parts = splitIdentifier(key);
      this.splits.set(key, parts);
    }
    return parts;
  }

  stem(word: string): string {
    let stemmed = this.stems.get(word);
    if (stemmed === undefined) {
      const key = detached(word);
      stemmed = stem(key);
      this.stems.set(key, stemmed);
    }
    return stemmed;
  }
}

/** A map kept in two generations: the current one fills; when full, it becomes the older one. */
class Generations<V> {
  private current = new Map<string, V>();
  private older = new Map<string, V>();

  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    const hit = this.current.get(key);
    if (hit !== undefined) return hit;
    const old = this.older.get(key);
    if (old !== undefined) this.set(detached(key), old);
    return old;
  }

  /** `key` must be a string of its own (`detached`), not a slice of a larger text. */
  set(key: string, value: V): void {
    if (this.current.size >= this.size) {
      this.older = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }
}

export const isIdentifierStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;
export const isIdentifierPart = (c: number): boolean => isIdentifierStart(c) || (c >= 48 && c <= 57);

/** How often each identifier-like run (`[A-Za-z_$][A-Za-z0-9_$]*`) occurs in `text`. */
export function countIdentifiers(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (!isIdentifierStart(c)) {
      i++;
      continue;
    }
    const start = i++;
    while (i < n && isIdentifierPart(text.charCodeAt(i))) i++;
    const id = text.slice(start, i);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
