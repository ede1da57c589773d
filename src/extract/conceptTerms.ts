/**
 * The repository-wide half of choosing a file's key concepts: its candidate terms (`candidateTermsOf`) are
 * weighed by their inverse document frequency among the files concepts are chosen for, so a term found in most
 * files (a licence word, the project's name) is weighed down. Only the frequencies are held for the whole
 * repository; each file's terms are needed twice, once to count and once to choose, and may be read again in
 * between, so a run over 50,000 files need not keep them.
 */
import { WordCache } from './wordCache.js';

export const KEY_CONCEPTS_PER_FILE = 10;

/** A file's candidate terms, as `candidateTermsOf` answers them: [term, weight], strongest first. */
export type TermList = Array<[string, number]>;

export class DocumentFrequencies {
  private readonly counts = new Map<string, number>();
  private documents = 0;

  /** `stems` memoises the stemming of terms (its bound keeps memory flat). */
  constructor(private readonly stems = new WordCache()) {}

  /** Counts one file's terms. */
  add(terms: TermList): void {
    this.documents++;
    for (const [term] of terms) {
      const key = this.stems.stem(term);
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    }
  }

  /** A counted file's concepts: its terms by weight × log(1 + files / files with the term's stem), strongest first. */
  concepts(terms: TermList): string[] {
    const total = Math.max(this.documents, 1);
    return terms
      .map(([term, weight]): [string, number] => [term, weight * Math.log(1 + total / (this.counts.get(this.stems.stem(term)) ?? 1))])
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, KEY_CONCEPTS_PER_FILE)
      .map(([term]) => term);
  }
}

/** Terms as the reuse state records them, flat (term, weight, term, weight, …), as a list. */
export function termsFromFlat(flat: readonly unknown[]): TermList {
  const list: TermList = [];
  for (let i = 0; i + 1 < flat.length; i += 2) list.push([String(flat[i]), Number(flat[i + 1])]);
  return list;
}
