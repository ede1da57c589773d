/**
 * The repository-wide half of choosing a file's key concepts: its candidate terms (`candidateTermsOf`) are
 * weighed by their inverse document frequency among the files concepts are chosen for, so a term found in most
 * files (a licence word, the project's name) is weighed down. Only the frequencies are held for the whole
 * repository; each file's terms are needed twice, once to count and once to choose, and may be read again in
 * between, so a run over 50,000 files need not keep them.
 */
import { compareCodeUnits } from '../shared/text.js';
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
    this.count(terms, 1);
  }

  /** Takes back a file counted before (a file gone or changed since the counts were recorded). */
  remove(terms: TermList): void {
    this.count(terms, -1);
  }

  /** Adds the counts of other files, counted apart. */
  merge(other: DocumentFrequencies): void {
    this.documents += other.documents;
    for (const [key, n] of other.counts) this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  /** The counts as JSON, to be read back with `fromJson`: what a reuse state records. */
  toJson(): string {
    return JSON.stringify({ documents: this.documents, frequencies: [...this.counts].filter(([, n]) => n > 0).flat() });
  }

  static fromJson(text: string, stems?: WordCache): DocumentFrequencies {
    const { documents, frequencies } = JSON.parse(text) as { documents: number; frequencies: Array<string | number> };
    const counts = new DocumentFrequencies(stems);
    counts.documents = documents;
    for (let i = 0; i + 1 < frequencies.length; i += 2) counts.counts.set(String(frequencies[i]), Number(frequencies[i + 1]));
    return counts;
  }

  private count(terms: TermList, sign: 1 | -1): void {
    this.documents += sign;
    for (const [term] of terms) {
      const key = this.stems.stem(term);
      this.counts.set(key, (this.counts.get(key) ?? 0) + sign);
    }
  }

  /** A counted file's concepts: its terms by weight × log(1 + files / files with the term's stem), strongest first. */
  concepts(terms: TermList): string[] {
    const total = Math.max(this.documents, 1);
    return terms
      .map(([term, weight]): [string, number] => [term, weight * Math.log(1 + total / (this.counts.get(this.stems.stem(term)) ?? 1))])
      .sort((a, b) => b[1] - a[1] || compareCodeUnits(a[0], b[0]))
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
