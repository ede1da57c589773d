/**
 * The `vocabulary` field's format: `word:count` entries separated by single spaces, most frequent first, with
 * `:1` left out (`expandIPv6:3 parseIPv4:2 address`). Words are identifier-like runs, so they hold no space or
 * colon.
 */

export function formatVocabulary(entries: ReadonlyArray<readonly [string, number]>): string {
  return entries.map(([word, count]) => (count > 1 ? `${word}:${count}` : word)).join(' ');
}

/** The entries of a stored vocabulary, as [word, count]; tolerant of anything a hand-edited index may hold. */
export function parseVocabulary(vocabulary: string | undefined): Array<[string, number]> {
  if (!vocabulary) return [];
  const out: Array<[string, number]> = [];
  for (const entry of vocabulary.split(' ')) {
    if (!entry) continue;
    const colon = entry.lastIndexOf(':');
    const count = colon > 0 ? Number(entry.slice(colon + 1)) : 1;
    const word = colon > 0 ? entry.slice(0, colon) : entry;
    if (WORD.test(word) && Number.isInteger(count) && count > 0) out.push([word, Math.min(count, MAX_STORED_COUNT)]);
  }
  return out;
}

/** The largest count a stored vocabulary is read with. */
export const MAX_STORED_COUNT = 1e6;

/** An identifier, or a number the file uses on its own (`404`). */
const WORD = /^(?:[A-Za-z_$][A-Za-z0-9_$]*|\d{3,5})$/;
