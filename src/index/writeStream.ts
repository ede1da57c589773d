/**
 * Writes a JSON object piece by piece (each element of its top-level arrays on its own), to a temp file that
 * is then renamed over the target: the same bytes as `toJson(value, style)`, without ever holding the whole
 * text, or a Buffer of it, in memory. An index of 50,000 files is over 100 MB of JSON.
 *
 * A top-level array may be given as a `RawArray`: its elements are bytes made elsewhere (already JSON at
 * their depth, already escaped), fetched one at a time as they are written, so an index can be assembled
 * from stored entries without materialising them.
 */
import { AtomicWriter, type WrittenFile } from '../shared/atomicFile.js';
import { nestedJson } from './entryJson.js';
import { escapeNonAscii, type JsonStyle } from './serialize.js';

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
