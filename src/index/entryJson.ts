/**
 * One file profile as an element of an index's `file_summaries` array, exactly as
 * `JSON.stringify(index, null, indent)` writes it there, together with where its changeable fields sit: the
 * byte ranges of the values of `file_path`, `key_concepts`, `last_modified`, `size_bytes` and `history`. A
 * later run that keeps the entry copies its bytes and splices new values into those ranges instead of parsing
 * and re-serialising it, and writes the same bytes a full serialisation would.
 */
import type { FileSummary } from './types.js';
import { escapeNonAscii, type JsonStyle } from './serialize.js';

/** The fields a kept entry may need to change, in the order of their ranges in `EntryBytes.holes`. */
export const CHANGEABLE = ['file_path', 'key_concepts', 'last_modified', 'size_bytes', 'history'] as const;
export type ChangeableField = (typeof CHANGEABLE)[number];
export type EntryChanges = Partial<Pick<FileSummary, ChangeableField>>;

/** Depth of a profile in an index: inside the top-level object, inside `file_summaries`. */
export const ENTRY_DEPTH = 2;

export interface EntryText {
  text: string;
  /** Its length in UTF-8 bytes. */
  bytes: number;
  /** For each CHANGEABLE field, the [start, end) byte offsets of its value within the UTF-8 text; -1, -1 when absent. */
  holes: number[];
}

export const HOLE_COUNT = 2 * CHANGEABLE.length;
const NO_HOLES: readonly number[] = Array.from({ length: HOLE_COUNT }, () => -1);

function indentOf(style: JsonStyle): number {
  return Math.min(10, Math.max(0, Math.floor(style.indent)));
}

/** A value as JSON nested `depth` levels deep: what `JSON.stringify(whole, null, indent)` writes for it there. */
export function nestedJson(value: unknown, depth: number, style: JsonStyle): string {
  const n = indentOf(style);
  let text = JSON.stringify(value, null, n);
  if (n > 0) text = text.replaceAll('\n', `\n${' '.repeat(n * depth)}`);
  return style.ensureAscii ? escapeNonAscii(text) : text;
}

/** The profile's text as an element of `file_summaries`, and the byte ranges of its changeable fields. */
export function entryJson(summary: FileSummary, style: JsonStyle): EntryText {
  const n = indentOf(style);
  const text = nestedJson(summary, ENTRY_DEPTH, style);
  const record = summary as unknown as Record<string, unknown>;
  const holes = [...NO_HOLES];
  // Indented, a key of the entry itself starts a line one level in (deeper keys start deeper); compact, it follows
  // `{` or `,`, and no string holds a raw quote. Each range found is checked against the value's own JSON.
  const lead = n > 0 ? `\n${' '.repeat(n * (ENTRY_DEPTH + 1))}` : '';
  const colon = n > 0 ? ': ' : ':';
  for (const [field, name] of CHANGEABLE.entries()) {
    const value = record[name];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    const key = `${lead}"${name}"${colon}`;
    let at = text.indexOf(key);
    while (n === 0 && at > 0 && text[at - 1] !== '{' && text[at - 1] !== ',') at = text.indexOf(key, at + 1);
    if (at < 0) continue;
    const start = at + key.length;
    const json = nestedJson(value, ENTRY_DEPTH + 1, style);
    if (!text.startsWith(json, start)) continue;
    holes[2 * field] = start;
    holes[2 * field + 1] = start + json.length;
  }
  const bytes = Buffer.byteLength(text);
  // Offsets so far count UTF-16 units; they are byte offsets only while the text is ASCII.
  if (bytes !== text.length) {
    for (let i = 0; i < holes.length; i++) if ((holes[i] as number) >= 0) holes[i] = Buffer.byteLength(text.slice(0, holes[i]));
  }
  return { text, bytes, holes };
}

/**
 * The entry stored as `bytes` (with its `holes`) after `changes`: the stored bytes with the new values spliced
 * in, as pieces to write in order, and the ranges of the changeable fields in the result. An entry stored
 * without one of the fields to change, or a field to remove (`undefined`), is parsed and written again (a field
 * added then comes last, as a spread adds it).
 */
export function changeEntry(bytes: Buffer, holes: readonly number[], changes: EntryChanges, style: JsonStyle): { pieces: Buffer[]; length: number; holes: number[] } {
  const edits: Array<[start: number, end: number, value: Buffer, field: number]> = [];
  for (const [field, name] of CHANGEABLE.entries()) {
    if (!(name in changes)) continue;
    const start = holes[2 * field] ?? -1;
    const end = holes[2 * field + 1] ?? -1;
    if (start < 0 || end < start || end > bytes.length || changes[name] === undefined) return rewriteEntry(bytes, changes, style);
    edits.push([start, end, Buffer.from(nestedJson(changes[name], ENTRY_DEPTH + 1, style), 'utf8'), field]);
  }
  edits.sort((a, b) => a[0] - b[0]);
  const pieces: Buffer[] = [];
  const moved = [...holes];
  let at = 0;
  let shift = 0;
  for (const [start, end, value, field] of edits) {
    if (start < at) return rewriteEntry(bytes, changes, style);
    pieces.push(bytes.subarray(at, start), value);
    moved[2 * field] = start + shift;
    shift += value.length - (end - start);
    moved[2 * field + 1] = end + shift;
    at = end;
  }
  pieces.push(bytes.subarray(at));
  // Fields after an edit move by the edits before them.
  for (const [field] of CHANGEABLE.entries()) {
    if (edits.some((e) => e[3] === field)) continue;
    const start = holes[2 * field] ?? -1;
    if (start < 0) continue;
    const before = edits.filter((e) => e[1] <= start).reduce((n, e) => n + e[2].length - (e[1] - e[0]), 0);
    moved[2 * field] = start + before;
    moved[2 * field + 1] = (holes[2 * field + 1] as number) + before;
  }
  return { pieces, length: bytes.length + shift, holes: moved };
}

/** The entry stored as `bytes` (in any style) parsed, changed and serialised again in `style`. */
export function rewriteEntry(bytes: Buffer, changes: EntryChanges, style: JsonStyle): { pieces: Buffer[]; length: number; holes: number[] } {
  const summary = { ...(JSON.parse(bytes.toString('utf8')) as FileSummary), ...changes };
  const entry = entryJson(summary, style);
  return { pieces: [Buffer.from(entry.text)], length: entry.bytes, holes: entry.holes };
}
