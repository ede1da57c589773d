/**
 * Writes a JSON object piece by piece (each element of its top-level arrays on its own), to a temp file that
 * is then renamed over the target: the same bytes as `toJson(value, style)`, without ever holding the whole
 * text, or a Buffer of it, in memory. An index of 50,000 files is over 100 MB of JSON.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { escapeNonAscii, type JsonStyle } from './serialize.js';

/** Pieces are gathered into writes of about this many characters. */
const CHUNK = 1 << 20;

export async function writeJsonStreamAtomic(file: string, value: Record<string, unknown>, style: JsonStyle): Promise<{ sha256: string }> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temp, 'w');
  const hash = createHash('sha256');
  let pending: string[] = [];
  let pendingLength = 0;
  const flush = async (): Promise<void> => {
    if (pendingLength === 0) return;
    const text = pending.join('');
    pending = [];
    pendingLength = 0;
    hash.update(text);
    await handle.write(text);
  };
  const emit = async (piece: string): Promise<void> => {
    const text = style.ensureAscii ? escapeNonAscii(piece) : piece;
    pending.push(text);
    pendingLength += text.length;
    if (pendingLength >= CHUNK) await flush();
  };
  try {
    for (const piece of jsonPieces(value, style.indent)) await emit(piece);
    await flush();
    await handle.close();
    await rename(temp, file);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
  return { sha256: hash.digest('hex') };
}

/** JSON.stringify(value, null, indent), cut at the elements of the top-level arrays. */
export function* jsonPieces(value: Record<string, unknown>, indent: number): Generator<string> {
  const n = Math.min(10, Math.max(0, Math.floor(indent)));
  const pad = (depth: number) => ' '.repeat(n * depth);
  const nested = (v: unknown, depth: number): string => {
    const text = JSON.stringify(v, null, n);
    return n > 0 ? text.replaceAll('\n', `\n${pad(depth)}`) : text;
  };
  const keys = Object.keys(value).filter((k) => JSON.stringify(value[k]) !== undefined);
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
    if (Array.isArray(v) && v.length > 0) {
      yield `[${newline}`;
      for (const [j, element] of v.entries()) {
        yield `${pad(2)}${element === undefined || typeof element === 'function' ? 'null' : nested(element, 2)}${j < v.length - 1 ? ',' : ''}${newline}`;
      }
      yield `${pad(1)}]`;
    } else {
      yield nested(v, 1);
    }
    yield `${i < keys.length - 1 ? ',' : ''}${newline}`;
  }
  yield '}';
}
