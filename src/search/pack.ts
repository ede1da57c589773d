/**
 * Search packs: a repository index's ranking statistics (its FieldIndex) in one binary file beside the index,
 * `<indexes>/.coderag-search/<name>.pack`, so a fresh process ranks a large index without parsing its JSON.
 * A pack also records where each file profile sits in the index's JSON (byte offsets), so the few profiles an
 * answer shows are parsed alone.
 *
 * A pack names the index file's size and modification time; a pack that does not match is stale and ignored
 * (and rewritten by the next load). Layout: the magic `CRAGPACK`, a u32 header length, a JSON header (which
 * holds a CRC-32 of the sections read on opening), then the sections, each 8-byte aligned, as the header lists
 * them, the lazy ones last. Numbers are little-endian.
 *
 * Opening a pack reads the header and the per-file arrays every query uses. The rest, at the end of the file, is
 * read from the open file piece by piece as a query asks for it: the block of the term list that holds a query
 * word (termTable.ts), a term's postings, a result's path, where a result's profile sits in the JSON. The term
 * list and the postings are most of a pack, so a cold search reads a few kilobytes of each pack for its terms,
 * not the whole file: over 70 small indexes that is about a megabyte instead of six.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import path from 'node:path';
import { relationshipsOf } from '../index/serialize.js';
import type { FileRelationship } from '../index/types.js';
import { indexedStateOf } from './freshness.js';
import { FIELD_COUNT, FieldIndex, type FieldIndexData, type PostingStore, type StringList } from './fieldIndex.js';
import { writeFileAtomicSync } from '../shared/atomicFile.js';
import type { IndexedState } from './types.js';
import { TERM_BLOCK, termBlocksOf, termTableFromBlocks, validStarts, type BlockBytes } from './termTable.js';

export const PACK_VERSION = 11;
export const PACK_DIR = '.coderag-search';
const MAGIC = 'CRAGPACK';
const PREFIX_BYTES = MAGIC.length + 4;
/**
 * Read first, in one call: the prefix and header (a few kilobytes unless an index has many relationships), and
 * for a small index the sections every query uses too; a pack this small is read whole.
 */
const FIRST_READ_BYTES = 16 * 1024;
/**
 * Packs kept open for their lazy sections at once. Past this (a folder of thousands of indexes), a pack is read
 * whole instead, so a search never runs out of file handles.
 */
export const MAX_OPEN_PACKS = 256;
let openPacks = 0;

export interface PackSource {
  /** The index file's size in bytes and modification time (ms), as `fs.stat` gives them. */
  size: number;
  mtimeMs: number;
}

export interface PackContents {
  repoName: string;
  /** What freshness checks read of the index's metadata (null when it records none). */
  indexed: IndexedState | null;
  totalFiles: number;
  relationships: FileRelationship[];
  fieldIndex: FieldIndex;
  /** Where each profiled file's summary sits in the index file, in FieldIndex order. */
  profileRanges: ProfileRanges;
}

/** Byte ranges `[start, end)` in an index file, one per document. */
export interface ProfileRanges {
  readonly length: number;
  /** Document d's range; null when there is none (outside the list, or a pack cut short). */
  at(d: number): readonly [number, number] | null;
  /** Every range as [start, end) pairs. */
  all(): Float64Array;
}

export function profileRangesOf(pairs: Float64Array): ProfileRanges {
  return {
    length: pairs.length / 2,
    at: (d) => (d >= 0 && 2 * d + 1 < pairs.length ? [pairs[2 * d] as number, pairs[2 * d + 1] as number] : null),
    all: () => pairs,
  };
}

type ArrayKind = 'i32' | 'f32' | 'f64' | 'u8' | 'strings';
type TypedArray = Int32Array | Float32Array | Float64Array | Uint8Array;

interface Section {
  name: string;
  kind: ArrayKind;
  offset: number;
  bytes: number;
  /** Items in a string list (an empty list and a list of one empty string look alike as bytes). */
  count?: number;
}

/** A pack's header: its sections, and the facts of what it packs (an index's, or a folder's: see folderPack.ts). */
interface Header extends Record<string, unknown> {
  version: number;
  /** Terms in the term blocks. */
  termCount: number;
  sections: Section[];
  /** CRC-32 of the sections read when a pack is opened (see `checksum`): damage there is found at once. */
  bodyCrc32: number;
}

const STRING_SEPARATOR = '\0';
/** FieldIndexData's arrays and string lists, by name, but the terms, the paths and the postings. */
const ARRAYS: ReadonlyArray<[Exclude<keyof FieldIndexData, 'terms' | 'postings' | 'paths'>, ArrayKind]> = [
  ['lengths', 'f32'],
  ['avgLength', 'f64'],
  ['repos', 'strings'],
  ['repoOf', 'i32'],
  ['roles', 'u8'],
  ['languages', 'strings'],
  ['languageOf', 'i32'],
  ['isCode', 'u8'],
  ['linesOfCode', 'i32'],
  ['importStart', 'i32'],
  ['importTargets', 'i32'],
  ['importerStart', 'i32'],
  ['importerSources', 'i32'],
];
const POSTINGS = 'postings';
/** Sections read piece by piece as a query asks for them, laid out after all the others, in this order. */
const LAZY: ReadonlyArray<[string, ArrayKind]> = [
  ['termBlocks', 'u8'],
  ['pathBytes', 'u8'],
  ['profileRanges', 'f64'],
  [POSTINGS, 'i32'],
];

export function packPathFor(indexFile: string): string {
  return path.join(path.dirname(indexFile), PACK_DIR, `${path.basename(indexFile, '.json')}.pack`);
}

/**
 * A pack as the pieces written one after another: the prefix and header, then each section. The sections are
 * the field index's own arrays, not copies, so writing a 50,000-file pack costs no second copy of its postings.
 */
function packPieces(facts: Record<string, unknown>, { fieldIndex, profileRanges }: Pick<PackBody, 'fieldIndex' | 'profileRanges'>): Uint8Array[] {
  const blobs: Array<{ name: string; kind: ArrayKind; data: Uint8Array; count?: number }> = [];
  const data = fieldIndex as unknown as Record<string, unknown>;
  for (const [name, kind] of ARRAYS) {
    const value = data[name];
    if (kind === 'strings') {
      const list = value as string[];
      blobs.push({ name, kind, data: Buffer.from(list.join(STRING_SEPARATOR), 'utf8'), count: list.length });
    } else blobs.push({ name, kind, data: bytesOf(value as TypedArray) });
  }
  const terms = termBlocksOf(fieldIndex.terms.encode());
  blobs.push({ name: 'termKeyBytes', kind: 'u8', data: terms.keyBytes });
  blobs.push({ name: 'termKeyStarts', kind: 'i32', data: bytesOf(terms.keyStarts) });
  blobs.push({ name: 'termBlockOffsets', kind: 'i32', data: bytesOf(terms.offsets) });
  const paths = fieldIndex.paths.all().map((p) => Buffer.from(p, 'utf8'));
  const pathStarts = new Int32Array(paths.length + 1);
  paths.forEach((p, i) => (pathStarts[i + 1] = (pathStarts[i] as number) + p.byteLength));
  blobs.push({ name: 'pathStarts', kind: 'i32', data: bytesOf(pathStarts) });
  blobs.push({ name: 'termBlocks', kind: 'u8', data: terms.blocks });
  blobs.push({ name: 'pathBytes', kind: 'u8', data: Buffer.concat(paths) });
  blobs.push({ name: 'profileRanges', kind: 'f64', data: bytesOf(profileRanges.all()) });
  const sections: Section[] = [];
  let offset = 0;
  let bodyCrc32 = 0;
  for (const blob of blobs) {
    sections.push({ name: blob.name, kind: blob.kind, offset, bytes: blob.data.byteLength, ...(blob.count === undefined ? {} : { count: blob.count }) });
    if (!LAZY.some(([name]) => name === blob.name)) bodyCrc32 = sectionCrc32(blob.data, bodyCrc32);
    offset = align(offset + blob.data.byteLength);
  }
  // The postings, last.
  const postings = fieldIndex.postings;
  const postingPieces = [bytesOf(postings.read(0, postings.length))];
  sections.push({ name: POSTINGS, kind: 'i32', offset, bytes: 4 * postings.length });
  const header: Header = { version: PACK_VERSION, ...facts, termCount: fieldIndex.terms.length, sections, bodyCrc32 };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headerBytes.byteLength, MAGIC.length);
  // Each piece is followed by the zeros that align the next: the body starts, and each section sits, at a multiple of 8.
  const pieces: Uint8Array[] = [prefix, headerBytes, padding(PREFIX_BYTES + headerBytes.byteLength)];
  for (const blob of blobs) pieces.push(blob.data, padding(blob.data.byteLength));
  pieces.push(...postingPieces, padding(4 * postings.length));
  return pieces;
}

function padding(length: number): Uint8Array {
  return new Uint8Array(align(length) - length);
}

/**
 * What reading a pack found: its contents; `stale` when it belongs to another version of what it packs or of
 * this format (normal after re-indexing or upgrading, rebuilt quietly); `corrupt` when its bytes make no sense.
 */
export type Read<T> = { status: 'fresh'; pack: T } | { status: 'missing' | 'stale' } | { status: 'corrupt'; problem: string };
export type PackRead = Read<PackContents>;

/** A pack as read: its header's facts about what it packs, its field index, where each profile sits. */
export interface PackBody {
  facts: Record<string, unknown>;
  fieldIndex: FieldIndex;
  profileRanges: ProfileRanges;
}

/**
 * Reads the pack beside an index file, if there is one for this exact file. A fresh pack larger than its first
 * read keeps its file open for its term blocks and postings (up to MAX_OPEN_PACKS of them), closed when its
 * field index is garbage-collected: a pack replaced on disk meanwhile, which CodeRAG does by renaming, leaves
 * this one readable and whole.
 */
export function readPack(indexFile: string, source: PackSource): PackRead {
  const currency = (facts: Record<string, unknown>): Currency => {
    const recorded = facts.source as Partial<PackSource> | null | undefined;
    if (typeof recorded !== 'object' || recorded === null) return 'misshapen';
    return recorded.size === source.size && recorded.mtimeMs === source.mtimeMs ? 'current' : 'stale';
  };
  return readPackFile(packPathFor(indexFile), currency, ({ facts, fieldIndex, profileRanges }) => {
    if (!Array.isArray(facts.relationships) || typeof facts.repoName !== 'string' || typeof facts.totalFiles !== 'number') return null;
    return {
      repoName: facts.repoName,
      indexed: indexedStateOf(facts.indexed),
      totalFiles: facts.totalFiles,
      relationships: relationshipsOf(facts.relationships),
      fieldIndex,
      profileRanges,
    };
  });
}

/** Whether a pack's header says it is of what is on disk now, of something else, or makes no sense. */
export type Currency = 'current' | 'stale' | 'misshapen';

/**
 * Reads a pack file of any kind: `currency` tells from the header's facts whether the pack is of what is on
 * disk now, and `contents` makes what the caller keeps of it (null when the facts are misshapen).
 */
export function readPackFile<T>(file: string, currency: (facts: Record<string, unknown>) => Currency, contents: (body: PackBody) => T | null): Read<T> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return { status: 'missing' };
  }
  let keepOpen = false;
  try {
    const { read, readsLater } = decodePack(fd, currency);
    if (read.status !== 'fresh') return read;
    const pack = contents(read.pack);
    if (pack === null) return corrupt('misshapen header');
    if (readsLater) {
      closeWhenCollected.register(read.pack.fieldIndex, fd);
      openPacks++;
      keepOpen = true;
    }
    return { status: 'fresh', pack };
  } catch (error) {
    return corrupt((error as Error).message);
  } finally {
    if (!keepOpen) closeSync(fd);
  }
}

/** The pack in an open file; `readsLater` when the pack returned reads its lazy sections from the file. */
function decodePack(fd: number, currency: (facts: Record<string, unknown>) => Currency): { read: Read<PackBody>; readsLater: boolean } {
  const done = (read: Read<PackBody>, readsLater = false) => ({ read, readsLater });
  const size = fstatSync(fd).size;
  let first = readAt(fd, 0, Math.min(size, FIRST_READ_BYTES));
  if (first.byteLength < PREFIX_BYTES || first.toString('latin1', 0, MAGIC.length) !== MAGIC) return done(corrupt('not a search pack'));
  const headerLength = first.readUInt32LE(MAGIC.length);
  if (PREFIX_BYTES + headerLength > size) return done(corrupt('truncated header'));
  const headerBytes = PREFIX_BYTES + headerLength <= first.byteLength ? first.subarray(PREFIX_BYTES, PREFIX_BYTES + headerLength) : readAt(fd, PREFIX_BYTES, headerLength);
  let header: Header;
  try {
    header = JSON.parse(headerBytes.toString('utf8')) as Header;
  } catch {
    return done(corrupt('unreadable header'));
  }
  const current = typeof header === 'object' && header !== null && !Array.isArray(header) ? currency(header) : 'misshapen';
  if (current === 'misshapen') return done(corrupt('unreadable header'));
  if (header.version !== PACK_VERSION || current === 'stale') return done({ status: 'stale' });
  const bodyStart = align(PREFIX_BYTES + headerLength);
  if (!Array.isArray(header.sections) || !header.sections.every(wellPlaced)) return done(corrupt('misshapen sections'));
  const lazy = LAZY.map(([name, kind]) => header.sections.find((section) => section.name === name && section.kind === kind));
  const eager = header.sections.filter((section) => !LAZY.some(([name]) => name === section.name));
  const eagerBytes = Math.max(0, ...eager.map((section) => section.offset + section.bytes));
  let after = eagerBytes;
  for (const section of lazy) {
    if (!section || section.offset < after || section.bytes % bytesPer(section.kind) !== 0) return done(corrupt('misshapen sections'));
    after = section.offset + section.bytes;
  }
  if (bodyStart + after > size) return done(corrupt('sections outside the file'));
  if (first.byteLength < size && openPacks >= MAX_OPEN_PACKS) first = readAt(fd, 0, size);
  const whole = first.byteLength === size;
  const body = bodyStart + eagerBytes <= first.byteLength ? first.subarray(bodyStart, bodyStart + eagerBytes) : readAt(fd, bodyStart, eagerBytes);
  if (body.byteLength !== eagerBytes) return done(corrupt('sections outside the file'));
  if (checksum(body, eager) !== header.bodyCrc32) return done(corrupt('checksum mismatch'));
  // A pack read whole answers from memory; any other reads its lazy sections from the file it keeps open.
  const inMemory = first;
  const bytes: ByteSource = whole ? (at, length) => inMemory.subarray(bodyStart + at, bodyStart + at + length) : (at, length) => readAt(fd, bodyStart + at, length);
  const [termBlocks, pathBytes, ranges, postings] = lazy as [Section, Section, Section, Section];
  const pack = decodeBody(body, header, eager, {
    termBlocks: (from, length) => (from >= 0 && length >= 0 && from + length <= termBlocks.bytes ? readSafely(bytes, termBlocks.offset + from, length) : Buffer.alloc(0)),
    termBlockBytes: termBlocks.bytes,
    postings: postingStore(bytes, postings),
    pathBytes: (from, to) => (to > from && to <= pathBytes.bytes ? readSafely(bytes, pathBytes.offset + from, to - from) : Buffer.alloc(0)),
    pathByteCount: pathBytes.bytes,
    profileRanges: profileRangesIn(bytes, ranges),
  });
  return pack ? done({ status: 'fresh', pack }, !whole) : done(corrupt('missing or misshapen sections'));
}

/** Bytes of a pack's body from an offset, in memory of their own when read from the file; fewer at its end. */
type ByteSource = (offset: number, length: number) => Buffer;

interface LazySections {
  termBlocks: BlockBytes;
  termBlockBytes: number;
  postings: PostingStore;
  /** Bytes `[from, to)` of the path section, `pathByteCount` long. */
  pathBytes: (from: number, to: number) => Buffer;
  pathByteCount: number;
  profileRanges: ProfileRanges;
}

function bytesPer(kind: ArrayKind): number {
  return kind === 'i32' || kind === 'f32' ? 4 : kind === 'f64' ? 8 : 1;
}

function wellPlaced(section: Section): boolean {
  return typeof section === 'object' && section !== null && Number.isSafeInteger(section.offset) && Number.isSafeInteger(section.bytes) && section.offset >= 0 && section.bytes >= 0 && section.offset % 8 === 0;
}

/** Term postings kept by an open pack: a query's terms are read once, however many results check them. */
const CACHED_POSTINGS_BYTES = 16 * 1024 * 1024;

/** A pack's postings, read term by term. */
function postingStore(source: ByteSource, section: Section): PostingStore {
  const length = section.bytes / 4;
  // Keyed by where a term's postings start; a term without postings starts where the next one does. A plain
  // map, emptied when full: a query asks for a handful of terms, and lru-cache costs a cold search its load time.
  const cache = new Map<number, Int32Array>();
  let cachedBytes = 0;
  return {
    length,
    read(from, to) {
      const cached = cache.get(from);
      if (cached?.length === to - from) return cached;
      const begin = Math.max(0, Math.min(from, length));
      const bytes = readSafely(source, section.offset + 4 * begin, 4 * Math.max(0, Math.min(to, length) - begin));
      // Whole (doc, field) pairs only: a pack cut short on disk gives fewer.
      const values = new Int32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 8) * 2);
      if (values.byteLength < CACHED_POSTINGS_BYTES) {
        if (cachedBytes + values.byteLength > CACHED_POSTINGS_BYTES) {
          cache.clear();
          cachedBytes = 0;
        }
        cache.set(from, values);
        cachedBytes += values.byteLength;
      }
      return values;
    },
  };
}

/** Where each profile sits in the index file, read a document at a time. */
function profileRangesIn(source: ByteSource, section: Section): ProfileRanges {
  const length = section.bytes / 16;
  const pairAt = (at: number, count: number): Float64Array => {
    const bytes = readSafely(source, section.offset + at, 16 * count);
    return new Float64Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 16) * 2);
  };
  return {
    length,
    at(d) {
      if (!(d >= 0 && d < length)) return null;
      const pair = pairAt(16 * d, 1);
      return pair.length === 2 ? [pair[0] as number, pair[1] as number] : null;
    },
    all: () => pairAt(0, length),
  };
}

/**
 * The paths of a pack, decoded one by one as they are asked for: a result's path, or a tie to break. Past
 * PATH_READS_BEFORE_ALL of them (a query with thousands of tied scores), the whole section is read at once.
 */
function pathList(starts: Int32Array, bytes: LazySections['pathBytes']): StringList {
  const count = starts.length - 1;
  const decode = (i: number): string => bytes(starts[i] as number, starts[i + 1] as number).toString('utf8');
  const decoded = new Map<number, string>();
  let all: string[] | null = null;
  const list: StringList = {
    length: count,
    at(i) {
      if (!(i >= 0 && i < count)) return '';
      if (all) return all[i] as string;
      let path = decoded.get(i);
      if (path === undefined) {
        if (decoded.size >= PATH_READS_BEFORE_ALL) return list.all()[i] as string;
        decoded.set(i, (path = decode(i)));
      }
      return path;
    },
    all() {
      if (!all) {
        const section = bytes(0, starts[count] as number);
        all = Array.from({ length: count }, (_, i) => section.toString('utf8', starts[i] as number, starts[i + 1] as number));
        decoded.clear();
      }
      return all;
    },
  };
  return list;
}

const PATH_READS_BEFORE_ALL = 256;

/** Bytes of the body, or none when the file cannot give them (closed, gone): the caller sees a short read. */
function readSafely(source: ByteSource, offset: number, length: number): Buffer {
  try {
    return source(offset, length);
  } catch {
    return Buffer.alloc(0);
  }
}

const closeWhenCollected = new FinalizationRegistry<number>((fd) => {
  openPacks--;
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

/**
 * CRC-32 of every section but the lazy ones (term blocks, postings, paths, profile ranges: most of a pack). A
 * query reads only a few pieces of those, and each piece is checked where it is used: a term block must be
 * well-formed and point inside the postings (else it holds no term), the scorer checks every
 * document number in postings, and a profile read from the JSON must name the path the pack gave, else the
 * pack is dropped and rebuilt. A cold search does not pay to read, let alone checksum, what it never uses.
 */
function checksum(body: Uint8Array, sections: readonly Section[]): number {
  let crc = 0;
  for (const section of sections) {
    if (LAZY.some(([name]) => name === section.name)) continue;
    crc = sectionCrc32(body.subarray(section.offset, section.offset + section.bytes), crc);
  }
  return crc;
}

/**
 * CRC-32 continued over a section. An empty section leaves it as it is: node's crc32 answers 0, not the value
 * it was given, for an empty view of an empty ArrayBuffer (an index with no imports has such sections), so the
 * writer and the reader, whose views of the same empty section differ, would disagree.
 */
function sectionCrc32(data: Uint8Array, crc: number): number {
  return data.byteLength === 0 ? crc : crc32(data, crc);
}

function corrupt(problem: string): { status: 'corrupt'; problem: string } {
  return { status: 'corrupt', problem };
}

function decodeBody(body: Buffer, header: Header, sections: readonly Section[], lazy: LazySections): PackBody | null {
  if (!Number.isSafeInteger(header.termCount) || header.termCount < 0) return null;
  const values = new Map<string, unknown>();
  for (const section of sections) values.set(section.name, viewOf(body, section));
  const keyBytes = values.get('termKeyBytes');
  const keyStarts = values.get('termKeyStarts');
  const blockOffsets = values.get('termBlockOffsets');
  const pathStarts = values.get('pathStarts');
  if (ARRAYS.some(([name]) => values.get(name) === undefined)) return null;
  if (!(keyBytes instanceof Uint8Array) || !(keyStarts instanceof Int32Array) || !validStarts(keyStarts, keyBytes.byteLength)) return null;
  if (!(blockOffsets instanceof Int32Array) || !validStarts(blockOffsets, lazy.termBlockBytes) || blockOffsets.length !== keyStarts.length) return null;
  if (blockOffsets.length - 1 !== Math.ceil(header.termCount / TERM_BLOCK)) return null;
  if (!(pathStarts instanceof Int32Array) || !validStarts(pathStarts, lazy.pathByteCount)) return null;
  const fieldData = {
    ...Object.fromEntries(ARRAYS.map(([name]) => [name, values.get(name)])),
    postings: lazy.postings,
    paths: pathList(pathStarts, lazy.pathBytes),
    terms: termTableFromBlocks(header.termCount, { bytes: keyBytes, starts: keyStarts }, blockOffsets, lazy.termBlocks, lazy.postings.length),
  } as unknown as FieldIndexData;
  if (!consistent(fieldData, lazy.profileRanges)) return null;
  const { version: _version, termCount: _terms, sections: _sections, bodyCrc32: _crc, ...facts } = header;
  return { facts, fieldIndex: new FieldIndex(fieldData), profileRanges: lazy.profileRanges };
}

/** Array sizes that agree with each other, and offsets that stay inside their arrays. */
function consistent(data: FieldIndexData, profileRanges: ProfileRanges): boolean {
  const n = data.paths.length;
  const ascending = (starts: Int32Array, size: number, last: number): boolean => {
    if (starts.length !== size + 1 || starts[0] !== 0 || starts[size] !== last) return false;
    for (let i = 1; i <= size; i++) if ((starts[i] as number) < (starts[i - 1] as number)) return false;
    return true;
  };
  return (
    [data.repoOf, data.roles, data.languageOf, data.isCode, data.linesOfCode].every((a) => a.length === n) &&
    data.lengths.length === FIELD_COUNT * n &&
    data.avgLength.length === FIELD_COUNT &&
    data.postings.length % 2 === 0 &&
    profileRanges.length === n &&
    ascending(data.importStart, n, data.importTargets.length) &&
    ascending(data.importerStart, n, data.importerSources.length)
  );
}

/** A section of the body as a typed array over the body's bytes (or a string list, decoded). */
function viewOf(body: Buffer, section: Section): TypedArray | string[] {
  const start = body.byteOffset + section.offset;
  switch (section.kind) {
    case 'strings': {
      const text = body.toString('utf8', section.offset, section.offset + section.bytes);
      return section.count === 0 ? [] : text.split(STRING_SEPARATOR);
    }
    case 'i32':
      return new Int32Array(body.buffer, start, section.bytes / 4);
    case 'f32':
      return new Float32Array(body.buffer, start, section.bytes / 4);
    case 'f64':
      return new Float64Array(body.buffer, start, section.bytes / 8);
    case 'u8':
      return new Uint8Array(body.buffer, start, section.bytes);
  }
}

/** Node's pool serves allocations below half its size. */
const POOLED_READ_BYTES = Buffer.poolSize >>> 1;

/**
 * Bytes at a position of a file. Not zero-filled first; only what was read is returned. A small read (a term
 * block, a term's postings) takes a slice of Node's buffer pool instead of memory of its own: a cold search makes
 * hundreds of them, and each allocation of its own costs more than the read. The pool hands out slices at
 * multiples of 8 bytes, so typed-array views over them are aligned.
 */
function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = length < POOLED_READ_BYTES ? Buffer.allocUnsafe(length) : Buffer.allocUnsafeSlow(length);
  const got = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, got);
}

/** Writes the pack atomically; a folder that cannot be written is not an error, the next load just parses. */
export function writePack(indexFile: string, source: PackSource, contents: PackContents): boolean {
  const { repoName, indexed, totalFiles, relationships } = contents;
  const facts = { source: { size: source.size, mtimeMs: source.mtimeMs }, repoName, indexed, totalFiles, relationships };
  return writePackFile(packPathFor(indexFile), facts, contents);
}

/** Writes a pack of any kind atomically, with `facts` in its header; false when the folder cannot be written. */
export function writePackFile(file: string, facts: Record<string, unknown>, body: Pick<PackBody, 'fieldIndex' | 'profileRanges'>): boolean {
  try {
    writeFileAtomicSync(file, packPieces(facts, body));
    return true;
  } catch {
    return false;
  }
}

/**
 * Byte ranges of the elements of the top-level `file_summaries` array in an index's JSON, as [start, end)
 * pairs, or null when the text is not shaped like an index. Pretty-printed JSON (what CodeRAG and DeepCode
 * write) is cut at its indentation with native searches; anything else is scanned byte by byte.
 */
export function summaryRanges(json: Uint8Array): Float64Array | null {
  const bytes = Buffer.isBuffer(json) ? json : Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  return indentedRanges(bytes) ?? scannedRanges(bytes);
}

/**
 * Ranges in JSON printed with an indent of k spaces: the array's key sits on a line of its own at indent k,
 * so each element opens with a newline, 2k spaces and `{`, and closes with a newline, 2k spaces and `}`
 * (strings hold no raw newlines, and deeper lines are indented further).
 */
function indentedRanges(bytes: Buffer): Float64Array | null {
  const key = bytes.indexOf('"file_summaries": [');
  if (key < 0) return null;
  let k = 0;
  while (key - k - 1 >= 0 && bytes[key - k - 1] === 32) k++;
  if (k === 0 || bytes[key - k - 1] !== 10) return null;
  const afterBracket = key + '"file_summaries": ['.length;
  if (bytes[afterBracket] === 93) return new Float64Array(0);
  const end = bytes.indexOf(`\n${' '.repeat(k)}]`, afterBracket);
  if (end < 0) return null;
  const open = Buffer.from(`\n${' '.repeat(2 * k)}{`);
  const close = Buffer.from(`\n${' '.repeat(2 * k)}}`);
  const ranges: number[] = [];
  for (let at = bytes.indexOf(open, afterBracket); at >= 0 && at < end; at = bytes.indexOf(open, at + open.length)) {
    const closing = bytes.indexOf(close, at + open.length);
    if (closing < 0 || closing > end) return null;
    ranges.push(at + open.length - 1, closing + close.length);
    at = closing;
  }
  return Float64Array.from(ranges);
}

/**
 * Ranges found by scanning: UTF-8 continuation bytes never look like JSON's structural characters, so the
 * bytes are read undecoded, and each string is skipped with a native search for its closing quote.
 */
function scannedRanges(bytes: Buffer): Float64Array | null {
  const QUOTE = 34, BACKSLASH = 92, OPEN_BRACE = 123, CLOSE_BRACE = 125, OPEN_BRACKET = 91, CLOSE_BRACKET = 93;
  const KEY = Buffer.from('"file_summaries"');
  const ranges: number[] = [];
  let depth = 0;
  let keyIsSummaries = false;
  let inArray = false;
  let elementStart = -1;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i] as number;
    if (c === QUOTE) {
      let end = bytes.indexOf(QUOTE, i + 1);
      while (end > 0 && escaped(bytes, end)) end = bytes.indexOf(QUOTE, end + 1);
      if (end < 0) return null;
      if (depth === 1) keyIsSummaries = end - i + 1 === KEY.length && KEY.equals(bytes.subarray(i, end + 1));
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === 1 && c === OPEN_BRACKET && keyIsSummaries) {
        if (ranges.length) return null;
        inArray = true;
      } else if (inArray && depth === 2 && c === OPEN_BRACE) elementStart = i;
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (inArray && depth === 2 && c === CLOSE_BRACE) ranges.push(elementStart, i + 1);
      else if (inArray && depth === 1) inArray = false;
    }
  }
  return depth === 0 ? Float64Array.from(ranges) : null;

  /** A quote preceded by an odd number of backslashes is part of the string. */
  function escaped(buffer: Buffer, at: number): boolean {
    let n = 0;
    for (let j = at - 1; j >= 0 && buffer[j] === BACKSLASH; j--) n++;
    return n % 2 === 1;
  }
}

function bytesOf(array: TypedArray): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function align(n: number): number {
  return Math.ceil(n / 8) * 8;
}
