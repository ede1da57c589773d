import { describe, expect, it } from 'vitest';
import { changeEntry, entryJson } from '../../src/index/entryJson.js';
import { toJson } from '../../src/index/serialize.js';
import type { FileSummary } from '../../src/index/types.js';

const profile = {
  file_path: 'src/café/ttl_cache.ts',
  file_type: 'TypeScript source',
  main_functions: ['TtlCache', 'expire'],
  key_concepts: [],
  dependencies: ['src/café/clock.ts'],
  summary: 'A cache whose entries expire — "ttl" in 日本語\nsecond line',
  lines_of_code: 42,
  last_modified: '2026-01-02T03:04:05.000Z',
  language: 'TypeScript',
  role: 'source',
  status: 'ok',
  reason: undefined,
  profile_source: 'static',
  content_hash: 'abc',
  size_bytes: 1234,
  symbols: [{ kind: 'class', name: 'TtlCache', ast_path: 'TtlCache', start_line: 1, end_line: 40, doc: 'Caches 😀.' }],
  local_imports: ['src/café/clock.ts'],
  vocabulary: 'ttl:3 expire',
  history: ['Expire entries on read', 'Add the "size_bytes": cache'],
} as unknown as FileSummary;

/** The element's text as it sits in an index written whole, found between the array's brackets. */
function asWrittenWhole(summary: FileSummary, indent: number, ensureAscii: boolean): string {
  const whole = toJson({ file_summaries: [summary] }, { indent, ensureAscii });
  const open = whole.indexOf('[');
  return whole.slice(open + 1, whole.lastIndexOf(']')).trim();
}

const styles = [
  [2, false],
  [2, true],
  [0, false],
  [0, true],
  [4, false],
] as const;

describe('one profile as an element of an index', () => {
  it.each(styles)('is serialised exactly as JSON.stringify places it in a whole index (indent %i, ensure_ascii %s)', (indent, ensureAscii) => {
    const entry = entryJson(profile, { indent, ensureAscii });
    expect(entry.text).toBe(asWrittenWhole(profile, indent, ensureAscii));
    expect(entry.bytes).toBe(Buffer.byteLength(entry.text));
  });

  it.each(styles)('takes a new path, concepts, date, size and subjects into the bytes a fresh serialisation writes (indent %i, ensure_ascii %s)', (indent, ensureAscii) => {
    const style = { indent, ensureAscii };
    const stored = entryJson(profile, style);
    const changes = { file_path: 'lib/ñ/moved.ts', key_concepts: ['ttl', 'expiry', 'café'], last_modified: '2027-12-31T23:59:59.999Z', size_bytes: 98765, history: ['Move the café'] };
    const changed = changeEntry(Buffer.from(stored.text), stored.holes, changes, style);
    const fresh = entryJson({ ...profile, ...changes }, style);
    expect(Buffer.concat(changed.pieces).toString('utf8')).toBe(fresh.text);
    expect(changed.length).toBe(fresh.bytes);
    expect(changed.holes).toEqual(fresh.holes);
  });

  it.each(styles)('finds its fields when strings and symbols spell their keys (indent %i, ensure_ascii %s)', (indent, ensureAscii) => {
    const style = { indent, ensureAscii };
    const tricky = {
      ...profile,
      main_functions: ['"key_concepts": [', ',"size_bytes":1'],
      summary: 'says {"file_path":"x","last_modified":"y"} and \n      "size_bytes": 3',
      symbols: [{ kind: 'function', name: 'file_path', ast_path: 'key_concepts', start_line: 1, end_line: 2, doc: '"last_modified": "z"' }],
    } as FileSummary;
    const stored = entryJson(tricky, style);
    const changes = { file_path: 'b.ts', key_concepts: ['k'], last_modified: 'now', size_bytes: 1 };
    const changed = changeEntry(Buffer.from(stored.text), stored.holes, changes, style);
    expect(stored.holes.every((hole) => hole >= 0)).toBe(true);
    expect(Buffer.concat(changed.pieces).toString('utf8')).toBe(entryJson({ ...tricky, ...changes }, style).text);
  });

  it('changes one field and leaves the others where a fresh serialisation puts them', () => {
    const style = { indent: 2, ensureAscii: false };
    const stored = entryJson(profile, style);
    const changed = changeEntry(Buffer.from(stored.text), stored.holes, { key_concepts: ['one'] }, style);
    const fresh = entryJson({ ...profile, key_concepts: ['one'] }, style);
    expect(Buffer.concat(changed.pieces).toString('utf8')).toBe(fresh.text);
    expect(changed.holes).toEqual(fresh.holes);
  });

  it('writes an entry stored without a field to change again, with the field last, as a spread adds it', () => {
    const style = { indent: 2, ensureAscii: false };
    const { size_bytes: _size, ...withoutSize } = profile;
    const stored = entryJson(withoutSize as FileSummary, style);
    const changed = changeEntry(Buffer.from(stored.text), stored.holes, { size_bytes: 7 }, style);
    expect(Buffer.concat(changed.pieces).toString('utf8')).toBe(entryJson({ ...withoutSize, size_bytes: 7 } as FileSummary, style).text);
    expect(Object.keys(JSON.parse(Buffer.concat(changed.pieces).toString('utf8'))).at(-1)).toBe('size_bytes');
  });

  it('drops a field changed to undefined (a file whose commit subjects all went), as a fresh serialisation leaves it out', () => {
    const style = { indent: 2, ensureAscii: false };
    const stored = entryJson(profile, style);
    const changed = changeEntry(Buffer.from(stored.text), stored.holes, { history: undefined }, style);
    const { history: _gone, ...without } = profile;
    expect(Buffer.concat(changed.pieces).toString('utf8')).toBe(entryJson(without as FileSummary, style).text);
  });
});
