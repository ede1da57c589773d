/**
 * A run's entries on their way to the index file, held by reference rather than as objects:
 *   - an entry made in this run is serialised as it finishes and appended to a fragment file beside the
 *     index (`.<index>.<pid>.<random>.fragment`), with its reuse-state detail;
 *   - an entry taken from the previous index stays a byte range of that file.
 * In memory stay a few facts per entry (path, status, file type, where its bytes are) and, compactly, the
 * candidate concept terms the repository-wide choice of concepts needs. `write` then chooses the concepts,
 * copies every entry's bytes into the new index in path order with the values that changed spliced in
 * (key concepts, path, modification time, size), and writes the reuse state beside it. The result is
 * byte for byte the index a run holding every profile in memory writes.
 *
 * When no file's candidate terms came or went since the previous index, its concepts stand and are copied
 * with the rest: an unchanged repository's entries are copied, not parsed or re-serialised.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { TermLists } from '../extract/conceptTerms.js';
import { candidateTermsOf } from '../extract/staticProfile.js';
import { WordCache } from '../extract/wordCache.js';
import { changeEntry, entryJson, nestedJson, rewriteEntry, type EntryChanges } from '../index/entryJson.js';
import { FragmentFile } from '../index/fileRanges.js';
import type { JsonStyle } from '../index/serialize.js';
import type { FileRelationship, FileSummary } from '../index/types.js';
import { RawArray, tempPathFor, writeJsonStreamAtomic } from '../index/writeStream.js';
import { buildMetadata, compare, sortRelationships } from './buildIndex.js';
import { choosesConcepts, type EntrySink, type FreshEntry, type IndexFacts } from './entries.js';
import type { PreviousIndex } from './previousIndex.js';
import { isoDate } from './profile.js';
import type { ReusedEntry } from './reuse.js';
import { detailBytes, importsDigest, saveReuseState, type EntryFacts, type EntryPlace, type EntryShape, type RepoIdentity, type StateLine, type StoredRecord } from './reuseState.js';
import { EntryTally, type WrittenIndex } from './writeIndex.js';

/** Concepts not chosen for this entry (model profiles, skipped files). */
const NO_CONCEPTS = -1;
/** Concepts chosen from terms still in the previous run's state, read only if concepts are chosen again. */
const STORED_TERMS = -2;

type Range = [start: number, end: number];

interface Entry {
  path: string;
  mtimeMs: number;
  size: number;
  facts: EntryFacts;
  /** Where the entry's bytes are, as they are to be copied, and what changes in them. */
  body: { in: 'fragment' | 'previous'; place: EntryPlace; changes: EntryChanges | null };
  /** The state record's identity and detail; null for entries the state does not record. */
  record: { blob: string | null; hash: string; detail: { in: 'fragment'; range: Range } | { in: 'previous'; from: StoredRecord } } | null;
  /** The entry's candidate terms in `TermLists`, or NO_CONCEPTS / STORED_TERMS. */
  document: number;
}

/** What the reuse state records of the run as a whole. */
export interface RunState {
  startedAt: number;
  shape: EntryShape;
  repo: RepoIdentity;
  goModule: string | null;
}

export interface AssembledIndex {
  index: WrittenIndex;
}

export class StreamedEntries implements EntrySink {
  private readonly entries: Entry[] = [];
  private readonly terms = new TermLists();
  /** Memoised word splits and stems for deriving candidate terms. */
  private readonly words = new WordCache();
  private readonly relationships: FileRelationship[] = [];
  private previous: PreviousIndex | null = null;
  /** Whether some file's candidate terms came or went since the previous index: then every concept is chosen again. */
  private termsMoved = false;
  private storedDocuments = 0;

  private constructor(
    readonly indexFile: string,
    private readonly fragment: FragmentFile,
    private readonly style: JsonStyle,
  ) {}

  /** Entries for `indexFile`, after removing temp files that runs which died left beside it. */
  static async create(indexFile: string, style: JsonStyle): Promise<StreamedEntries> {
    await mkdir(path.dirname(indexFile), { recursive: true });
    await removeStaleTemps(indexFile);
    return new StreamedEntries(indexFile, await FragmentFile.create(tempPathFor(indexFile, 'fragment')), style);
  }

  /** The previous index reused entries come from; this closes it when it is disposed of. */
  takeFrom(previous: PreviousIndex | null): void {
    this.previous = previous;
  }

  async addFresh({ summary, relationships, record }: FreshEntry): Promise<void> {
    this.relationships.push(...relationships);
    const terms = choosesConcepts(summary) ? candidateTermsOf(summary, this.words) : null;
    const document = terms ? this.terms.add(terms) : NO_CONCEPTS;
    if (terms) this.termsMoved = true;
    const { bytes, holes } = entryJson(summary, this.style);
    const { start, end } = await this.fragment.append([bytes]);
    const entry: Entry = {
      path: summary.file_path,
      mtimeMs: record?.mtimeMs ?? 0,
      size: summary.size_bytes,
      facts: factsOf(summary),
      body: { in: 'fragment', place: { start, end, holes }, changes: null },
      record: null,
      document,
    };
    if (record) {
      const detail = await this.fragment.append([detailBytes({ imports: record.imports, terms: terms ? terms.flat() : null })]);
      entry.record = { blob: record.blob, hash: summary.content_hash, detail: { in: 'fragment', range: [detail.start, detail.end] } };
    }
    this.entries.push(entry);
  }

  async addReused({ file, from, blob }: ReusedEntry): Promise<void> {
    const previous = this.previous;
    if (!previous) throw new Error('reused entries need the previous index (takeFrom)');
    const moved = from.path !== file.path;
    const changes: EntryChanges = {};
    if (moved) changes.file_path = file.path;
    if (moved || file.mtimeMs !== from.mtimeMs) changes.last_modified = isoDate(file.mtimeMs);
    if (moved || file.size !== from.size) changes.size_bytes = file.size;
    if (from.facts.source === 'llm') this.relationships.push(...((await previous.relationships()).get(from.path) ?? []));
    const entry: Entry = {
      path: file.path,
      mtimeMs: file.mtimeMs,
      size: file.size,
      facts: from.facts,
      body: { in: 'previous', place: from.place, changes: Object.keys(changes).length > 0 ? changes : null },
      record: { blob, hash: from.hash, detail: { in: 'previous', from } },
      document: from.facts.source === 'static' && from.facts.status !== 'skipped' ? STORED_TERMS : NO_CONCEPTS,
    };
    if (moved && entry.document === STORED_TERMS) {
      // Candidate terms include words of the path: a moved entry's are derived again from its stored profile.
      const stored = JSON.parse((await previous.entries.read(from.place.start, from.place.end)).toString('utf8')) as FileSummary;
      const terms = candidateTermsOf({ ...stored, file_path: file.path }, this.words);
      entry.document = this.terms.add(terms);
      this.termsMoved = true;
      const imports = await previous.details.imports(from);
      const detail = await this.fragment.append([detailBytes({ imports, terms: terms.flat() })]);
      entry.record = { blob, hash: from.hash, detail: { in: 'fragment', range: [detail.start, detail.end] } };
    } else if (entry.document === STORED_TERMS) {
      this.storedDocuments++;
    }
    this.entries.push(entry);
  }

  /**
   * Chooses the concepts, writes the index (atomically, replacing the previous one) and then its reuse state.
   * `facts` describe the run; `now` stamps the index when its entries are all in.
   */
  async write(facts: IndexFacts, now: () => number, state: RunState, includeMetadata: boolean): Promise<AssembledIndex> {
    const entries = this.entries.sort((a, b) => compare(a.path, b.path));
    const conceptsOf = await this.chooseConcepts(entries);
    const relationships = sortRelationships(this.relationships);
    const metadata = buildMetadata({ ...facts, relationships, finishedAt: now() }, entries.map((e) => ({ status: e.facts.status, ...(e.facts.reason ? { reason: e.facts.reason } : {}) })));
    const relationshipsAt: Range = [-1, -1];
    const body: Record<string, unknown> = {
      repo_name: facts.repoName,
      total_files: entries.length,
      file_summaries: new RawArray(entries.length, (i) => this.entryBytes(entries[i] as Entry, conceptsOf), (i, start, end) => {
        const entry = entries[i] as Entry;
        entry.body.place = { ...entry.body.place, start, end };
      }),
      relationships: new RawArray(relationships.length, (i) => [Buffer.from(nestedJson(relationships[i], 2, this.style))], (i, start, end) => {
        if (i === 0) relationshipsAt[0] = start;
        relationshipsAt[1] = end;
      }),
    };
    if (includeMetadata) body.analysis_metadata = metadata;
    const written = await writeJsonStreamAtomic(this.indexFile, body, this.style);
    await saveReuseState(
      this.indexFile,
      {
        index_digest: written.digest,
        index_bytes: written.bytes,
        started_ms: state.startedAt,
        shape: state.shape,
        repo: state.repo,
        go_module: state.goModule,
        style: this.style,
        files: entries.filter((e) => e.record).length,
        relationships: relationships.length > 0 ? relationshipsAt : null,
      },
      this.stateLines(entries),
    );
    const tally = new EntryTally();
    for (const e of entries) tally.add({ file_path: e.path, file_type: e.facts.fileType, status: e.facts.status, reason: e.facts.reason, lines_of_code: e.facts.lines });
    const { file_type_counts, analyzed_files, lines_of_code, failed_files } = tally;
    return {
      index: { repo_name: facts.repoName, total_files: entries.length, relationships, analysis_metadata: metadata, file_type_counts, analyzed_files, lines_of_code, failed_files },
    };
  }

  /** Closes the previous index and deletes the fragment file, whether or not the index was written. */
  async dispose(): Promise<void> {
    await Promise.all([this.fragment.remove(), this.previous?.close()]);
  }

  /** Each entry's concepts when they are chosen again, or null when every entry keeps its own. */
  private async chooseConcepts(entries: Entry[]): Promise<((entry: Entry) => string[] | null) | null> {
    const previous = this.previous;
    const previousDocuments = previous ? [...previous.records.values()].filter((r) => r.facts.source === 'static' && r.facts.status !== 'skipped').length : 0;
    if (!this.termsMoved && this.storedDocuments === previousDocuments) return null;
    for (const entry of entries) {
      if (entry.document !== STORED_TERMS) continue;
      const detail = entry.record?.detail;
      if (!previous || detail?.in !== 'previous') throw new Error(`no stored terms for ${entry.path}`);
      entry.document = this.terms.addFlat((await previous.details.terms(detail.from)) ?? []);
    }
    const choose = this.terms.conceptsChooser(entries.flatMap((e) => (e.document >= 0 ? [e.document] : [])));
    return (entry) => (entry.document >= 0 ? choose(entry.document) : null);
  }

  private async entryBytes(entry: Entry, conceptsOf: ((entry: Entry) => string[] | null) | null): Promise<Buffer[]> {
    const { place } = entry.body;
    const bytes = entry.body.in === 'fragment' ? await this.fragment.read(place.start, place.end) : await (this.previous as PreviousIndex).entries.read(place.start, place.end);
    const concepts = conceptsOf?.(entry) ?? null;
    const changes = concepts ? { ...entry.body.changes, key_concepts: concepts } : entry.body.changes;
    const restyle = entry.body.in === 'previous' && !sameStyle((this.previous as PreviousIndex).style, this.style);
    if (!changes && !restyle) return [bytes];
    const changed = restyle ? rewriteEntry(bytes, changes ?? {}, this.style) : changeEntry(bytes, place.holes, changes ?? {}, this.style);
    entry.body.place = { ...place, holes: changed.holes };
    return changed.pieces;
  }

  private async *stateLines(entries: Entry[]): AsyncGenerator<StateLine> {
    for (const e of entries) {
      if (!e.record) continue;
      const { detail } = e.record;
      yield {
        record: { path: e.path, mtimeMs: e.mtimeMs, size: e.size, blob: e.record.blob, hash: e.record.hash, place: e.body.place, facts: e.facts },
        detail: detail.in === 'fragment' ? await this.fragment.read(detail.range[0], detail.range[1]) : await (this.previous as PreviousIndex).details.bytes(detail.from),
      };
    }
  }
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
