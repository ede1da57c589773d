/**
 * A run's entries on their way to the index file, held by reference rather than as objects:
 *   - an entry made in this run is serialised as it finishes and appended to a fragment file beside the
 *     index (`.<index>.<pid>.<random>.fragment`), with its reuse-state detail;
 *   - an entry taken from the previous index stays a byte range of that file (one whose imports are resolved
 *     again is made anew, as in the first case).
 * In memory stay a few facts per entry (path, status, file type, where its bytes are) and, compactly, the
 * candidate concept terms the repository-wide choice of concepts needs. `write` then chooses the concepts,
 * copies every entry's bytes into the new index in path order with the values that changed spliced in
 * (key concepts, path, modification time, size, commit subjects), and writes the reuse state beside it. The
 * result is byte for byte the index a run holding every profile in memory writes.
 *
 * When no file's candidate terms came or went since the previous index, its concepts stand and are copied
 * with the rest: an unchanged repository's entries are copied, not parsed or re-serialised.
 *
 * A run from scratch that writes search packs also tokenises each entry for the pack as it is made, keeping
 * its token counts as term numbers: extraction threads still run then, where after the index is written the
 * main thread would tokenise every profile again alone.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { DocumentFrequencies, termsFromFlat, type TermList } from '../../extract/conceptTerms.js';
import { candidateTermsOf, choosesConcepts } from '../../extract/staticProfile.js';
import { WordCache } from '../../extract/wordCache.js';
import { CHANGEABLE, changeEntry, ENTRY_DEPTH, entryJson, nestedJson, rewriteEntry } from '../../index/entryJson.js';
import { FragmentFile } from '../../index/fileRanges.js';
import type { JsonStyle } from '../../index/serialize.js';
import type { AnalysisMetadata, FileRelationship, FileSummary } from '../../index/types.js';
import { isSearchable } from '../../search/corpus.js';
import { FieldIndex, FieldIndexBuilder } from '../../search/fieldIndex.js';
import { Tokenizer } from '../../search/profileTokens.js';
import { readTrailingMetadata } from '../../search/freshness.js';
import { RawArray, writeJsonStreamAtomic } from '../../index/writeStream.js';
import { tempPathFor } from '../../shared/atomicFile.js';
import { buildMetadata, sortRelationships } from '../buildIndex.js';
import { EntryTable } from './entryTable.js';
import { withHistory, type EntrySink, type FreshEntry, type IndexFacts, type Relate } from './entries.js';
import type { PreviousIndex } from './previousIndex.js';
import { RACY_MS, type ReusedEntry } from './reuse.js';
import { detailText, importsDigest, parseDetail, saveReuseState, type EntryFacts, type EntryShape, type RecordedHistory, type RepoIdentity, type StateHeader, type StateLine, type StoredRecord } from './reuseState.js';
import { EntryTally, type PreviousLayout, type WrittenIndex } from '../writeIndex.js';

/** What the reuse state records of the run as a whole. */
export interface RunState {
  startedAt: number;
  shape: EntryShape;
  repo: RepoIdentity;
  goModule: string | null;
  /** `filesDigest` of every file the walk listed. */
  walkedDigest: string;
  /** The commits the entries' subjects come from (null: no history); see `useHistory`. */
  history: RecordedHistory | null;
}

export interface AssembledIndex {
  index: WrittenIndex;
  /** Where each entry of `file_summaries` landed in the index file: start, end pairs, in order. */
  summaryRanges: Float64Array;
  /** The index on disk was left as it stood: this run would have written the same entries and metadata. */
  unchanged: boolean;
  /**
   * The search pack's field index and its documents' byte ranges, when the entries were tokenised as they were
   * made (StreamedEntries.create's `searchPackOf`, in a run that took nothing from a previous index).
   */
  searchPack?: { fieldIndex: FieldIndex; ranges: Float64Array };
  /**
   * When every entry is the previous index's under the same path with its key concepts as they were (only
   * dates and sizes may differ, which no search reads): the previous index's size and date, and where each
   * entry was in it (start, end pairs, in order), so the previous search pack's field index can be kept.
   */
  previous?: PreviousLayout;
}


export class StreamedEntries implements EntrySink {
  private readonly entries = new EntryTable();
  /** Memoised word splits and stems, for entries whose candidate terms are derived or weighed here. */
  private readonly words = new WordCache();
  /** Document frequencies of the candidate terms of the entries made or moved in this run. */
  private readonly frequencies = new DocumentFrequencies(this.words);
  private readonly relationships: FileRelationship[] = [];
  private previous: PreviousIndex | null = null;
  /** Whether some file's candidate terms came or went since the previous index: then every concept is chosen again. */
  private termsMoved = false;
  /** Records of entries taken from the previous index as they were whose concepts are chosen (their terms are in its state). */
  private readonly carried = new Set<StoredRecord>();

  /** Entries whose key concepts or commit subjects the write changed: a search reads them differently. */
  private readonly searchedAnew = new Set<number>();
  /** Each file's commit subjects (`useHistory`), by path. */
  private history: ReadonlyMap<string, string[]> = new Map();
  /** The relate stage without a model (`relateWith`), run over the finished profiles when the index is written. */
  private relate: Relate | null = null;
  /** Concepts the relate stage's profiles chose, by entry, until the write takes them (chosenConcepts). */
  private readonly concepts = new Map<number, string[]>();
  /** The fragment file, created when the first entry or detail is appended: a run that makes none writes none. */
  private fragmentFile: Promise<FragmentFile> | null = null;
  /**
   * The search pack's documents, tokenised as entries are made (while extraction still runs, rather than read
   * back from the index written), numbered as made: `docOf` maps an entry to its document. Null when no pack
   * is wanted, or entries come from a previous index (its pack is updated instead: searchPacks.ts).
   */
  private searchDocuments: { repo: string; builder: FieldIndexBuilder; docOf: Map<number, number> } | null;

  private constructor(
    readonly indexFile: string,
    private readonly style: JsonStyle,
    searchPackOf: string | null,
  ) {
    this.searchDocuments = searchPackOf === null ? null : { repo: searchPackOf, builder: new FieldIndexBuilder(new Tokenizer(STREAMED_MEMO_LIMIT)), docOf: new Map() };
  }

  /**
   * Entries for `indexFile`, after removing temp files that runs which died left beside it. With `searchPackOf`
   * (the repository's name) the index written comes with its search pack's field index (`AssembledIndex`).
   */
  static async create(indexFile: string, style: JsonStyle, searchPackOf: string | null = null): Promise<StreamedEntries> {
    await mkdir(path.dirname(indexFile), { recursive: true });
    await removeStaleTemps(indexFile);
    return new StreamedEntries(indexFile, style, searchPackOf);
  }

  private fragment(): Promise<FragmentFile> {
    return (this.fragmentFile ??= FragmentFile.create(tempPathFor(this.indexFile, 'fragment')));
  }

  /** The previous index reused entries come from; this closes it when it is disposed of. */
  takeFrom(previous: PreviousIndex | null): void {
    this.previous = previous;
    if (previous) this.searchDocuments = null;
  }

  /** A repository too large to hold its search documents through extraction gets its pack from the file written. */
  extracting(files: number): void {
    if (files > STREAMED_PACK_MAX_FILES) this.searchDocuments = null;
  }

  useHistory(subjects: ReadonlyMap<string, string[]>): void {
    this.history = subjects;
  }

  relateWith(relate: Relate): void {
    this.relate = relate;
  }

  async addFresh({ summary: profiled, relationships, record, terms: extracted }: FreshEntry): Promise<void> {
    const summary = withHistory(profiled, this.history);
    this.relationships.push(...relationships);
    const terms = choosesConcepts(summary.profile_source, summary.status) ? (extracted ?? candidateTermsOf(summary, this.words)) : null;
    if (terms) {
      this.termsMoved = true;
      this.frequencies.add(terms);
    }
    const { text, holes } = entryJson(summary, this.style);
    const fragment = await this.fragment();
    const { start, end } = await fragment.append(text);
    const detail = record ? await fragment.append(detailText({ imports: record.imports, terms: terms ? terms.flat() : null, exports: record.exports })) : null;
    const i = this.entries.add({
      // The walked file's path: one string for both.
      path: record?.file.path ?? summary.file_path,
      mtimeMs: record?.file.mtimeMs ?? 0,
      size: summary.size_bytes,
      place: { start, end, holes },
      choosesConcepts: terms !== null,
      fresh: {
        facts: factsOf(summary),
        record: record && detail ? { blob: record.blob, hash: summary.content_hash, detail: [detail.start, detail.end] } : null,
      },
    });
    const pack = this.searchDocuments;
    if (pack && isSearchable(summary)) {
      // Concepts chosen against the whole repository come when the index is written (entryBytes).
      const doc = { repo: pack.repo, file: summary };
      pack.docOf.set(i, terms ? pack.builder.addWithoutConcepts(doc) : pack.builder.add(doc));
    }
  }

  async addReused({ file, from, blob }: ReusedEntry): Promise<void> {
    const previous = this.previous;
    if (!previous) throw new Error('reused entries need the previous index (takeFrom)');
    if (from.facts.source === 'llm') this.relationships.push(...((await previous.relationships()).get(from.path) ?? []));
    const choosesOwn = choosesConcepts(from.facts.source, from.facts.status);
    let detail: [number, number] | null = null;
    if (from.path !== file.path && choosesOwn) {
      // Candidate terms include words of the path: a moved entry's are derived again from its stored profile.
      const stored = JSON.parse((await previous.entries.read(from.place.start, from.place.end)).toString('utf8')) as FileSummary;
      const terms = candidateTermsOf({ ...stored, file_path: file.path }, this.words);
      this.frequencies.add(terms);
      this.termsMoved = true;
      // Its imports as written and its exports stay; its terms are those of its new path.
      const recorded = await previous.details.detail(from);
      const appended = await (await this.fragment()).append(detailText({ ...recorded, terms: terms.flat() }));
      detail = [appended.start, appended.end];
    } else if (choosesOwn) {
      this.carried.add(from);
    }
    this.entries.add({ path: file.path, mtimeMs: file.mtimeMs, size: file.size, place: from.place, choosesConcepts: choosesOwn, reused: { from, blob, detail } });
  }

  /**
   * Chooses the concepts, writes the index (atomically, replacing the previous one) and then its reuse state.
   * `facts` describe the run; `now` stamps the index when its entries are all in.
   */
  async write(facts: IndexFacts, now: () => number, state: RunState, includeMetadata: boolean): Promise<AssembledIndex> {
    const { entries } = this;
    const order = entries.order();
    const counts = await this.documentFrequencies(order);
    const inferred = this.relate ? this.relate(await this.profiles(order, counts)) : [];
    const relationships = sortRelationships([...this.relationships, ...inferred]);
    const statuses = Array.from(order, (i) => {
      const { status, reason } = entries.facts(i);
      return reason ? { status, reason } : { status };
    });
    const metadata = buildMetadata({ ...facts, relationships, finishedAt: now() }, statuses);
    // Inferred relationships are made anew each run: the previous index stands only when they came out the same
    // (read from it only when nothing else says it must be written again).
    if (this.standsAsIs(order, counts, metadata, includeMetadata, state.history) && (!this.relate || (await this.sameAsPrevious(relationships)))) {
      return this.keepPrevious(order, relationships, metadata, state, facts.repoName);
    }
    const previousLayout = this.previousLayout(order);
    const relationshipsAt: [number, number] = [-1, -1];
    const summaryRanges = new Float64Array(2 * order.length);
    const body: Record<string, unknown> = {
      repo_name: facts.repoName,
      total_files: order.length,
      file_summaries: new RawArray(order.length, (n) => this.entryBytes(order[n] as number, counts), (n, start, end) => {
        entries.setPlace(order[n] as number, { start, end });
        summaryRanges[2 * n] = start;
        summaryRanges[2 * n + 1] = end;
      }),
      relationships: new RawArray(relationships.length, (i) => [Buffer.from(nestedJson(relationships[i], 2, this.style))], (i, start, end) => {
        if (i === 0) relationshipsAt[0] = start;
        relationshipsAt[1] = end;
      }),
    };
    if (includeMetadata) body.analysis_metadata = metadata;
    const written = await writeJsonStreamAtomic(this.indexFile, body, this.style);
    const recorded = Array.from(order).filter((i) => entries.recorded(i));
    await saveReuseState(
      this.indexFile,
      this.stateHeader(state, written.digest, written.bytes, recorded.length, relationships.length > 0 ? relationshipsAt : null),
      this.stateLines(recorded),
      counts || !this.previous ? (counts ?? this.frequencies).toJson() : await this.previous.frequencies(),
    );
    if (previousLayout) {
      // An entry whose concepts or subjects changed is searched differently: its previous bytes are not its own.
      order.forEach((i, n) => {
        if (this.searchedAnew.has(i)) previousLayout.ranges.fill(-1, 2 * n, 2 * n + 2);
      });
    }
    const searchPack = this.searchPack(order, summaryRanges);
    return {
      index: this.describe(order, relationships, metadata, facts.repoName),
      summaryRanges,
      unchanged: false,
      ...(previousLayout ? { previous: previousLayout } : {}),
      ...(searchPack ? { searchPack } : {}),
    };
  }

  /**
   * Every entry's profile as the index will hold it (its concepts chosen, its commit subjects, path, date and size
   * as this run has them), in path order, parsed from its bytes: what the relate stage searches. Nothing is changed.
   */
  private async profiles(order: Int32Array, counts: DocumentFrequencies | null): Promise<FileSummary[]> {
    const { entries } = this;
    const out: FileSummary[] = [];
    for (const i of order) {
      const concepts = await this.chosenConcepts(i, counts);
      const place = entries.place(i);
      const bytes = entries.inPrevious(i) ? await (this.previous as PreviousIndex).entries.read(place.start, place.end) : await (await this.fragment()).read(place.start, place.end);
      const { history: _written, ...stored } = JSON.parse(bytes.toString('utf8')) as FileSummary;
      const history = this.history.get(entries.path(i));
      out.push({ ...stored, ...(entries.changes(i) ?? {}), ...(concepts ? { key_concepts: concepts } : {}), ...(history ? { history } : {}) });
    }
    return out;
  }

  /** Whether `relationships` (sorted) are those of the previous index; false without one. */
  private async sameAsPrevious(relationships: readonly FileRelationship[]): Promise<boolean> {
    if (!this.previous) return false;
    const before = sortRelationships([...(await this.previous.relationships()).values()].flat());
    return JSON.stringify(before) === JSON.stringify(relationships);
  }

  /** The field index of the documents tokenised as they were made, in the index's order, with their byte ranges. */
  private searchPack(order: Int32Array, summaryRanges: Float64Array): AssembledIndex['searchPack'] {
    const pack = this.searchDocuments;
    if (!pack) return undefined;
    this.searchDocuments = null;
    const docs: number[] = [];
    const ranges: number[] = [];
    order.forEach((i, n) => {
      const d = pack.docOf.get(i);
      if (d === undefined) return;
      docs.push(d);
      ranges.push(summaryRanges[2 * n] as number, summaryRanges[2 * n + 1] as number);
    });
    return { fieldIndex: new FieldIndex(pack.builder.finish(Int32Array.from(docs))), ranges: Float64Array.from(ranges) };
  }

  /** The previous index's layout, when every entry is taken from it under its path and keeps its concepts. */
  private previousLayout(order: Int32Array): PreviousLayout | undefined {
    const { previous, entries } = this;
    if (!previous || !sameStyle(previous.style, this.style)) return undefined;
    const ranges = new Float64Array(2 * order.length).fill(-1);
    for (let n = 0; n < order.length; n++) {
      const i = order[n] as number;
      if (!entries.samePath(i)) continue;
      const { start, end } = entries.place(i);
      ranges[2 * n] = start;
      ranges[2 * n + 1] = end;
    }
    return { source: previous.source, ranges };
  }

  /**
   * Whether the previous index already is the one this run would write, but for the run facts of its metadata
   * (RUN_FACTS): every entry taken from it as it stands, its concepts kept, nothing paid for from a model in
   * this run, and the rest of its metadata the same (its count of entries by status included, so no entry of
   * it went), its commit subjects read at the same HEAD within the same bounds. Then the index is left as it
   * is, its date and duration those of the run that wrote it, and so is its search pack, which answers for its
   * size and modification time.
   */
  private standsAsIs(order: Int32Array, counts: DocumentFrequencies | null, metadata: AnalysisMetadata, includeMetadata: boolean, history: RecordedHistory | null): boolean {
    const { previous } = this;
    if (!previous || !includeMetadata || counts !== null || !sameStyle(previous.style, this.style)) return false;
    if (metadata.llm_calls > 0 || metadata.retries > 0) return false;
    if (!sameHistory(previous.header.history, history)) return false;
    for (const i of order) if (!this.entries.asBefore(i, false)) return false;
    const before = readTrailingMetadata(this.indexFile);
    return before !== null && JSON.stringify(withoutRunFacts(before)) === JSON.stringify(withoutRunFacts(metadata));
  }

  /**
   * Leaves the previous index as it stands (standsAsIs) and its reuse state too, unless a record in it changed
   * (a blob id learnt, a file dated too close to the previous run to trust its date) or what the state says of
   * the run did: then only the state is written again, still describing the same index.
   */
  private async keepPrevious(order: Int32Array, relationships: FileRelationship[], metadata: AnalysisMetadata, state: RunState, repoName: string): Promise<AssembledIndex> {
    const { entries } = this;
    const previous = this.previous as PreviousIndex;
    const summaryRanges = new Float64Array(2 * order.length);
    order.forEach((i, n) => {
      const { start, end } = entries.place(i);
      summaryRanges[2 * n] = start;
      summaryRanges[2 * n + 1] = end;
    });
    const { header } = previous;
    const stateStands =
      JSON.stringify(header.shape) === JSON.stringify(state.shape) &&
      header.repo.path === state.repo.path &&
      header.repo.origin === state.repo.origin &&
      previous.goModule === state.goModule &&
      previous.walkedDigest === state.walkedDigest &&
      Array.from(order).every((i) => entries.asBefore(i, true) && (entries.from(i) as StoredRecord).mtimeMs < previous.startedAt - RACY_MS);
    if (!stateStands) {
      const recorded = Array.from(order);
      await saveReuseState(
        this.indexFile,
        this.stateHeader(state, header.index_digest, header.index_bytes, recorded.length, header.relationships),
        this.stateLines(recorded),
        await previous.frequencies(),
      );
    }
    return { index: this.describe(order, relationships, metadata, repoName), summaryRanges, unchanged: true };
  }

  /** The reuse state's header for an index of these bytes, written (or kept) by this run. */
  private stateHeader(state: RunState, digest: string, bytes: number, files: number, relationships: StateHeader['relationships']): Omit<StateHeader, 'format' | 'version'> {
    return {
      index_digest: digest,
      index_bytes: bytes,
      started_ms: state.startedAt,
      shape: state.shape,
      repo: state.repo,
      go_module: state.goModule,
      walked_digest: state.walkedDigest,
      style: this.style,
      files,
      relationships,
      history: state.history,
    };
  }

  /** What the reports need of the index written (or kept), its entries counted. */
  private describe(order: Int32Array, relationships: FileRelationship[], metadata: AnalysisMetadata, repoName: string): WrittenIndex {
    const { entries } = this;
    const tally = new EntryTally();
    for (const i of order) {
      const { fileType, status, reason, lines } = entries.facts(i);
      tally.add({ file_path: entries.path(i), file_type: fileType, status, reason, lines_of_code: lines });
    }
    const { file_type_counts, analyzed_files, lines_of_code, failed_files } = tally;
    return { repo_name: repoName, total_files: order.length, relationships, analysis_metadata: metadata, file_type_counts, analyzed_files, lines_of_code, failed_files };
  }

  /** Closes the previous index and deletes the fragment file, whether or not the index was written. */
  async dispose(): Promise<void> {
    const fragment = this.fragmentFile;
    await Promise.all([fragment?.then((file) => file.remove(), () => undefined), this.previous?.close()]);
  }

  /**
   * The document frequencies of every entry whose concepts are chosen, when they are chosen again (some file's
   * candidate terms came or went since the previous index); null when every entry keeps its concepts. The
   * previous run's counts are updated: files gone, changed or moved taken out, this run's new ones added.
   */
  private async documentFrequencies(order: Int32Array): Promise<DocumentFrequencies | null> {
    const { previous } = this;
    if (!previous) return this.termsMoved ? this.frequencies : null;
    const previousDocuments = [...previous.records.values()].filter((r) => choosesConcepts(r.facts.source, r.facts.status));
    if (!this.termsMoved && this.carried.size === previousDocuments.length) return null;
    let counts: DocumentFrequencies;
    try {
      counts = DocumentFrequencies.fromJson((await previous.frequencies()).toString('utf8'), this.words);
      for (const record of previousDocuments) if (!this.carried.has(record)) counts.remove(termsFromFlat((await previous.details.terms(record)) ?? []));
    } catch {
      // Counts that cannot be read are counted again from the terms of the entries carried over.
      counts = new DocumentFrequencies(this.words);
      for (const i of order) if (this.entries.choosesConcepts(i) && this.entries.detailRange(i) === null) counts.add(await this.storedTerms(i));
    }
    counts.merge(this.frequencies);
    return counts;
  }

  /** An entry's candidate terms, from its detail in the fragment or in the previous state. */
  private async storedTerms(i: number): Promise<TermList> {
    const range = this.entries.detailRange(i);
    const from = this.entries.from(i);
    if (range) return termsFromFlat(parseDetail(await (await this.fragment()).read(range[0], range[1])).terms ?? []);
    if (!this.previous || !from) throw new Error(`no stored terms for ${this.entries.path(i)}`);
    return termsFromFlat((await this.previous.details.terms(from)) ?? []);
  }

  /**
   * The concepts chosen for entry `i` this run (null when it keeps its own): chosen once, though both the relate
   * stage's profiles and the write ask.
   */
  private async chosenConcepts(i: number, counts: DocumentFrequencies | null): Promise<string[] | null> {
    if (!counts || !this.entries.choosesConcepts(i)) return null;
    let concepts = this.concepts.get(i);
    if (!concepts) {
      concepts = counts.concepts(await this.storedTerms(i));
      // Kept only while the relate stage's profiles are ahead of the write.
      if (this.relate) this.concepts.set(i, concepts);
    } else this.concepts.delete(i);
    return concepts;
  }

  private async entryBytes(i: number, counts: DocumentFrequencies | null): Promise<Buffer[]> {
    const { entries } = this;
    // Terms first: a read answers a window of its file that the next read of that file may reuse.
    const concepts = await this.chosenConcepts(i, counts);
    const place = entries.place(i);
    const previous = entries.inPrevious(i) ? (this.previous as PreviousIndex) : null;
    const bytes = previous ? await previous.entries.read(place.start, place.end) : await (await this.fragment()).read(place.start, place.end);
    const restyle = previous !== null && !sameStyle(previous.style, this.style);
    // Concepts chosen again are mostly the ones already written: those bytes stay as they are.
    const unchanged = concepts && !restyle && holeHolds(bytes, place.holes, CHANGEABLE.indexOf('key_concepts'), nestedJson(concepts, ENTRY_DEPTH + 1, this.style));
    let changes = concepts && !unchanged ? { ...entries.changes(i), key_concepts: concepts } : entries.changes(i);
    // Subjects come and go with HEAD, the file itself unchanged.
    const history = this.history.get(entries.path(i));
    const subjectsStand = history ? holeHolds(bytes, place.holes, HISTORY, nestedJson(history, ENTRY_DEPTH + 1, this.style)) : (place.holes[2 * HISTORY] ?? -1) < 0;
    if (!subjectsStand) changes = { ...changes, history };
    if ((concepts && !unchanged) || !subjectsStand) this.searchedAnew.add(i);
    const doc = concepts ? this.searchDocuments?.docOf.get(i) : undefined;
    if (doc !== undefined) this.searchDocuments?.builder.addConcepts(doc, concepts as string[]);
    if (!changes && !restyle) return [bytes];
    const changed = restyle ? rewriteEntry(bytes, changes ?? {}, this.style) : changeEntry(bytes, place.holes, changes ?? {}, this.style);
    entries.setPlace(i, { holes: changed.holes });
    return changed.pieces;
  }

  private async *stateLines(recorded: number[]): AsyncGenerator<StateLine> {
    const { entries } = this;
    for (const i of recorded) {
      const range = entries.detailRange(i);
      const from = entries.from(i);
      yield {
        record: entries.record(i),
        detail: range ? await (await this.fragment()).read(range[0], range[1]) : await (this.previous as PreviousIndex).details.bytes(from as StoredRecord),
      };
    }
  }
}

/**
 * The most files whose search documents a run holds while it extracts them. They take about 2 KB a file on the
 * main thread (term numbers as varints, the term table), at the run's peak of memory: 5,000 files add about
 * 12 MB. Beyond this the pack is built from the index file after extraction, when the threads' memory is freed
 * (50,000 files streamed peaked at 436 MB against 382 MB).
 */
const STREAMED_PACK_MAX_FILES = 10_000;

/**
 * The streamed documents' tokenizer memo: it lives through extraction, at the run's peak of memory. Identifiers
 * repeat mostly within a few files: 20,000 kept tokenise 5,000 files as fast as 100,000 (47,000 distinct), in
 * 6 MB instead of 15.
 */
const STREAMED_MEMO_LIMIT = 20_000;

/**
 * The metadata that describes the run that wrote an index rather than the index: when, how long, and what its
 * model calls cost. An index left as it stands keeps those of the run that wrote it.
 */
const RUN_FACTS = ['analysis_date', 'duration_ms', 'cache_hits', 'llm_calls', 'retries', 'token_usage', 'secrets_redacted'] as const;

function withoutRunFacts(metadata: AnalysisMetadata): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...metadata };
  for (const key of RUN_FACTS) delete rest[key];
  return rest;
}

const HISTORY = CHANGEABLE.indexOf('history');

/** Whether the value in the entry's range for changeable field `field` is `json`. */
function holeHolds(bytes: Buffer, holes: readonly number[], field: number, json: string): boolean {
  const start = holes[2 * field] ?? -1;
  const end = holes[2 * field + 1] ?? -1;
  return start >= 0 && end - start === Buffer.byteLength(json) && bytes.toString('utf8', start, end) === json;
}

/** Whether two runs read the same commits (same HEAD, same bounds) and keep as many subjects of them. */
function sameHistory(a: RecordedHistory | null, b: RecordedHistory | null): boolean {
  if (!a || !b) return a === b;
  return a.subjects === b.subjects && a.read.head === b.read.head && a.read.maxCommits === b.read.maxCommits && a.read.maxAgeDays === b.read.maxAgeDays;
}

function sameStyle(a: JsonStyle, b: JsonStyle): boolean {
  return a.indent === b.indent && a.ensureAscii === b.ensureAscii;
}

function factsOf(summary: FileSummary): EntryFacts {
  return {
    status: summary.status,
    reason: summary.reason ?? null,
    source: summary.profile_source,
    fileType: summary.file_type,
    lines: summary.lines_of_code,
    imports: importsDigest(summary.dependencies, summary.local_imports),
  };
}

/**
 * Deletes the temp files (partial indexes, states and fragments) that runs killed before they could clean up
 * left beside `indexFile`: those of processes no longer running. Nothing reads them; they only take space.
 */
async function removeStaleTemps(indexFile: string): Promise<void> {
  const dir = path.dirname(indexFile);
  const names = await readdir(dir).catch(() => [] as string[]);
  const prefixes = [`.${path.basename(indexFile)}.`, `..${path.basename(indexFile)}.state.`];
  for (const name of names) {
    const prefix = prefixes.find((p) => name.startsWith(p));
    const match = prefix ? /^(\d+)\.[0-9a-f]+\.(tmp|fragment)$/.exec(name.slice(prefix.length)) : null;
    if (match && !isRunning(Number(match[1]))) await rm(path.join(dir, name), { force: true });
  }
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
