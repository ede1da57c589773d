/**
 * The entries of one run as columns: per entry a row of numbers in shared typed arrays and a few strings, no
 * object of its own, so a run over 50,000 files keeps its entries in a few megabytes. An entry taken from the
 * previous index keeps a reference to the previous run's record (already in memory) for what did not change.
 */
import { HOLE_COUNT, type EntryChanges } from '../../index/entryJson.js';
import type { FileStatus, ProfileSource } from '../../index/types.js';
import { compareCodeUnits } from '../../shared/text.js';
import { isoDate } from '../buildIndex.js';
import type { EntryFacts, EntryPlace, StoredRecord } from './reuseState.js';

const STATUSES: readonly FileStatus[] = ['ok', 'skipped', 'failed'];
const SOURCES: readonly ProfileSource[] = ['static', 'llm', 'none'];

// The numbers of a row.
const MTIME = 0;
const SIZE = 1;
const START = 2;
const END = 3;
const HOLES = 4; // HOLE_COUNT of them
const DETAIL_START = HOLES + HOLE_COUNT;
const DETAIL_END = DETAIL_START + 1;
const LINES = DETAIL_START + 2;
const FILE_TYPE = DETAIL_START + 3;
const FLAGS = DETAIL_START + 4;
const WIDTH = DETAIL_START + 5;

// FLAGS bits.
const IN_PREVIOUS = 1;
const DETAIL_IN_PREVIOUS = 2;
const RECORDED = 4;
const NEW_PATH = 8;
const NEW_DATE = 16;
const NEW_SIZE = 32;
const CHOOSES_CONCEPTS = 64;
const STATUS_SHIFT = 7;
const SOURCE_SHIFT = 9;

const ROWS_PER_CHUNK = 4096;

/** An entry as it is added: where its bytes and its state detail are, and what the next run must know of it. */
export interface EntryRow {
  path: string;
  mtimeMs: number;
  size: number;
  /** The entry's bytes: in this run's fragment file, or in the previous index (`from.place`). */
  place: EntryPlace;
  /** Whether the entry's key concepts are chosen against the repository's (its candidate terms are in its detail). */
  choosesConcepts: boolean;
  /** An entry made in this run: its facts, and its record's identity and detail range in the fragment (null: not recorded). */
  fresh?: { facts: EntryFacts; record: { blob: string | null; hash: string; detail: [number, number] } | null };
  /** An entry taken from the previous index: its record there, the blob id today, and whether its detail moved to the fragment. */
  reused?: { from: StoredRecord; blob: string | null; detail: [number, number] | null };
}

export class EntryTable {
  private readonly chunks: Float64Array[] = [];
  private readonly paths: string[] = [];
  private readonly hashes: string[] = [];
  private readonly digests: string[] = [];
  private readonly blobs: Array<string | null> = [];
  private readonly froms: Array<StoredRecord | undefined> = [];
  private readonly reasons = new Map<number, string>();
  private readonly fileTypes: string[] = [];
  private readonly fileTypeIds = new Map<string, number>();

  get length(): number {
    return this.paths.length;
  }

  add(row: EntryRow): number {
    const i = this.paths.length;
    if (i % ROWS_PER_CHUNK === 0) this.chunks.push(new Float64Array(ROWS_PER_CHUNK * WIDTH));
    this.paths.push(row.path);
    this.set(i, MTIME, row.mtimeMs);
    this.set(i, SIZE, row.size);
    this.setPlace(i, row.place);
    let flags = row.choosesConcepts ? CHOOSES_CONCEPTS : 0;
    if (row.fresh) {
      const { facts, record } = row.fresh;
      flags |= (STATUSES.indexOf(facts.status) << STATUS_SHIFT) | (SOURCES.indexOf(facts.source) << SOURCE_SHIFT);
      if (facts.reason !== null) this.reasons.set(i, facts.reason);
      this.set(i, FILE_TYPE, this.fileTypeId(facts.fileType));
      this.set(i, LINES, facts.lines);
      this.digests[i] = facts.imports;
      if (record) {
        flags |= RECORDED;
        this.hashes[i] = record.hash;
        this.blobs[i] = record.blob;
        this.set(i, DETAIL_START, record.detail[0]);
        this.set(i, DETAIL_END, record.detail[1]);
      }
    } else if (row.reused) {
      const { from, blob, detail } = row.reused;
      flags |= IN_PREVIOUS | RECORDED;
      if (from.path !== row.path) flags |= NEW_PATH | NEW_DATE | NEW_SIZE;
      if (from.mtimeMs !== row.mtimeMs) flags |= NEW_DATE;
      if (from.size !== row.size) flags |= NEW_SIZE;
      this.froms[i] = from;
      this.blobs[i] = blob;
      if (detail) {
        this.set(i, DETAIL_START, detail[0]);
        this.set(i, DETAIL_END, detail[1]);
      } else flags |= DETAIL_IN_PREVIOUS;
    }
    this.set(i, FLAGS, flags);
    return i;
  }

  path(i: number): string {
    return this.paths[i] as string;
  }

  inPrevious(i: number): boolean {
    return (this.flags(i) & IN_PREVIOUS) !== 0;
  }

  recorded(i: number): boolean {
    return (this.flags(i) & RECORDED) !== 0;
  }

  /** The previous run's record of an entry taken from it. */
  from(i: number): StoredRecord | undefined {
    return this.froms[i];
  }

  facts(i: number): EntryFacts {
    const from = this.froms[i];
    if (from) return from.facts;
    const flags = this.flags(i);
    return {
      status: STATUSES[(flags >> STATUS_SHIFT) & 3] as FileStatus,
      reason: this.reasons.get(i) ?? null,
      source: SOURCES[(flags >> SOURCE_SHIFT) & 3] as ProfileSource,
      fileType: this.fileTypes[this.get(i, FILE_TYPE)] as string,
      lines: this.get(i, LINES),
      imports: this.digests[i] as string,
    };
  }

  place(i: number): EntryPlace {
    const holes: number[] = [];
    for (let h = 0; h < HOLE_COUNT; h++) holes.push(this.get(i, HOLES + h));
    return { start: this.get(i, START), end: this.get(i, END), holes };
  }

  setPlace(i: number, place: Partial<EntryPlace>): void {
    if (place.start !== undefined) this.set(i, START, place.start);
    if (place.end !== undefined) this.set(i, END, place.end);
    if (place.holes) for (let h = 0; h < HOLE_COUNT; h++) this.set(i, HOLES + h, place.holes[h] ?? -1);
  }

  /** The values to change in an entry taken from the previous index: its path, date and size, as the walk saw them. */
  changes(i: number): EntryChanges | null {
    const flags = this.flags(i);
    if ((flags & (NEW_PATH | NEW_DATE | NEW_SIZE)) === 0) return null;
    const changes: EntryChanges = {};
    if (flags & NEW_PATH) changes.file_path = this.path(i);
    if (flags & NEW_DATE) changes.last_modified = isoDate(this.get(i, MTIME));
    if (flags & NEW_SIZE) changes.size_bytes = this.get(i, SIZE);
    return changes;
  }

  /** Whether an entry is the previous index's under the same path (its date and size may have changed). */
  samePath(i: number): boolean {
    return (this.flags(i) & (IN_PREVIOUS | NEW_PATH)) === IN_PREVIOUS;
  }

  /**
   * Whether an entry is the previous index's as it stands: taken from it under the same path, date and size,
   * its detail still in the previous state, and (`sameRecord`) its record unchanged too (same blob id).
   */
  asBefore(i: number, sameRecord: boolean): boolean {
    const flags = this.flags(i);
    if ((flags & IN_PREVIOUS) === 0 || (flags & DETAIL_IN_PREVIOUS) === 0 || (flags & (NEW_PATH | NEW_DATE | NEW_SIZE)) !== 0) return false;
    return !sameRecord || (this.blobs[i] ?? null) === (this.froms[i]?.blob ?? null);
  }

  choosesConcepts(i: number): boolean {
    return (this.flags(i) & CHOOSES_CONCEPTS) !== 0;
  }

  /**
   * Where the entry's state detail is in the fragment file, or null when it is still in the previous state. An
   * entry with no record has no detail at all: asking for it is a mistake, not an empty range.
   */
  detailRange(i: number): [number, number] | null {
    const flags = this.flags(i);
    if (!(flags & RECORDED)) throw new Error(`${this.path(i)} has no state record, so no detail`);
    return flags & DETAIL_IN_PREVIOUS ? null : [this.get(i, DETAIL_START), this.get(i, DETAIL_END)];
  }

  /** The entry's state record as the next run reads it (call once it has its place in the new index). */
  record(i: number): { path: string; mtimeMs: number; size: number; blob: string | null; hash: string; place: EntryPlace; facts: EntryFacts } {
    return {
      path: this.path(i),
      mtimeMs: this.get(i, MTIME),
      size: this.get(i, SIZE),
      blob: this.blobs[i] ?? null,
      hash: this.froms[i]?.hash ?? (this.hashes[i] as string),
      place: this.place(i),
      facts: this.facts(i),
    };
  }

  /** Row numbers in path order (code points, as the index sorts them). */
  order(): Int32Array {
    const order = Int32Array.from({ length: this.length }, (_, i) => i);
    return order.sort((a, b) => compareCodeUnits(this.paths[a] as string, this.paths[b] as string));
  }

  private fileTypeId(fileType: string): number {
    let id = this.fileTypeIds.get(fileType);
    if (id === undefined) {
      id = this.fileTypes.length;
      this.fileTypes.push(fileType);
      this.fileTypeIds.set(fileType, id);
    }
    return id;
  }

  private flags(i: number): number {
    return this.get(i, FLAGS);
  }

  private get(i: number, field: number): number {
    return (this.chunks[Math.floor(i / ROWS_PER_CHUNK)] as Float64Array)[(i % ROWS_PER_CHUNK) * WIDTH + field] as number;
  }

  private set(i: number, field: number, value: number): void {
    (this.chunks[Math.floor(i / ROWS_PER_CHUNK)] as Float64Array)[(i % ROWS_PER_CHUNK) * WIDTH + field] = value;
  }
}
