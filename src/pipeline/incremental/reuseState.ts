/**
 * What a run records beside its index so the next run can skip unchanged files without reading them, and
 * take their entries without parsing the index: one record per file with
 *   - its identity: path, mtime, size, git blob id, content hash;
 *   - where its entry is in the index (byte range, and the ranges of the fields a later run may change);
 *   - what the run needs to know of the entry without reading it (status, reason, profile source, file type,
 *     lines, a digest of its resolved imports);
 *   - its detail, read only when needed: the imports as written and the candidate concept terms of a static
 *     entry.
 * The index stays the store of the entries themselves; this file says which of them may be taken as they are.
 *
 * Written beside the index (`.<index file>.state`, hidden, so index loaders never take it for a repository),
 * after the index, and tied to it by the index's digest and size: a state that does not describe the index
 * next to it is ignored. One header line, then a line per file, in path order: its record, its imports and its
 * terms, each as JSON, separated by tabs (no JSON text holds a raw tab), so each part is parsed only when needed;
 * last, the document frequencies of the terms of the files whose concepts were chosen (a JSON object), so the
 * next run can update them instead of counting every file's terms again.
 */
import { createHash, hash } from 'node:crypto';
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { RawImport } from '../../extract/imports.js';
import { RangeReader } from '../../index/fileRanges.js';
import type { FileStatus, ProfileSource } from '../../index/types.js';
import type { JsonStyle } from '../../index/serialize.js';
import type { HistoryState } from '../history.js';
import { AtomicWriter } from '../../shared/atomicFile.js';

export const STATE_FORMAT = 'coderag-reuse-state';
export const STATE_VERSION = 4;
/**
 * States this version still reads. Version 3's details lack the exports: its entries are extracted again when
 * their imports resolve otherwise.
 */
const READABLE_VERSIONS: ReadonlySet<number> = new Set([3, STATE_VERSION]);

/** What shapes an entry: a change retires the entries it shaped. */
export interface EntryShape {
  schemaVersion: number;
  /** Extraction: tool, parser and grammar versions, classification options. */
  static: string;
  /** Model profiles: provider, model, prompt version and every option in the answer cache's key; null offline. */
  model: string | null;
}

export interface RepoIdentity {
  path: string;
  /** The `origin` remote, when the repository has one: a fresh clone elsewhere is still the same repository. */
  origin: string | null;
}

/** Where an entry is in its index: bytes [start, end), and its changeable fields' ranges within them (entryJson.ts). */
export interface EntryPlace {
  start: number;
  end: number;
  holes: number[];
}

/** What a run needs to know of an entry without reading it. */
export interface EntryFacts {
  status: FileStatus;
  reason: string | null;
  source: ProfileSource;
  fileType: string;
  lines: number;
  /** A digest of the entry's resolved imports (`dependencies`, `local_imports`): see `importsDigest`. */
  imports: string;
}

export interface FileRecord {
  path: string;
  mtimeMs: number;
  size: number;
  /** The git blob id of a tracked file whose work tree matches the git index; null otherwise. */
  blob: string | null;
  /** The content hash recorded in the entry ('' for files never read). */
  hash: string;
  place: EntryPlace;
  facts: EntryFacts;
}

/** The bulky part of a record, read when a run needs it. */
export interface RecordDetail {
  /** The import specifiers as written, to resolve again when the repository's files change. */
  imports: RawImport[];
  /** A static entry's candidate concept terms, flat (term, weight, term, weight, …); null for other entries. */
  terms: Array<string | number> | null;
  /** The names a static entry's file exports (what its composed summary says of them); null for other entries. */
  exports: string[] | null;
}

/** A record as loaded: where its detail is in the state file. */
export interface StoredRecord extends FileRecord {
  detail: [start: number, end: number];
}

export interface StateHeader {
  format: typeof STATE_FORMAT;
  version: number;
  /** The index's digest (writeStream.ts DIGEST) and size: the index this state describes. */
  index_digest: string;
  index_bytes: number;
  started_ms: number;
  shape: EntryShape;
  repo: RepoIdentity;
  go_module: string | null;
  /** A digest of every file the walk listed (`filesDigest`), a shard's or not: what imports resolved against. */
  walked_digest: string;
  files: number;
  /** How the index is written (output.json_indent, output.ensure_ascii): entries are copied only into the same style. */
  style: JsonStyle;
  /** Where the `relationships` array's elements are in the index (first start, last end), when it has any. */
  relationships: [start: number, end: number] | null;
  /** The commits the entries' `history` was read from, and how many subjects each file keeps; null: none read. */
  history: RecordedHistory | null;
}

export interface RecordedHistory {
  subjects: number;
  read: HistoryState;
}

type RecordLine = [path: string, mtimeMs: number, size: number, blob: string | null, hash: string, place: number[], facts: [FileStatus, string | null, ProfileSource, string, number, string]];

export function stateFileFor(indexFile: string): string {
  return path.join(path.dirname(indexFile), `.${path.basename(indexFile)}.state`);
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The digest of an entry's resolved imports that `EntryFacts.imports` holds. */
export function importsDigest(dependencies: readonly string[], localImports: readonly string[]): string {
  return hash('sha1', JSON.stringify([dependencies, localImports]), 'base64');
}

/** One line of the state: a record and its detail (JSON, or bytes of JSON read from an earlier state or a fragment). */
export interface StateLine {
  record: FileRecord;
  detail: RecordDetail | Uint8Array;
}

/**
 * Writes the state of the index just written at `indexFile`, line by line as `lines` yields them, then the
 * document frequencies (`DocumentFrequencies.toJson`, or the bytes an earlier state recorded), atomically.
 */
export async function saveReuseState(
  indexFile: string,
  header: Omit<StateHeader, 'format' | 'version'>,
  lines: AsyncIterable<StateLine>,
  frequencies: string | Uint8Array,
): Promise<void> {
  const out = await AtomicWriter.open(stateFileFor(indexFile));
  try {
    await out.writeText(`${JSON.stringify({ format: STATE_FORMAT, version: STATE_VERSION, ...header })}\n`);
    let written = 0;
    for await (const { record: r, detail } of lines) {
      const f = r.facts;
      const line: RecordLine = [r.path, r.mtimeMs, r.size, r.blob, r.hash, [r.place.start, r.place.end, ...r.place.holes], [f.status, f.reason, f.source, f.fileType, f.lines, f.imports]];
      await out.writeText(`${JSON.stringify(line)}\t`);
      await (detail instanceof Uint8Array ? out.write(detail) : out.writeText(detailText(detail)));
      await out.writeText('\n');
      written++;
    }
    if (written !== header.files) throw new Error(`reuse state: ${written} records written, ${header.files} announced`);
    await (typeof frequencies === 'string' ? out.writeText(frequencies) : out.write(frequencies));
    await out.writeText('\n');
  } catch (error) {
    await out.abort();
    throw error;
  }
  await out.commit();
}

export function detailText(detail: RecordDetail): string {
  return `${JSON.stringify(detail.imports)}\t${JSON.stringify(detail.terms)}\t${JSON.stringify(detail.exports)}`;
}

export type LoadedState =
  | { ok: true; header: StateHeader; records: Map<string, StoredRecord>; details: StateDetails; frequencies: [start: number, end: number] }
  | { ok: false; problem: string };

/** Reads records' details from the state file they were loaded from. */
export class StateDetails {
  constructor(private readonly reader: RangeReader) {}

  async bytes(record: StoredRecord): Promise<Buffer> {
    return this.reader.read(record.detail[0], record.detail[1]);
  }

  /** Bytes of the state file: the recorded document frequencies, by their range. */
  async range([start, end]: [number, number]): Promise<Buffer> {
    return this.reader.read(start, end);
  }

  async imports(record: StoredRecord): Promise<RawImport[]> {
    return parseDetail(await this.bytes(record), 'imports').imports;
  }

  async terms(record: StoredRecord): Promise<RecordDetail['terms']> {
    return parseDetail(await this.bytes(record), 'terms').terms;
  }

  /** A record's whole detail, read once. */
  async detail(record: StoredRecord): Promise<RecordDetail> {
    const bytes = await this.bytes(record);
    return { imports: parseDetail(bytes, 'imports').imports, terms: parseDetail(bytes, 'terms').terms, exports: parseDetail(bytes, 'exports').exports };
  }

  close(): Promise<void> {
    return this.reader.close();
  }
}

/**
 * Reads the state recorded beside `indexFile`: the header, which `check` may refuse (a problem, or null to go
 * on), then every record without its detail. The caller closes `details` when done.
 */
export async function loadReuseState(indexFile: string, check: (header: StateHeader) => Promise<string | null>): Promise<LoadedState> {
  const file = stateFileFor(indexFile);
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, problem: 'it has no reuse state' };
    return { ok: false, problem: `its reuse state is unreadable (${(error as Error).message})` };
  }
  const records = new Map<string, StoredRecord>();
  let header: StateHeader | null = null;
  let frequencies: [number, number] | null = null;
  try {
    for await (const { line, offset } of linesOf(handle)) {
      if (line.length === 0) continue;
      if (frequencies) throw new Error('a line after the document frequencies');
      if (!header) {
        header = JSON.parse(line.toString('utf8')) as StateHeader;
        if (header.format !== STATE_FORMAT || !READABLE_VERSIONS.has(header.version)) return await refuse(handle, 'its reuse state has another format');
        const problem = await check(header);
        if (problem) return await refuse(handle, problem);
        continue;
      }
      if (line[0] === 0x7b) {
        frequencies = [offset, offset + line.length];
        continue;
      }
      const tab = line.indexOf(9);
      if (tab < 0 || line.indexOf(9, tab + 1) < 0) throw new Error('a record has no detail');
      const [p, mtimeMs, size, blob, hash, place, facts] = JSON.parse(line.toString('utf8', 0, tab)) as RecordLine;
      const [start, end, ...holes] = place;
      const [status, reason, source, fileType, lines, imports] = facts;
      records.set(p, {
        path: p,
        mtimeMs,
        size,
        blob,
        hash,
        place: { start: start as number, end: end as number, holes },
        facts: { status, reason, source, fileType, lines, imports },
        detail: [offset + tab + 1, offset + line.length],
      });
    }
  } catch (error) {
    return refuse(handle, `its reuse state is unreadable (${(error as Error).message})`);
  }
  if (!header) return refuse(handle, 'its reuse state is empty');
  if (records.size !== header.files || !frequencies) return refuse(handle, 'its reuse state is truncated');
  return { ok: true, header, records, details: new StateDetails(new RangeReader(handle)), frequencies };
}

/**
 * A detail's imports, terms and exports, parsing only the part asked for (the others are left empty). A detail
 * written by state version 3 has no exports: they read as null.
 */
export function parseDetail(bytes: Buffer, part: 'imports' | 'terms' | 'exports' = 'terms'): RecordDetail {
  const tab = bytes.indexOf(9);
  if (tab < 0) throw new Error('a record detail has no terms');
  const second = bytes.indexOf(9, tab + 1);
  const termsEnd = second < 0 ? bytes.length : second;
  const empty: RecordDetail = { imports: [], terms: null, exports: null };
  if (part === 'imports') return { ...empty, imports: JSON.parse(bytes.toString('utf8', 0, tab)) as RawImport[] };
  if (part === 'terms') return { ...empty, terms: JSON.parse(bytes.toString('utf8', tab + 1, termsEnd)) as RecordDetail['terms'] };
  return { ...empty, exports: second < 0 ? null : (JSON.parse(bytes.toString('utf8', second + 1)) as RecordDetail['exports']) };
}

async function refuse(handle: Awaited<ReturnType<typeof open>>, problem: string): Promise<{ ok: false; problem: string }> {
  await handle.close().catch(() => undefined);
  return { ok: false, problem };
}

/** The file's lines (without their newline) and where each starts, read a megabyte at a time. */
async function* linesOf(handle: Awaited<ReturnType<typeof open>>): AsyncGenerator<{ line: Buffer; offset: number }> {
  const chunk = Buffer.allocUnsafe(1 << 20);
  let carry = Buffer.alloc(0);
  let carryOffset = 0;
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
    let start = 0;
    for (let newline = data.indexOf(10); newline >= 0; newline = data.indexOf(10, start)) {
      yield { line: data.subarray(start, newline), offset: carryOffset + start };
      start = newline + 1;
    }
    // Copied: the chunk is read into again.
    carry = Buffer.from(data.subarray(start));
    carryOffset += start;
  }
  if (carry.length) yield { line: carry, offset: carryOffset };
}
