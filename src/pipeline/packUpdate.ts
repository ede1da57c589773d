/**
 * A search pack updated from the previous one after a run rewrote its index: a document whose entry a search
 * reads as it was keeps its postings, field lengths and facts; only the others are read and tokenised, which
 * is most of what building a pack costs. The result is byte for byte the pack a build from scratch writes
 * (the incremental property test checks it after every step).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { RangeReader } from '../index/fileRanges.js';
import type { FileSummary } from '../index/types.js';
import { isSearchable } from '../search/corpus.js';
import { compareTerms, FIELD_COUNT, FieldIndex, FieldIndexBuilder, importGraph, postingsInMemory, stringList, type FieldIndexData, type LinkedDoc } from '../search/fieldIndex.js';
import { indexedStateOf, readTrailingMetadata } from '../search/freshness.js';
import { profileFromBytes } from '../search/load.js';
import { profileRangesOf, readPack, writePack } from '../search/pack.js';
import { termTableOf, type EncodedTerms } from '../search/termTable.js';
import type { WrittenRepo } from './writeIndex.js';

/**
 * Writes the pack of a rewritten index from the previous pack: a document whose entry a search reads as it
 * was (same path, profile and concepts: `previous.ranges`) keeps its postings, field lengths and facts; only
 * the others are read and tokenised. The result is the pack a build from scratch writes, byte for byte: terms
 * in the same order, each term's postings by document, every mean and list as the builder makes them (tested).
 * False, and nothing written, when the previous pack is missing, stale or damaged.
 */
export async function updatePack(repo: WrittenRepo): Promise<boolean> {
  const { previous, summaryRanges, index, outputPath } = repo;
  if (!previous || !summaryRanges || summaryRanges.length !== previous.ranges.length) return false;
  const read = readPack(outputPath, previous.source);
  if (read.status !== 'fresh' || read.pack.repoName !== index.repo_name) return false;
  const old = read.pack.fieldIndex;
  let oldTerms: EncodedTerms;
  let oldPostings: Int32Array;
  try {
    oldTerms = old.terms.encode();
    oldPostings = old.postings.read(0, old.postings.length);
  } catch {
    return false;
  }
  if (oldPostings.length !== old.postings.length) return false;
  const oldDocAt = new Map<number, number>();
  const oldRanges = read.pack.profileRanges.all();
  for (let d = 0; d < oldRanges.length / 2; d++) oldDocAt.set(oldRanges[2 * d] as number, d);

  // Documents in the new index's order: a previous one (its number there) or a profile read again.
  const key = path.basename(outputPath, '.json');
  const reader = await RangeReader.open(outputPath);
  const kept: number[] = [];
  const fresh: FileSummary[] = [];
  const source: number[] = [];
  const links: LinkedDoc[] = [];
  const ranges: number[] = [];
  try {
    for (let n = 0; n < summaryRanges.length / 2; n++) {
      const start = summaryRanges[2 * n] as number;
      const end = summaryRanges[2 * n + 1] as number;
      const was = previous.ranges[2 * n] as number;
      const oldDoc = was >= 0 ? oldDocAt.get(was) : undefined;
      // An entry as it was and no document then is skipped now too; the import graph needs every document's path, role and imports.
      if (was >= 0 && oldDoc === undefined) continue;
      const bytes = await reader.read(start, end);
      if (oldDoc !== undefined) {
        // A document then, with the same profile: the graph needs only its path, role and imports (three values
        // read; the whole profile parsed when the entry is not written the way linkOf reads).
        const file = linkOf(bytes.toString('utf8')) ?? profileFromBytes(bytes, key);
        if (!file || oldRanges[2 * oldDoc + 1] !== previous.ranges[2 * n + 1] || old.paths.at(oldDoc) !== file.file_path) return false;
        source.push(oldDoc);
        kept.push(oldDoc);
        links.push({ repo: index.repo_name, file });
      } else {
        const summary = profileFromBytes(bytes, key);
        if (!summary) return false;
        if (!isSearchable(summary)) continue;
        source.push(-1 - fresh.length);
        fresh.push(summary);
        links.push({ repo: index.repo_name, file: summary });
      }
      ranges.push(start, end);
    }
  } finally {
    await reader.close();
  }
  const builder = new FieldIndexBuilder();
  for (const file of fresh) builder.add({ repo: index.repo_name, file });
  const made = builder.finish();
  const data = mergedFieldIndex(old, oldTerms, oldPostings, made, source, links, index.repo_name);
  return writeIndexPack(outputPath, index, new FieldIndex(data), Float64Array.from(ranges));
}

/**
 * What the import graph needs of an entry (its path, role and local imports), read from the entry's indented JSON
 * without parsing the rest: vocabulary and symbols are most of an entry. A top-level key starts a line at the
 * entry's first indentation (a string holds no raw line break, and nested keys sit deeper), and its value runs to
 * the next such key or to the entry's closing line. Null for a compact entry or a value of the wrong type: the
 * caller then parses the entry whole.
 */
export function linkOf(text: string): LinkedDoc['file'] | null {
  const lead = /^\{(\n +)"/.exec(text)?.[1];
  if (!lead) return null;
  const valueOf = (name: string): unknown => {
    const key = `${lead}"${name}": `;
    const at = text.indexOf(key);
    if (at < 0) return undefined;
    const start = at + key.length;
    const next = text.indexOf(`,${lead}"`, start);
    try {
      return JSON.parse(text.slice(start, next >= 0 ? next : text.lastIndexOf('\n')));
    } catch {
      return null;
    }
  };
  const filePath = valueOf('file_path');
  const role = valueOf('role');
  const imports = valueOf('local_imports');
  if (typeof filePath !== 'string' || (role !== undefined && typeof role !== 'string') || (imports !== undefined && !Array.isArray(imports))) return null;
  // As the index reader takes them (normalizeRepoIndex): strings only, none for a missing list.
  const localImports = ((imports ?? []) as unknown[]).filter((v): v is string => typeof v === 'string');
  return { file_path: filePath, role: role as FileSummary['role'], local_imports: localImports };
}

/** Writes the search pack of the index at `outputPath` from its field index and its profiles' byte ranges. */
export async function writeIndexPack(outputPath: string, index: WrittenRepo['index'], fieldIndex: FieldIndex, ranges: Float64Array): Promise<boolean> {
  const info = await stat(outputPath);
  return writePack(outputPath, { size: info.size, mtimeMs: info.mtimeMs }, {
    repoName: index.repo_name,
    indexed: indexedStateOf(readTrailingMetadata(outputPath)),
    totalFiles: index.total_files,
    relationships: index.relationships,
    fieldIndex,
    profileRanges: profileRangesOf(ranges),
  });
}

/** Two postings lists, each by document (no document in both), written into `into` from `at` as one by document; returns the end. */
function mergeByDocument(into: Int32Array, at: number, x: Int32Array, y: Int32Array): number {
  for (let p = 0, q = 0; p < x.length || q < y.length; at += 2) {
    const fromX = q >= y.length || (p < x.length && (x[p] as number) < (y[q] as number));
    const values = fromX ? x : y;
    const k = fromX ? p : q;
    into[at] = values[k] as number;
    into[at + 1] = values[k + 1] as number;
    if (fromX) p += 2;
    else q += 2;
  }
  return at;
}

/** The documents of a postings list (pairs of document and field, by document). */
function documentsIn(list: Int32Array): number {
  let documents = 0;
  let last = -1;
  for (let at = 0; at < list.length; at += 2) {
    if (list[at] !== last) documents++;
    last = list[at] as number;
  }
  return documents;
}

/**
 * The field index of documents `source` (d >= 0: the previous index's document d; -1 - k: document k of
 * `made`), as FieldIndexBuilder would build it over those documents in that order.
 */
function mergedFieldIndex(
  old: FieldIndex,
  oldTerms: EncodedTerms,
  oldPostings: Int32Array,
  made: FieldIndexData,
  source: readonly number[],
  links: readonly LinkedDoc[],
  repoName: string,
): FieldIndexData {
  const n = source.length;
  const oldNumber = new Int32Array(old.size).fill(-1);
  const madeNumber = new Int32Array(made.paths.length).fill(-1);
  source.forEach((from, d) => {
    if (from >= 0) oldNumber[from] = d;
    else madeNumber[-1 - from] = d;
  });
  // Terms of both, in order; each term's postings by new document number (both lists are by document, and
  // renumbering keeps each list's order), its df the documents that still hold it.
  const madeTerms = made.terms.encode();
  const madePostings = made.postings.read(0, made.postings.length);
  const termsOf = (encoded: EncodedTerms): string[] => {
    const text = Buffer.from(encoded.bytes.buffer, encoded.bytes.byteOffset, encoded.bytes.byteLength).toString('latin1');
    return Array.from({ length: encoded.starts.length - 1 }, (_, t) => text.slice(encoded.starts[t], encoded.starts[t + 1]));
  };
  const a = termsOf(oldTerms);
  const b = termsOf(madeTerms);
  const terms: string[] = [];
  const df: number[] = [];
  const postingStart: number[] = [0];
  // Every term's list written in place, one after the other: at most the two indexes' postings together.
  const all = new Int32Array(oldPostings.length + madePostings.length);
  let total = 0;
  /** Appends a list's pairs whose document is kept, renumbered (renumbering keeps a list's order); returns the end. */
  const appendRenumbered = (into: Int32Array, at: number, values: Int32Array, from: number, to: number, numbers: Int32Array): number => {
    for (let p = from; p < to; p += 2) {
      const d = numbers[values[p] as number] as number;
      if (d < 0) continue;
      into[at++] = d;
      into[at++] = values[p + 1] as number;
    }
    return at;
  };
  for (let i = 0, j = 0; i < a.length || j < b.length; ) {
    const order = i >= a.length ? 1 : j >= b.length ? -1 : compareTerms(a[i] as string, b[j] as string);
    const term = (order <= 0 ? a[i] : b[j]) as string;
    const oldFrom = oldTerms.postingStart[i] as number;
    const oldTo = oldTerms.postingStart[i + 1] as number;
    const madeFrom = madeTerms.postingStart[j] as number;
    const madeTo = madeTerms.postingStart[j + 1] as number;
    let end: number;
    if (order < 0) end = appendRenumbered(all, total, oldPostings, oldFrom, oldTo, oldNumber);
    else if (order > 0) end = appendRenumbered(all, total, madePostings, madeFrom, madeTo, madeNumber);
    else {
      // Held by both: each renumbered apart, then merged by document.
      const x = new Int32Array(oldTo - oldFrom);
      const y = new Int32Array(madeTo - madeFrom);
      const xEnd = appendRenumbered(x, 0, oldPostings, oldFrom, oldTo, oldNumber);
      const yEnd = appendRenumbered(y, 0, madePostings, madeFrom, madeTo, madeNumber);
      end = mergeByDocument(all, total, x.subarray(0, xEnd), y.subarray(0, yEnd));
    }
    if (order <= 0) i++;
    if (order >= 0) j++;
    if (end === total) continue;
    terms.push(term);
    df.push(documentsIn(all.subarray(total, end)));
    total = end;
    postingStart.push(total);
  }

  const starts = Int32Array.from(postingStart);
  const lengths = new Float32Array(FIELD_COUNT * n);
  const avgLength = new Float64Array(FIELD_COUNT);
  const languageIds = new Map<string, number>();
  const repoOf = new Int32Array(n);
  const languageOf = new Int32Array(n);
  const roles = new Uint8Array(n);
  const isCode = new Uint8Array(n);
  const linesOfCode = new Int32Array(n);
  const paths: string[] = [];
  source.forEach((from, d) => {
    const [index, e] = from >= 0 ? [old as FieldIndexData, from] : [made, -1 - from];
    const size = index.paths.length;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const length = index.lengths[f * size + e] as number;
      lengths[f * n + d] = length;
      avgLength[f] = (avgLength[f] as number) + length;
    }
    const language = index.languages[index.languageOf[e] as number] as string;
    if (!languageIds.has(language)) languageIds.set(language, languageIds.size);
    languageOf[d] = languageIds.get(language) as number;
    roles[d] = index.roles[e] as number;
    isCode[d] = index.isCode[e] as number;
    linesOfCode[d] = index.linesOfCode[e] as number;
    paths.push(index.paths.at(e));
  });
  for (let f = 0; f < FIELD_COUNT; f++) avgLength[f] = n ? (avgLength[f] as number) / n : 0;
  return {
    terms: termTableOf(terms, Int32Array.from(df), starts),
    postings: postingsInMemory(all.subarray(0, total)),
    lengths,
    avgLength,
    repos: n ? [repoName] : [],
    repoOf,
    paths: stringList(paths),
    roles,
    languages: [...languageIds.keys()],
    languageOf,
    isCode,
    linesOfCode,
    ...importGraph(links),
  };
}
