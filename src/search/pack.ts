/**
 * Search packs: a repository index's ranking statistics (its FieldIndex) in one binary file beside the index,
 * `<indexes>/.coderag-search/<name>.pack`, so a fresh process ranks a large index without parsing its JSON.
 * A pack also records where each file profile sits in the index's JSON (byte offsets), so the few profiles an
 * answer shows are parsed alone.
 *
 * A pack names the index file's size and modification time; a pack that does not match is stale and ignored
 * (and rewritten by the next load). Layout: the magic `CRAGPACK`, a u32 header length, a JSON header (which
 * holds a CRC-32 of the sections but the postings), then the typed arrays, each 8-byte aligned, as the header lists them.
 * Numbers are little-endian.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import path from 'node:path';
import type { FileRelationship } from '../index/types.js';
import { FIELD_COUNT, FieldIndex, type FieldIndexData } from './fieldIndex.js';
import { termTableFromBytes, validStarts } from './termTable.js';

export const PACK_VERSION = 5;
export const PACK_DIR = '.coderag-search';
const MAGIC = 'CRAGPACK';

export interface PackSource {
  /** The index file's size in bytes and modification time (ms), as `fs.stat` gives them. */
  size: number;
  mtimeMs: number;
}

export interface PackContents {
  repoName: string;
  totalFiles: number;
  relationships: FileRelationship[];
  fieldIndex: FieldIndex;
  /** Byte ranges in the index file of the profiled files' summaries, in FieldIndex order: [start, end) pairs. */
  profileRanges: Float64Array;
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

interface Header {
  version: number;
  source: PackSource;
  repoName: string;
  totalFiles: number;
  relationships: FileRelationship[];
  sections: Section[];
  /** CRC-32 of the sections (see `checksum`): a damaged pack is found when it is opened, not mid-search. */
  bodyCrc32: number;
}

const STRING_SEPARATOR = '\0';
/** FieldIndexData's arrays and string lists, by name. */
const ARRAYS: ReadonlyArray<[Exclude<keyof FieldIndexData, 'terms'>, ArrayKind]> = [
  ['df', 'i32'],
  ['postingStart', 'i32'],
  ['postings', 'i32'],
  ['lengths', 'f32'],
  ['avgLength', 'f64'],
  ['repos', 'strings'],
  ['repoOf', 'i32'],
  ['paths', 'strings'],
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

export function packPathFor(indexFile: string): string {
  return path.join(path.dirname(indexFile), PACK_DIR, `${path.basename(indexFile, '.json')}.pack`);
}

export function encodePack(source: PackSource, contents: PackContents): Buffer {
  const blobs: Array<{ name: string; kind: ArrayKind; data: Uint8Array; count?: number }> = [];
  const data = contents.fieldIndex as unknown as Record<string, unknown>;
  for (const [name, kind] of ARRAYS) {
    const value = data[name];
    if (kind === 'strings') {
      const list = value as string[];
      blobs.push({ name, kind, data: Buffer.from(list.join(STRING_SEPARATOR), 'utf8'), count: list.length });
    } else blobs.push({ name, kind, data: bytesOf(value as TypedArray) });
  }
  const terms = contents.fieldIndex.terms.encode();
  blobs.push({ name: 'termBytes', kind: 'u8', data: terms.bytes });
  blobs.push({ name: 'termStarts', kind: 'i32', data: bytesOf(terms.starts) });
  blobs.push({ name: 'profileRanges', kind: 'f64', data: bytesOf(contents.profileRanges) });
  const sections: Section[] = [];
  let offset = 0;
  for (const blob of blobs) {
    sections.push({ name: blob.name, kind: blob.kind, offset, bytes: blob.data.byteLength, ...(blob.count === undefined ? {} : { count: blob.count }) });
    offset = align(offset + blob.data.byteLength);
  }
  const body = Buffer.alloc(offset);
  blobs.forEach((blob, i) => body.set(blob.data, (sections[i] as Section).offset));
  const header: Header = {
    version: PACK_VERSION,
    source: { size: source.size, mtimeMs: source.mtimeMs },
    repoName: contents.repoName,
    totalFiles: contents.totalFiles,
    relationships: contents.relationships,
    sections,
    bodyCrc32: checksum(body, sections, 0),
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const bodyStart = align(MAGIC.length + 4 + headerBytes.byteLength);
  const out = Buffer.alloc(bodyStart + offset);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(headerBytes.byteLength, MAGIC.length);
  headerBytes.copy(out, MAGIC.length + 4);
  out.set(body, bodyStart);
  return out;
}

/**
 * What reading a pack found: its contents; `stale` when it belongs to another version of the index file or of
 * this format (normal after re-indexing or upgrading, rebuilt quietly); `corrupt` when its bytes make no sense.
 */
export type PackRead = { status: 'fresh'; pack: PackContents } | { status: 'missing' | 'stale' } | { status: 'corrupt'; problem: string };

export function decodePack(buffer: Buffer, source: PackSource): PackRead {
  if (buffer.byteLength < MAGIC.length + 4 || buffer.toString('latin1', 0, MAGIC.length) !== MAGIC) return corrupt('not a search pack');
  const headerLength = buffer.readUInt32LE(MAGIC.length);
  if (MAGIC.length + 4 + headerLength > buffer.byteLength) return corrupt('truncated header');
  let header: Header;
  try {
    header = JSON.parse(buffer.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + headerLength)) as Header;
  } catch {
    return corrupt('unreadable header');
  }
  if (typeof header !== 'object' || header === null || typeof header.source !== 'object' || header.source === null) return corrupt('unreadable header');
  if (header.version !== PACK_VERSION || header.source.size !== source.size || header.source.mtimeMs !== source.mtimeMs) return { status: 'stale' };
  const bodyStart = align(MAGIC.length + 4 + headerLength);
  if (bodyStart > buffer.byteLength || !Array.isArray(header.sections)) return corrupt('truncated header');
  try {
    if (checksum(buffer, header.sections, bodyStart) !== header.bodyCrc32) return corrupt('checksum mismatch');
  } catch {
    return corrupt('sections outside the file');
  }
  try {
    const pack = decodeBody(buffer, header, bodyStart);
    return pack ? { status: 'fresh', pack } : corrupt('missing or misshapen sections');
  } catch (error) {
    return corrupt((error as Error).message);
  }
}

/**
 * CRC-32 of every section but the postings, the one section that grows with the corpus (most of a large pack):
 * reading it is checked against each document's bounds as it is scored instead, so a cold search does not pay
 * to checksum what it never reads.
 */
function checksum(bytes: Buffer, sections: readonly Section[], bodyStart: number): number {
  let crc = 0;
  for (const section of sections) {
    if (section.name === 'postings') continue;
    const start = bodyStart + section.offset;
    if (!(start >= 0 && start + section.bytes <= bytes.byteLength)) throw new RangeError('section outside the pack');
    crc = crc32(bytes.subarray(start, start + section.bytes), crc);
  }
  return crc;
}

function corrupt(problem: string): PackRead {
  return { status: 'corrupt', problem };
}

function decodeBody(buffer: Buffer, header: Header, bodyStart: number): PackContents | null {
  if (!Array.isArray(header.sections) || !Array.isArray(header.relationships) || typeof header.repoName !== 'string') return null;
  // A view needs an aligned start; a Buffer from readFileSync may sit at any offset of its ArrayBuffer.
  const body = (buffer.byteOffset + bodyStart) % 8 === 0 ? buffer : Buffer.from(buffer);
  const values = new Map<string, unknown>();
  for (const section of header.sections) {
    if (!Number.isSafeInteger(section.offset) || !Number.isSafeInteger(section.bytes) || section.offset < 0 || section.bytes < 0) return null;
    if (bodyStart + section.offset + section.bytes > body.byteLength) return null;
    values.set(section.name, viewOf(body, body.byteOffset + bodyStart + section.offset, section));
  }
  const profileRanges = values.get('profileRanges');
  const termBytes = values.get('termBytes');
  const termStarts = values.get('termStarts');
  if (ARRAYS.some(([name]) => values.get(name) === undefined) || !(profileRanges instanceof Float64Array)) return null;
  if (!(termBytes instanceof Uint8Array) || !(termStarts instanceof Int32Array) || !validStarts(termStarts, termBytes.byteLength)) return null;
  const fieldData = {
    ...Object.fromEntries(ARRAYS.map(([name]) => [name, values.get(name)])),
    terms: termTableFromBytes(termBytes, termStarts),
  } as unknown as FieldIndexData;
  if (!consistent(fieldData, profileRanges)) return null;
  return {
    repoName: header.repoName,
    totalFiles: header.totalFiles,
    relationships: header.relationships,
    fieldIndex: new FieldIndex(fieldData),
    profileRanges,
  };
}

/** Array sizes that agree with each other, and offsets that stay inside their arrays. */
function consistent(data: FieldIndexData, profileRanges: Float64Array): boolean {
  const n = data.paths.length;
  const terms = data.terms.length;
  const ascending = (starts: Int32Array, size: number, last: number): boolean => {
    if (starts.length !== size + 1 || starts[0] !== 0 || starts[size] !== last) return false;
    for (let i = 1; i <= size; i++) if ((starts[i] as number) < (starts[i - 1] as number)) return false;
    return true;
  };
  return (
    [data.repoOf, data.roles, data.languageOf, data.isCode, data.linesOfCode].every((a) => a.length === n) &&
    data.lengths.length === FIELD_COUNT * n &&
    data.avgLength.length === FIELD_COUNT &&
    data.df.length === terms &&
    data.postings.length % 2 === 0 &&
    profileRanges.length === 2 * n &&
    ascending(data.postingStart, terms, data.postings.length) &&
    ascending(data.importStart, n, data.importTargets.length) &&
    ascending(data.importerStart, n, data.importerSources.length)
  );
}

function viewOf(body: Buffer, start: number, section: Section): TypedArray | string[] {
  const buffer = body.buffer;
  switch (section.kind) {
    case 'strings': {
      const text = body.toString('utf8', start - body.byteOffset, start - body.byteOffset + section.bytes);
      return section.count === 0 ? [] : text.split(STRING_SEPARATOR);
    }
    case 'i32':
      return new Int32Array(buffer, start, section.bytes / 4);
    case 'f32':
      return new Float32Array(buffer, start, section.bytes / 4);
    case 'f64':
      return new Float64Array(buffer, start, section.bytes / 8);
    case 'u8':
      return new Uint8Array(buffer, start, section.bytes);
  }
}

/** Reads the pack beside an index file, if there is one for this exact file. */
export function readPack(indexFile: string, source: PackSource): PackRead {
  let buffer: Buffer;
  try {
    buffer = readFileSync(packPathFor(indexFile));
  } catch {
    return { status: 'missing' };
  }
  return decodePack(buffer, source);
}

/** Writes the pack atomically; a folder that cannot be written is not an error, the next load just parses. */
export function writePack(indexFile: string, source: PackSource, contents: PackContents): boolean {
  const file = packPathFor(indexFile);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(temp, encodePack(source, contents));
    renameSync(temp, file);
    return true;
  } catch {
    rmSync(temp, { force: true });
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
