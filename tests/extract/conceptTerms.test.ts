import { describe, expect, it } from 'vitest';
import { TermLists, type TermList } from '../../src/extract/conceptTerms.js';
import { finalizeConcepts } from '../../src/extract/staticProfile.js';
import { stem } from '../../src/shared/text.js';

/** Concepts as weighing plain lists chooses them: weight × log(1 + files / document frequency of the stem). */
function reference(termLists: TermList[]): string[][] {
  const df = new Map<string, number>();
  for (const terms of termLists) for (const [term] of terms) df.set(stem(term), (df.get(stem(term)) ?? 0) + 1);
  const total = Math.max(termLists.length, 1);
  return termLists.map((terms) =>
    terms
      .map(([term, weight]): [string, number] => [term, weight * Math.log(1 + total / (df.get(stem(term)) ?? 1))])
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 10)
      .map(([term]) => term),
  );
}

function randomLists(seed: number, files: number): TermList[] {
  let state = seed;
  const next = () => ((state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const vocabulary = ['cache', 'caches', 'caching', 'expire', 'expiry', 'ttl', 'store', 'stores', 'clock', 'tick', 'router', 'license', 'mit', 'parse', 'parser', 'token', 'tokens', 'http', 'server', 'client'];
  return Array.from({ length: files }, () => {
    const terms = new Map<string, number>();
    const count = Math.floor(next() * 16);
    for (let i = 0; i < count; i++) terms.set(vocabulary[Math.floor(next() * vocabulary.length)] as string, Math.round(next() * 40) / 4 + Math.log2(1 + i));
    return [...terms.entries()];
  });
}

describe('candidate terms held compactly', () => {
  it.each([1, 2, 3])('choose the concepts that weighing the plain lists chooses (seed %i)', (seed) => {
    const lists = randomLists(seed, 300);
    expect(finalizeConcepts(lists)).toEqual(reference(lists));
  });

  it('weigh only the documents asked for, and give back each list as it was added', () => {
    const lists = randomLists(9, 50);
    const table = new TermLists();
    const documents = lists.map((list) => table.add(list));
    for (const [i, d] of documents.entries()) expect(table.list(d)).toEqual(lists[i]);
    const firstHalf = documents.slice(0, 25);
    const choose = table.conceptsChooser(firstHalf);
    expect(firstHalf.map(choose)).toEqual(reference(lists.slice(0, 25)));
    expect(table.flat(0)).toEqual((lists[0] as TermList).flat());
    expect(table.list(table.addFlat((lists[3] as TermList).flat()))).toEqual(lists[3]);
  });
});
