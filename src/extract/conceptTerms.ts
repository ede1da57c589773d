/**
 * Candidate concept terms of many files, held compactly (each distinct term once, a file's terms as numbers
 * in shared typed arrays), so a run over 50,000 files can keep every file's terms until the repository-wide
 * choice of concepts without keeping the files' profiles. `conceptsChooser` is that choice: a term found in
 * most files (a licence word, the project's name) is weighed down by its inverse document frequency.
 */
import { stem } from '../shared/text.js';

export const KEY_CONCEPTS_PER_FILE = 10;

/** A file's candidate terms, as `candidateTermsOf` answers them: [term, weight], strongest first. */
export type TermList = Array<[string, number]>;

export class TermLists {
  private readonly ids = new Map<string, number>();
  private readonly terms: string[] = [];
  /** Per document, where its terms start in `termIds`/`weights`; one more entry than documents. */
  private starts = new Int32Array(1024);
  private termIds = new Int32Array(16 * 1024);
  private weights = new Float64Array(16 * 1024);
  private documents = 0;

  get size(): number {
    return this.documents;
  }

  /** Stores a file's terms; answers its document number. */
  add(list: TermList): number {
    const at = this.starts[this.documents] as number;
    this.reserve(at + list.length);
    for (const [i, [term, weight]] of list.entries()) {
      let id = this.ids.get(term);
      if (id === undefined) {
        id = this.terms.length;
        this.ids.set(term, id);
        this.terms.push(term);
      }
      this.termIds[at + i] = id;
      this.weights[at + i] = weight;
    }
    this.documents++;
    this.starts[this.documents] = at + list.length;
    return this.documents - 1;
  }

  /** Stores terms given flat, as the reuse state records them: term, weight, term, weight, … */
  addFlat(flat: readonly unknown[]): number {
    const list: TermList = [];
    for (let i = 0; i + 1 < flat.length; i += 2) list.push([String(flat[i]), Number(flat[i + 1])]);
    return this.add(list);
  }

  list(document: number): TermList {
    const out: TermList = [];
    for (let i = this.starts[document] as number; i < (this.starts[document + 1] as number); i++) {
      out.push([this.terms[this.termIds[i] as number] as string, this.weights[i] as number]);
    }
    return out;
  }

  /** The terms flat (term, weight, …), as the reuse state records them. */
  flat(document: number): Array<string | number> {
    return this.list(document).flat();
  }

  /**
   * Weighs the terms of `documents` (the files concepts are chosen for, together) by their document
   * frequency among them, and answers a function giving each of those documents its concepts.
   */
  conceptsChooser(documents: Iterable<number>): (document: number) => string[] {
    const stemOf = new Map<number, string>();
    const stemmed = (id: number): string => {
      let s = stemOf.get(id);
      if (s === undefined) {
        s = stem(this.terms[id] as string);
        stemOf.set(id, s);
      }
      return s;
    };
    const frequency = new Map<string, number>();
    let total = 0;
    for (const d of documents) {
      total++;
      for (let i = this.starts[d] as number; i < (this.starts[d + 1] as number); i++) {
        const key = stemmed(this.termIds[i] as number);
        frequency.set(key, (frequency.get(key) ?? 0) + 1);
      }
    }
    total = Math.max(total, 1);
    return (d) => {
      const scored: Array<[string, number]> = [];
      for (let i = this.starts[d] as number; i < (this.starts[d + 1] as number); i++) {
        const id = this.termIds[i] as number;
        const df = frequency.get(stemmed(id)) ?? 1;
        scored.push([this.terms[id] as string, (this.weights[i] as number) * Math.log(1 + total / df)]);
      }
      return scored
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, KEY_CONCEPTS_PER_FILE)
        .map(([term]) => term);
    };
  }

  private reserve(length: number): void {
    if (this.documents + 2 > this.starts.length) this.starts = grown(this.starts, this.documents + 2);
    if (length > this.termIds.length) {
      this.termIds = grown(this.termIds, length);
      this.weights = grown(this.weights, length);
    }
  }
}

function grown<T extends Int32Array | Float64Array>(array: T, atLeast: number): T {
  const next = new (array.constructor as new (n: number) => T)(Math.max(atLeast, array.length * 2));
  next.set(array);
  return next;
}
