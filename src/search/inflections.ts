/**
 * A request's inflected words also search for their base: "where is the request context pushed" finds `push`.
 * The index's stemmer leaves -ed and -ing alone, since in code those forms are often names of their own (`string`
 * is not `str`, `padding` not `pad`); a request's word is reduced only when the code uses its base form more than
 * twice as often as the word itself, which keeps `padding` and `string` whole where the code says them.
 */
import { stem } from '../shared/text.js';
import { documentFrequency, type Segment } from './bm25f.js';

/** The bases worth searching for among `terms` (stemmed tokens), each with the term it comes from. */
export function inflectionBases(terms: Iterable<string>, segments: readonly Segment[]): Map<string, string> {
  const out = new Map<string, string>();
  const asked = new Set(terms);
  for (const term of asked) {
    if (!INFLECTED.test(term)) continue;
    const base = stem(term);
    if (base === term || base.length < 3 || asked.has(base) || out.has(base)) continue;
    if (documentFrequency(segments, base) > 2 * documentFrequency(segments, term)) out.set(base, term);
  }
  return out;
}

const INFLECTED = /[a-z]{3}(?:ed|ing)$/;
