import { describe, expect, it } from 'vitest';
import { isoDate } from '../../../src/pipeline/buildIndex.js';
import { EntryTable } from '../../../src/pipeline/incremental/entryTable.js';
import type { EntryFacts, StoredRecord } from '../../../src/pipeline/incremental/reuseState.js';

const facts: EntryFacts = { status: 'ok', reason: null, source: 'static', fileType: 'TypeScript source', lines: 3, imports: 'digest' };
// Two offsets, start and end, for each of the five changeable fields (entryJson.ts CHANGEABLE).
const place = { start: 10, end: 90, holes: [12, 20, 24, 30, 40, 50, 60, 70, 75, 80] };
const previous: StoredRecord = { path: 'src/old.ts', mtimeMs: 1_000, size: 40, blob: 'b1', hash: 'h1', place, facts, detail: [0, 5] };

describe("a run's entries kept as columns", () => {
  it('give back what a fresh entry was added with, and its record for the next run', () => {
    const table = new EntryTable();
    const i = table.add({ path: 'src/new.ts', mtimeMs: 2_000, size: 50, place, choosesConcepts: true, fresh: { facts, record: { blob: null, hash: 'h2', detail: [7, 9] } } });
    expect(table.facts(i)).toEqual(facts);
    expect(table.choosesConcepts(i)).toBe(true);
    expect(table.inPrevious(i)).toBe(false);
    expect(table.detailRange(i)).toEqual([7, 9]);
    expect(table.record(i)).toEqual({ path: 'src/new.ts', mtimeMs: 2_000, size: 50, blob: null, hash: 'h2', place, facts });
  });

  it("change a reused entry's path, date and size only where the walk saw them change", () => {
    const table = new EntryTable();
    const same = table.add({ path: 'src/old.ts', mtimeMs: 1_000, size: 40, place, choosesConcepts: false, reused: { from: previous, blob: 'b1', detail: null } });
    const touched = table.add({ path: 'src/old.ts', mtimeMs: 5_000, size: 40, place, choosesConcepts: false, reused: { from: previous, blob: 'b1', detail: null } });
    const moved = table.add({ path: 'src/moved.ts', mtimeMs: 1_000, size: 40, place, choosesConcepts: false, reused: { from: previous, blob: 'b1', detail: null } });
    expect(table.changes(same)).toBeNull();
    expect(table.changes(touched)).toEqual({ last_modified: isoDate(5_000) });
    expect(table.changes(moved)).toEqual({ file_path: 'src/moved.ts', last_modified: isoDate(1_000), size_bytes: 40 });
    expect(table.detailRange(same)).toBeNull();
  });

  it('list their rows in path order, in code points', () => {
    const table = new EntryTable();
    for (const p of ['src/b.ts', 'src/B.ts', 'src/a.ts']) table.add({ path: p, mtimeMs: 0, size: 0, place, choosesConcepts: false, fresh: { facts, record: null } });
    expect([...table.order()].map((i) => table.path(i))).toEqual(['src/B.ts', 'src/a.ts', 'src/b.ts']);
  });
});
