/**
 * The hot path of concept extraction, made cheap: identifiers are found by a character scan instead of a
 * regex (no match objects), and each distinct identifier is split, and each distinct word stemmed, once per
 * extractor rather than once per file. Identifiers repeat across a repository's files, so most look-ups hit.
 */
import { splitIdentifier, stem } from '../shared/text.js';

export class WordCache {
  private splits = new Map<string, string[]>();
  private stems = new Map<string, string>();

  /** Entries kept before the maps start over; bounds memory on any corpus. */
  constructor(private readonly limit = 200_000) {}

  split(identifier: string): string[] {
    let parts = this.splits.get(identifier);
    if (!parts) {
      if (this.splits.size >= this.limit) this.splits = new Map();
      parts = splitIdentifier(identifier);
      this.splits.set(identifier, parts);
    }
    return parts;
  }

  stem(word: string): string {
    let stemmed = this.stems.get(word);
    if (stemmed === undefined) {
      if (this.stems.size >= this.limit) this.stems = new Map();
      stemmed = stem(word);
      this.stems.set(word, stemmed);
    }
    return stemmed;
  }
}

const isIdentifierStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;
const isIdentifierPart = (c: number): boolean => isIdentifierStart(c) || (c >= 48 && c <= 57);

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
