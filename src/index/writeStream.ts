/**
 * Writes a JSON object piece by piece (each element of its top-level arrays on its own), to a temp file that
 * is then renamed over the target: the same bytes as `toJson(value, style)`, without ever holding the whole
 * text, or a Buffer of it, in memory. An index of 50,000 files is over 100 MB of JSON.
 *
 * A top-level array may be given as a `RawArray`: its elements are bytes made elsewhere (already JSON at
 * their depth, already escaped), fetched one at a time as they are written, so an index can be assembled
 * from stored entries without materialising them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { nestedJson } from './entryJson.js';
import { escapeNonAscii, type JsonStyle } from './serialize.js';

/** Pieces are gathered into writes of about this many bytes. */
const CHUNK = 1 << 20;

/** A top-level array whose element `i` is the bytes `element(i)` answers; `placed` learns where each landed. */
export class RawArray {
  constructor(
    readonly length: number,
    readonly element: (i: number) => Promise<readonly Uint8Array[]> | readonly Uint8Array[],
    readonly placed?: (i: number, start: number, end: number) => void,
  ) {}
}

interface RawSlot {
  raw: RawArray;
  index: number;
}

export interface WrittenFile {
  /** The file's SHA-1 (DIGEST), hex: what ties a reuse state to its index. */
  digest: string;
  bytes: number;
}

/** The digest written files are named by: not a security boundary, only a check that a file is the one written. */
export const DIGEST = 'sha1';

/** A temp file beside `file` named so a later run can tell whose it was: `.<name>.<pid>.<random>.<suffix>`. */
export function tempPathFor(file: string, suffix: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.${suffix}`);
}

/**
 * A file written in order, piece by piece, to a temp file beside its target that `commit` renames over it (so
 * no reader, and no crash, sees half of it) and `abort` deletes. Pieces are copied into one reused buffer as
 * they come (a caller may reuse theirs at once), which is hashed and written whenever it fills.
 */
export class AtomicWriter {
  private readonly chunk = Buffer.allocUnsafe(CHUNK);
  private used = 0;
  private readonly hash = createHash(DIGEST);
  /** Bytes written so far. */
  position = 0;

  private constructor(
    readonly file: string,
    private readonly temp: string,
    private readonly handle: FileHandle,
  ) {}

  static async open(file: string): Promise<AtomicWriter> {
    await mkdir(path.dirname(file), { recursive: true });
    const temp = tempPathFor(file, 'tmp');
    return new AtomicWriter(file, temp, await open(temp, 'w'));
  }

  async write(bytes: Uint8Array): Promise<void> {
    let from = 0;
    while (from < bytes.length) {
      const copied = Math.min(bytes.length - from, CHUNK - this.used);
      this.chunk.set(bytes.subarray(from, from + copied), this.used);
      this.used += copied;
      from += copied;
      if (this.used === CHUNK) await this.flush();
    }
    this.position += bytes.length;
  }

  /** Writes `text` as UTF-8, encoded straight into the buffer. */
  async writeText(text: string): Promise<void> {
    const length = Buffer.byteLength(text);
    if (length > CHUNK - this.used) await this.flush();
    if (length > CHUNK) return this.write(Buffer.from(text));
    this.chunk.write(text, this.used, 'utf8');
    this.used += length;
    this.position += length;
  }

  async commit(): Promise<WrittenFile> {
    try {
      await this.flush();
      await this.handle.close();
      await rename(this.temp, this.file);
    } catch (error) {
      await this.abort();
      throw error;
    }
    return { digest: this.hash.digest('hex'), bytes: this.position };
  }

  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await rm(this.temp, { force: true });
  }

  private async flush(): Promise<void> {
    if (this.used === 0) return;
    const filled = this.chunk.subarray(0, this.used);
    this.hash.update(filled);
    let written = 0;
    while (written < filled.length) written += (await this.handle.write(filled, written, filled.length - written)).bytesWritten;
    this.used = 0;
  }
}

export async function writeJsonStreamAtomic(file: string, value: Record<string, unknown>, style: JsonStyle): Promise<WrittenFile> {
  const out = await AtomicWriter.open(file);
  try {
    for (const piece of jsonPieces(value, style.indent)) {
      if (typeof piece === 'string') {
        await out.writeText(style.ensureAscii ? escapeNonAscii(piece) : piece);
        continue;
      }
      const start = out.position;
      for (const bytes of await piece.raw.element(piece.index)) await out.write(bytes);
      piece.raw.placed?.(piece.index, start, out.position);
    }
  } catch (error) {
    await out.abort();
    throw error;
  }
  return out.commit();
}

/** What JSON.stringify leaves out of an object. */
function omitted(value: unknown): boolean {
  const type = typeof value;
  return type === 'undefined' || type === 'function' || type === 'symbol';
}

/** JSON.stringify(value, null, indent), cut at the elements of the top-level arrays. */
export function* jsonPieces(value: Record<string, unknown>, indent: number): Generator<string | RawSlot> {
  const n = Math.min(10, Math.max(0, Math.floor(indent)));
  const pad = (depth: number) => ' '.repeat(n * depth);
  // Escaping, when asked for, is done by the writer on every piece.
  const nested = (v: unknown, depth: number): string => nestedJson(v, depth, { indent: n, ensureAscii: false });
  const keys = Object.keys(value).filter((k) => !omitted(value[k]));
  if (keys.length === 0) {
    yield '{}';
    return;
  }
  const newline = n > 0 ? '\n' : '';
  const colon = n > 0 ? ': ' : ':';
  yield `{${newline}`;
  for (const [i, key] of keys.entries()) {
    const v = value[key];
    yield `${pad(1)}${JSON.stringify(key)}${colon}`;
    if (v instanceof RawArray && v.length > 0) {
      yield `[${newline}`;
      for (let j = 0; j < v.length; j++) {
        yield pad(2);
        yield { raw: v, index: j };
        yield `${j < v.length - 1 ? ',' : ''}${newline}`;
      }
      yield `${pad(1)}]`;
    } else if (v instanceof RawArray) {
      yield '[]';
    } else if (Array.isArray(v) && v.length > 0) {
      yield `[${newline}`;
      for (const [j, element] of v.entries()) {
        yield `${pad(2)}${omitted(element) ? 'null' : nested(element, 2)}${j < v.length - 1 ? ',' : ''}${newline}`;
      }
      yield `${pad(1)}]`;
    } else {
      yield nested(v, 1);
    }
    yield `${i < keys.length - 1 ? ',' : ''}${newline}`;
  }
  yield '}';
}
