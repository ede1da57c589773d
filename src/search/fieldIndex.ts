/**
 * One repository index's statistics for the BM25F ranker, built once (or read from a search pack) and shared
 * by every query: each profile field's token counts as an inverted index, field lengths and their means,
 * document frequencies, the import graph from `local_imports`, and the few per-file facts the ranker weighs
 * (role, code or not, size).
 *
 * Everything is flat typed arrays (compressed-sparse-row postings and edges, terms sorted for binary search),
 * so a `FieldIndex` is also cheap to write to disk and to read back (see pack.ts). Building one tokenises every
 * field of every profiled file once; identifiers recur across a corpus (the same symbol, concept and import
 * names in thousands of files), so tokens are memoised per distinct identifier.
 */
import { detectLanguage, isCodeLanguage } from '../extract/languages.js';
import type { FileRole, FileSummary } from '../index/types.js';
import { compareCodeUnits } from '../shared/text.js';
import { FIELD_COUNT, FIELDS, Tokenizer, conceptTokens, fieldTokens, isDefinitionToken, splitPath, testedStems } from './profileTokens.js';
import { DamagedTermsError, termTableOf, type EncodedTerms, type TermTable } from './termTable.js';

export { FIELDS, FIELD_COUNT, type FieldName } from './profileTokens.js';

/** A posting packs its field into the low bits and its count above them. */
export const FIELD_BITS = 4;
/** Counts above this are stored as this: saturation makes the difference meaningless, and it keeps postings in 31 bits. */
const MAX_COUNT = (1 << (31 - FIELD_BITS)) - 1;

/**
 * Each role's number, as packs store it: a new role takes the next number, so a pack written before it reads the
 * same. A record, so that a role added to FileRole without a number does not compile.
 */
const ROLE_NUMBERS: Readonly<Record<FileRole, number>> = {
  source: 0, entry_point: 1, test: 2, docs: 3, config: 4, example: 5, build: 6, data: 7, generated: 8, types: 9, benchmark: 10, lockfile: 11,
};
/** Roles by number. */
export const ROLES: readonly FileRole[] = (Object.keys(ROLE_NUMBERS) as FileRole[]).sort((a, b) => ROLE_NUMBERS[a] - ROLE_NUMBERS[b]);

export interface IndexedDoc {
  repo: string;
  file: FileSummary;
}

/** The arrays a FieldIndex is made of: what pack.ts writes and reads. */
export interface FieldIndexData {
  /**
   * Distinct tokens, sorted, each with the documents holding it in any field and where its postings are: the
   * values `postings[from .. to)` of `terms.postingRange(t)` are (doc, count << FIELD_BITS | field) pairs, by doc.
   */
  terms: TermTable;
  postings: PostingStore;
  /** `lengths[f * n + d]`: tokens of field f in doc d. */
  lengths: Float32Array;
  avgLength: Float64Array;
  repos: string[];
  repoOf: Int32Array;
  /** Each document's repository-relative path. */
  paths: StringList;
  /** Index into ROLES. */
  roles: Uint8Array;
  languages: string[];
  languageOf: Int32Array;
  /** 1 when the file is code (a language with a grammar, or a scripting language), 0 for prose and data. */
  isCode: Uint8Array;
  linesOfCode: Int32Array;
  /** Import edges within a repository: `importTargets[importStart[d] .. importStart[d + 1])` are what d imports. */
  importStart: Int32Array;
  importTargets: Int32Array;
  importerStart: Int32Array;
  importerSources: Int32Array;
}

/**
 * Where a field index's postings live: in memory when it was just built, in its search pack when it was read
 * from one. Postings are most of a large index, and a query needs only its own terms' few.
 */
export interface PostingStore {
  /** How many 32-bit values the store holds. */
  readonly length: number;
  /** Values `[start, end)`. A store that cannot give them all (a pack cut short on disk) gives fewer. */
  read(start: number, end: number): Int32Array;
}

export function postingsInMemory(values: Int32Array): PostingStore {
  return { length: values.length, read: (start, end) => values.subarray(start, end) };
}

/** A list of strings that a search pack decodes one by one, as they are asked for. */
export interface StringList {
  readonly length: number;
  /** The i-th string; '' outside the list. */
  at(i: number): string;
  /** Every string, in order. */
  all(): readonly string[];
}

export function stringList(values: readonly string[]): StringList {
  return { length: values.length, at: (i) => values[i] ?? '', all: () => values };
}

const MAX_KEPT_TERM_IDS = 50_000;

export class FieldIndex implements FieldIndexData {
  readonly terms!: TermTable;
  readonly postings!: PostingStore;
  readonly lengths!: Float32Array;
  readonly avgLength!: Float64Array;
  readonly repos!: string[];
  readonly repoOf!: Int32Array;
  readonly paths!: StringList;
  readonly roles!: Uint8Array;
  readonly languages!: string[];
  readonly languageOf!: Int32Array;
  readonly isCode!: Uint8Array;
  readonly linesOfCode!: Int32Array;
  readonly importStart!: Int32Array;
  readonly importTargets!: Int32Array;
  readonly importerStart!: Int32Array;
  readonly importerSources!: Int32Array;
  readonly size: number;

  private readonly memos = new Map<string, unknown>();
  private readonly termIds = new Map<string, number>();

  constructor(data: FieldIndexData) {
    Object.assign(this, data);
    this.size = data.paths.length;
  }

  /** A value derived from this index alone, computed once per key (rankers keep query-independent priors here). */
  memo<T>(key: string, build: () => T): T {
    if (!this.memos.has(key)) this.memos.set(key, build());
    return this.memos.get(key) as T;
  }

  static build(docs: readonly IndexedDoc[]): FieldIndex {
    return new FieldIndex(buildData(docs));
  }

  /**
   * The term's number, or -1 when no document holds it. Kept once looked up: a search asks for the same terms
   * again (two rankings, then each result's matched words), and a pack's table answers by binary search.
   */
  termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.terms.find(term);
      // Bounded for a server that answers query after query.
      if (this.termIds.size >= MAX_KEPT_TERM_IDS) this.termIds.clear();
      this.termIds.set(term, id);
    }
    return id;
  }

  /** Documents holding term `id` in any field. */
  docFrequency(id: number): number {
    return this.terms.df(id);
  }

  /** The term's (doc, count << FIELD_BITS | field) pairs, by doc. */
  postingsOf(id: number): Int32Array {
    const [from, to] = this.terms.postingRange(id);
    return this.postings.read(from, to);
  }

  /** The documents holding `term` in field `field`, by document. */
  docsWith(term: string, field: number): number[] {
    const id = this.termId(term);
    if (id < 0) return [];
    const postings = this.postingsOf(id);
    const fieldMask = (1 << FIELD_BITS) - 1;
    const out: number[] = [];
    for (let i = 0; i + 1 < postings.length; i += 2) {
      if (((postings[i + 1] as number) & fieldMask) === field) out.push(postings[i] as number);
    }
    return out;
  }

  /** Whether document `d` holds the term in any field: a binary search of the term's postings. */
  holds(term: string, d: number): boolean {
    const id = this.termId(term);
    if (id < 0) return false;
    const postings = this.postingsOf(id);
    // Postings are (doc, packed) pairs by doc; search over pair numbers.
    let lo = 0;
    let hi = (postings.length >> 1) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const doc = postings[2 * mid] as number;
      if (doc === d) return true;
      if (doc < d) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  role(d: number): FileRole {
    return ROLES[this.roles[d] ?? 0] ?? 'source';
  }

  language(d: number): string {
    return this.languages[this.languageOf[d] ?? 0] ?? '';
  }
}

function buildData(docs: readonly IndexedDoc[]): FieldIndexData {
  const builder = new FieldIndexBuilder();
  for (const doc of docs) builder.add(doc);
  return builder.finish();
}

const CONCEPTS = FIELDS.indexOf('concepts');

/**
 * Builds a field index one document at a time, keeping of each only its tokens' counts (as term numbers) and
 * the few facts the ranker and the import graph need: a caller can stream profiles through it (prepareSearchPack
 * reads an index file entry by entry; an index run tokenises each profile as it is made) without holding them.
 * Documents are numbered in the order they are added unless `finish` is given another; a document's key
 * concepts may come after the rest of it (`addWithoutConcepts`, `addConcepts`), as a run chooses them last.
 */
export class FieldIndexBuilder {
  /** Every term met, numbered as first met. */
  private readonly termIds = new Map<string, number>();
  /**
   * Every document's postings as (term number, count << FIELD_BITS | field) pairs, field by field, one document
   * after another (document d's from byte `docStart[d]`): varints, a quarter of the room of 32-bit pairs.
   */
  private readonly encoded = new VarintBuffer();
  private readonly docStart: number[] = [0];
  /**
   * Where a document's key concepts go among its pairs, and those pairs when they come apart from the rest:
   * null when they are among them, AWAITED until `addConcepts` gives them.
   */
  private readonly conceptsAt: number[] = [];
  private readonly conceptPostings: Array<Int32Array | null> = [];
  /** Field lengths, document by document (`FIELD_COUNT` each). */
  private readonly docLengths: number[] = [];
  private readonly avgLength = new Float64Array(FIELD_COUNT);
  /** Each document's repository and language, numbered when finished, in the documents' order. */
  private readonly repoOf: string[] = [];
  private readonly languageOf: string[] = [];
  private readonly roles: number[] = [];
  private readonly isCode: number[] = [];
  private readonly linesOfCode: number[] = [];
  private readonly paths: string[] = [];
  private readonly links: LinkedDoc[] = [];

  constructor(private readonly tokenizer = new Tokenizer()) {}

  get size(): number {
    return this.paths.length;
  }

  /** Adds a document, every field tokenised; answers its number in the order added. */
  add(doc: IndexedDoc): number {
    return this.addDocument(doc, doc.file.key_concepts);
  }

  /** Adds a document whose key concepts come later (`addConcepts`); until then it has none. */
  addWithoutConcepts(doc: IndexedDoc): number {
    return this.addDocument(doc, null);
  }

  /** The key concepts of document `d`, added without them. */
  addConcepts(d: number, concepts: readonly string[]): void {
    if (this.conceptPostings[d] !== AWAITED) throw new RangeError(`document ${d} was not added without its concepts, or has them`);
    const pairs: number[] = [];
    const length = this.post(conceptTokens(concepts, this.tokenizer), CONCEPTS, (id, packed) => pairs.push(id, packed));
    this.conceptPostings[d] = Int32Array.from(pairs);
    this.docLengths[d * FIELD_COUNT + CONCEPTS] = length;
    this.avgLength[CONCEPTS] = (this.avgLength[CONCEPTS] as number) + length;
  }

  private addDocument({ repo, file }: IndexedDoc, concepts: readonly string[] | null): number {
    const d = this.paths.length;
    this.paths.push(file.file_path);
    this.links.push({ repo, file: { file_path: file.file_path, role: file.role, local_imports: file.local_imports } });
    this.repoOf.push(repo);
    const info = detectLanguage(file.file_path);
    this.languageOf.push(file.language || info.name);
    this.isCode.push(isCodeLanguage(info) ? 1 : 0);
    this.roles.push(Math.max(0, ROLES.indexOf(file.role ?? 'source')));
    this.linesOfCode.push(file.lines_of_code);
    const fields = fieldTokens(file, this.tokenizer, concepts);
    const { encoded } = this;
    for (let f = 0; f < FIELD_COUNT; f++) {
      if (f === CONCEPTS) this.conceptsAt.push(encoded.length);
      const length = this.post(fields[f] as Map<string, number>, f, (id, packed) => {
        encoded.push(id);
        encoded.push(packed);
      });
      this.docLengths.push(length);
      this.avgLength[f] = (this.avgLength[f] as number) + length;
    }
    this.docStart.push(encoded.length);
    this.conceptPostings.push(concepts ? null : AWAITED);
    return d;
  }

  /** Gives `write` a field's (term number, packed count) pairs; answers the field's length. */
  private post(counts: Map<string, number>, f: number, write: (id: number, packed: number) => void): number {
    let tokens = 0;
    for (const [t, c] of counts) {
      if (!isDefinitionToken(t)) tokens += c;
      let id = this.termIds.get(t);
      if (id === undefined) this.termIds.set(t, (id = this.termIds.size));
      write(id, (Math.min(c, MAX_COUNT) << FIELD_BITS) | f);
    }
    return tokens;
  }

  /**
   * The field index of the documents added, document `n` being the one added `order[n]`-th (by default, the
   * order they were added in). `order` names every document added once.
   */
  finish(order?: Int32Array): FieldIndexData {
    const n = this.paths.length;
    if (order && (order.length !== n || new Set(order).size !== n || order.some((d) => d < 0 || d >= n))) {
      throw new RangeError(`an order of ${n} documents must name each of them once`);
    }
    if (this.conceptPostings.includes(AWAITED)) throw new RangeError('a document added without its key concepts never got them');
    const added = (k: number): number => (order ? (order[k] as number) : k);
    const lengths = new Float32Array(FIELD_COUNT * n);
    for (let k = 0; k < n; k++) for (let f = 0; f < FIELD_COUNT; f++) lengths[f * n + k] = this.docLengths[added(k) * FIELD_COUNT + f] as number;
    // Terms in sorted order; `rank[id]` is term number id's place there.
    const terms = [...this.termIds.keys()].sort(compareTerms);
    const rank = new Int32Array(terms.length);
    terms.forEach((t, r) => (rank[this.termIds.get(t) as number] = r));
    this.termIds.clear();
    const postingStart = new Int32Array(terms.length + 1);
    const eachPair = (d: number, visit: (id: number, packed: number) => void): void => {
      const concepts = this.conceptPostings[d] as Int32Array | null;
      const at = this.conceptsAt[d] as number;
      this.encoded.pairs(this.docStart[d] as number, at, visit);
      if (concepts) for (let j = 0; j < concepts.length; j += 2) visit(concepts[j] as number, concepts[j + 1] as number);
      this.encoded.pairs(at, this.docStart[d + 1] as number, visit);
    };
    for (let d = 0; d < n; d++) {
      eachPair(d, (id) => {
        const r = (rank[id] as number) + 1;
        postingStart[r] = (postingStart[r] as number) + 2;
      });
    }
    for (let r = 0; r < terms.length; r++) postingStart[r + 1] = (postingStart[r + 1] as number) + (postingStart[r] as number);
    // Each term's postings by document, and within a document by field, as the documents are taken in order.
    const postings = new Int32Array(postingStart[terms.length] as number);
    const next = postingStart.slice(0, terms.length);
    const df = new Int32Array(terms.length);
    const lastDoc = new Int32Array(terms.length).fill(-1);
    for (let k = 0; k < n; k++) {
      eachPair(added(k), (id, packed) => {
        const r = rank[id] as number;
        const at = next[r] as number;
        postings[at] = k;
        postings[at + 1] = packed;
        next[r] = at + 2;
        if (lastDoc[r] !== k) {
          lastDoc[r] = k;
          df[r] = (df[r] as number) + 1;
        }
      });
    }
    const inOrder = <T>(values: readonly T[]): T[] => Array.from({ length: n }, (_, k) => values[added(k)] as T);
    const repoIds = new Map<string, number>();
    const languageIds = new Map<string, number>();
    return {
      terms: termTableOf(terms, df, postingStart),
      postings: postingsInMemory(postings),
      lengths,
      avgLength: Float64Array.from(this.avgLength, (total) => (n ? total / n : 0)),
      repoOf: Int32Array.from(inOrder(this.repoOf), (repo) => intern(repoIds, repo)),
      repos: [...repoIds.keys()],
      paths: stringList(inOrder(this.paths)),
      roles: Uint8Array.from(inOrder(this.roles)),
      languageOf: Int32Array.from(inOrder(this.languageOf), (language) => intern(languageIds, language)),
      languages: [...languageIds.keys()],
      isCode: Uint8Array.from(inOrder(this.isCode)),
      linesOfCode: Int32Array.from(inOrder(this.linesOfCode)),
      ...importGraph(inOrder(this.links)),
    };
  }
}

/** Key concepts not given yet: none, until they are. */
const AWAITED = new Int32Array(0);

/** Non-negative 32-bit integers as varints (seven bits a byte, low first) in a buffer that doubles as it fills. */
class VarintBuffer {
  private bytes = new Uint8Array(1 << 16);
  length = 0;

  push(value: number): void {
    if (this.length + 5 > this.bytes.length) {
      const grown = new Uint8Array(2 * this.bytes.length);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    let rest = value >>> 0;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.bytes[this.length++] = rest;
  }

  /** The values between bytes `start` and `end`, two at a time (each below 2 ** 31). */
  pairs(start: number, end: number, visit: (first: number, second: number) => void): void {
    const { bytes } = this;
    let at = start;
    while (at < end) {
      let first = 0;
      let byte: number;
      let shift = 0;
      do {
        byte = bytes[at++] as number;
        first |= (byte & 0x7f) << shift;
        shift += 7;
      } while (byte >= 0x80);
      let second = 0;
      shift = 0;
      do {
        byte = bytes[at++] as number;
        second |= (byte & 0x7f) << shift;
        shift += 7;
      } while (byte >= 0x80);
      visit(first, second);
    }
  }
}

/** A field index `combineFieldIndexes` could not copy whole, its pack being damaged: `part` is its place in the list. */
export class DamagedPartError extends Error {
  override name = 'DamagedPartError';

  constructor(
    readonly part: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One field index over several, their documents one after another (the second's document 0 is the first's
 * size, and so on): what a folder's combined search pack holds. Every term's postings are its postings in each
 * part in turn, renumbered, so a term's documents stay in order and each keeps its own counts, lengths and
 * import edges. The mean field lengths are the combined documents' own; a ranker that must see each part as
 * its own repository keeps the parts' means beside it (bm25f's `SegmentPart`).
 */
export function combineFieldIndexes(parts: readonly FieldIndex[]): FieldIndexData {
  const bases: number[] = [];
  let n = 0;
  for (const part of parts) {
    bases.push(n);
    n += part.size;
  }
  // Every part's terms, numbered in the combined sorted list: `ids[p][t]` is part p's term t there.
  const encoded = parts.map((part, p) => {
    try {
      return part.terms.encode();
    } catch (error) {
      throw error instanceof DamagedTermsError ? new DamagedPartError(p, error.message) : error;
    }
  });
  // Terms are ASCII (termTable.ts): one latin1 string per part, cut term by term, numbered as first seen.
  const seen = new Map<string, number>();
  const firstSeen = encoded.map(({ bytes, starts }) => {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    const numbers = new Int32Array(starts.length - 1);
    for (let t = 0; t < numbers.length; t++) {
      const term = text.slice(starts[t], starts[t + 1]);
      let number = seen.get(term);
      if (number === undefined) seen.set(term, (number = seen.size));
      numbers[t] = number;
    }
    return numbers;
  });
  const unsorted = [...seen.keys()];
  const order = unsorted.map((_, i) => i).sort((a, b) => compareTerms(unsorted[a] as string, unsorted[b] as string));
  const terms = order.map((i) => unsorted[i] as string);
  const place = new Int32Array(order.length);
  order.forEach((i, at) => (place[i] = at));
  const ids = firstSeen.map((numbers) => numbers.map((number) => place[number] as number));
  const df = new Int32Array(terms.length);
  const postingStart = new Int32Array(terms.length + 1);
  for (let p = 0; p < parts.length; p++) {
    const part = encoded[p] as EncodedTerms;
    const partIds = ids[p] as Int32Array;
    for (let t = 0; t < partIds.length; t++) {
      const id = partIds[t] as number;
      df[id] = (df[id] as number) + (part.df[t] as number);
      postingStart[id + 1] = (postingStart[id + 1] as number) + (part.postingStart[t + 1] as number) - (part.postingStart[t] as number);
    }
  }
  for (let i = 0; i < terms.length; i++) postingStart[i + 1] = (postingStart[i + 1] as number) + (postingStart[i] as number);
  // Parts in order, so a term's postings are its postings in each part in turn, documents renumbered.
  const postings = new Int32Array(postingStart[terms.length] as number);
  const next = postingStart.slice(0, terms.length);
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p] as FieldIndex;
    const values = part.postings.read(0, part.postings.length);
    if (values.length !== part.postings.length) throw new DamagedPartError(p, 'its postings are cut short');
    const starts = (encoded[p] as EncodedTerms).postingStart;
    const partIds = ids[p] as Int32Array;
    const base = bases[p] as number;
    for (let t = 0; t < partIds.length; t++) {
      const id = partIds[t] as number;
      let at = next[id] as number;
      for (let j = starts[t] as number, end = starts[t + 1] as number; j + 1 < end; j += 2) {
        postings[at++] = (values[j] as number) + base;
        postings[at++] = values[j + 1] as number;
      }
      next[id] = at;
    }
  }
  const lengths = new Float32Array(FIELD_COUNT * n);
  const avgLength = new Float64Array(FIELD_COUNT);
  parts.forEach((part, p) => {
    for (let f = 0; f < FIELD_COUNT; f++) {
      lengths.set(part.lengths.subarray(f * part.size, (f + 1) * part.size), f * n + (bases[p] as number));
      avgLength[f] = (avgLength[f] as number) + (part.avgLength[f] as number) * part.size;
    }
  });
  for (let f = 0; f < FIELD_COUNT; f++) avgLength[f] = n ? (avgLength[f] as number) / n : 0;
  const repoIds = new Map<string, number>();
  const languageIds = new Map<string, number>();
  const renumbered = (ids: Map<string, number>, names: readonly string[], of: Int32Array) => Int32Array.from(of, (id) => intern(ids, names[id] ?? ''));
  const concat = <T extends Int32Array | Uint8Array>(make: (length: number) => T, arrays: readonly T[]): T => {
    const out = make(arrays.reduce((sum, a) => sum + a.length, 0));
    let at = 0;
    for (const a of arrays) {
      out.set(a, at);
      at += a.length;
    }
    return out;
  };
  const edges = (starts: (part: FieldIndex) => Int32Array, targets: (part: FieldIndex) => Int32Array) => {
    const start = new Int32Array(n + 1);
    const all: Int32Array[] = [];
    let offset = 0;
    parts.forEach((part, p) => {
      const base = bases[p] as number;
      const own = starts(part);
      for (let d = 0; d < part.size; d++) start[base + d] = offset + (own[d] as number);
      all.push(targets(part).map((t) => t + base));
      offset += targets(part).length;
    });
    start[n] = offset;
    return { start, targets: concat((length) => new Int32Array(length), all) };
  };
  const imports = edges((part) => part.importStart, (part) => part.importTargets);
  const importers = edges((part) => part.importerStart, (part) => part.importerSources);
  return {
    terms: termTableOf(terms, df, postingStart),
    postings: postingsInMemory(postings),
    lengths,
    avgLength,
    repoOf: concat((length) => new Int32Array(length), parts.map((part) => renumbered(repoIds, part.repos, part.repoOf))),
    repos: [...repoIds.keys()],
    paths: stringList(parts.flatMap((part) => part.paths.all())),
    roles: concat((length) => new Uint8Array(length), parts.map((part) => part.roles)),
    languageOf: concat((length) => new Int32Array(length), parts.map((part) => renumbered(languageIds, part.languages, part.languageOf))),
    languages: [...languageIds.keys()],
    isCode: concat((length) => new Uint8Array(length), parts.map((part) => part.isCode)),
    linesOfCode: concat((length) => new Int32Array(length), parts.map((part) => part.linesOfCode)),
    importStart: imports.start,
    importTargets: imports.targets,
    importerStart: importers.start,
    importerSources: importers.targets,
  };
}

/** Terms in the order of their bytes (they are ASCII), the order term tables search. */
export const compareTerms: (a: string, b: string) => number = compareCodeUnits;

/** What the import graph needs of a document. */
export interface LinkedDoc {
  repo: string;
  file: Pick<FileSummary, 'file_path' | 'role' | 'local_imports'>;
}

function intern(ids: Map<string, number>, value: string): number {
  let id = ids.get(value);
  if (id === undefined) ids.set(value, (id = ids.size));
  return id;
}

/**
 * Resolved local imports as edges between documents of the same repository, both ways, in CSR form. A test
 * also "imports" the source file it is named after (`flag_test.go` -> `flag.go`, `test_core.py` -> `core.py`),
 * since Go tests share a package and many tests import a package rather than the file they exercise.
 */
export function importGraph(docs: readonly LinkedDoc[]) {
  const n = docs.length;
  const byPath = new Map<string, number>();
  const byStem = new Map<string, number[]>();
  docs.forEach((doc, d) => {
    byPath.set(`${doc.repo}\0${doc.file.file_path}`, d);
    if (doc.file.role === 'source' || doc.file.role === 'entry_point') {
      const key = `${doc.repo}\0${splitPath(doc.file.file_path).stem.toLowerCase()}`;
      const list = byStem.get(key);
      if (list) list.push(d);
      else byStem.set(key, [d]);
    }
  });
  const out: number[][] = docs.map(() => []);
  const into: number[][] = docs.map(() => []);
  const link = (d: number, t: number | undefined): void => {
    if (t === undefined || t === d || (out[d] as number[]).includes(t)) return;
    (out[d] as number[]).push(t);
    (into[t] as number[]).push(d);
  };
  docs.forEach((doc, d) => {
    for (const target of doc.file.local_imports) link(d, byPath.get(`${doc.repo}\0${target}`));
    if (doc.file.role === 'test') {
      for (const tested of testedStems(doc.file.file_path)) {
        const sources = byStem.get(`${doc.repo}\0${tested}`);
        // A stem shared by many files (index, utils) says nothing about which one is tested.
        if (sources && sources.length <= 2) for (const t of sources) link(d, t);
      }
    }
  });
  const csr = (lists: number[][]) => {
    const start = new Int32Array(n + 1);
    let total = 0;
    lists.forEach((l, d) => {
      start[d] = total;
      total += l.length;
    });
    start[n] = total;
    const targets = new Int32Array(total);
    lists.forEach((l, d) => targets.set(l, start[d]));
    return { start, targets };
  };
  const imports = csr(out);
  const importers = csr(into);
  return { importStart: imports.start, importTargets: imports.targets, importerStart: importers.start, importerSources: importers.targets };
}
