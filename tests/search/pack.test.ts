import { existsSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadIndexes } from '../../src/search/load.js';
import { prepareSearchPack, writtenLayout, type WrittenLayout } from '../../src/search/preparePacks.js';
import { folderPackPath } from '../../src/search/folderPack.js';
import { MAX_OPEN_PACKS, packPathFor, readPack, summaryRanges } from '../../src/search/pack.js';
import type { RepoIndex } from '../../src/index/types.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import { makeTempDir } from '../support/tempRepo.js';

const summary = (i: number) => ({
  vocabulary: i % 2 ? 'headers:3 parse' : 'retryAfter:2 backoff',
  file_path: `src/mod${i}/handler${i}.ts`,
  file_type: 'TypeScript source',
  main_functions: [`handle${i}`, i % 2 ? 'parseHeaders' : 'retryRequest'],
  key_concepts: [i % 3 ? 'header' : 'retry'],
  dependencies: [],
  summary: `Handles {case ${i}} with "quotes" and a \\ backslash ]`,
  lines_of_code: 10 + i,
  last_modified: '',
  language: 'TypeScript',
  role: 'source',
  status: i === 3 ? 'skipped' : 'ok',
  profile_source: 'static',
  content_hash: '',
  size_bytes: 100,
  symbols: [{ kind: 'function', name: `handle${i}`, ast_path: `handle${i}`, start_line: 1, end_line: 9 }],
  local_imports: i > 0 ? [`src/mod0/handler0.ts`] : [],
});

function writeIndex(dir: string, files = 12, name = 'demo'): string {
  const file = path.join(dir, `${name}_index.json`);
  const index = { repo_name: name, total_files: files, file_summaries: Array.from({ length: files }, (_, i) => summary(i)), relationships: [] };
  writeFileSync(file, JSON.stringify(index, null, 2));
  return file;
}

const answer = (corpus: SearchCorpus) => search(corpus, { query: 'retry request headers', maxResults: 5 }).references.map((r) => [r.file_path, r.score, r.symbols.length]);

describe('search packs', () => {
  it.each([0, 2, 4])('finds each file summary\'s bytes in JSON indented by %i, whatever its strings hold', (indent) => {
    const summaries = [{ a: '}{][\n  }', nested: { deep: ['{'] } }, { b: [1, { c: '\\"', d: '"file_summaries": [' }] }];
    const value = { repo_name: 'x]{"', file_summaries: summaries, relationships: [{ file_summaries: [] }] };
    const json = Buffer.from(JSON.stringify(value, null, indent));
    const ranges = summaryRanges(json);
    expect(ranges && [...ranges].length).toBe(4);
    const parts = [0, 2].map((i) => JSON.parse(json.subarray(ranges?.[i], ranges?.[i + 1]).toString()) as unknown);
    expect(parts).toEqual(summaries);
    expect([...(summaryRanges(Buffer.from(JSON.stringify({ file_summaries: [] }, null, indent))) ?? [1])]).toEqual([]);
  });

  it('answers from a pack exactly as from the JSON, and reads profiles one by one', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir);
    const plain = await loadIndexes(dir, { packs: false });
    const first = await loadIndexes(dir);
    expect(existsSync(packPathFor(file))).toBe(true);
    const second = await loadIndexes(dir);
    expect(second.indexes[0]?.packed).toBeDefined();
    const expected = answer(new SearchCorpus(plain.indexes));
    expect(expected.length).toBeGreaterThan(0);
    expect(answer(new SearchCorpus(first.indexes))).toEqual(expected);
    expect(answer(new SearchCorpus(second.indexes))).toEqual(expected);
    expect(second.indexes[0]?.index.file_summaries).toHaveLength(12);
  });

  it('keeps the profiles it read, so a warm search does not read and parse them again', async () => {
    const dir = makeTempDir();
    writeIndex(dir);
    await loadIndexes(dir);
    const packed = (await loadIndexes(dir)).indexes[0]?.packed;
    const profile = packed?.profile(3);
    expect(profile?.file_path).toBeTruthy();
    expect(packed?.profile(3)).toBe(profile);
  });

  it('rebuilds a pack once its index file changes', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir);
    await loadIndexes(dir);
    writeIndex(dir, 6);
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const { indexes, warnings } = await loadIndexes(dir);
    expect(warnings).toEqual([]);
    expect(new SearchCorpus(indexes).size).toBe(5);
    const again = await loadIndexes(dir);
    expect(again.indexes[0]?.packed?.fieldIndex.size).toBe(5);
  });

  it('writes a pack for every index, however small', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir, 1);
    await loadIndexes(dir);
    expect(existsSync(packPathFor(file))).toBe(true);
  });

  it.each([
    ['random bytes', () => Buffer.from('CRAGPACK\u0004\u0000\u0000\u0000{"x"')],
    ['a cut-off body', (pack: Buffer) => pack.subarray(0, pack.length - 40)],
    ['another magic', (pack: Buffer) => Buffer.concat([Buffer.from('NOTAPACK'), pack.subarray(8)])],
  ])('rebuilds a search file holding %s from the index, with a warning', async (_, damage) => {
    const dir = makeTempDir();
    const file = writeIndex(dir);
    const expected = answer(new SearchCorpus((await loadIndexes(dir)).indexes));
    writeFileSync(packPathFor(file), damage(readFileSync(packPathFor(file))));
    const { indexes, warnings } = await loadIndexes(dir);
    expect(warnings).toEqual([expect.stringMatching(/^the search file of demo_index.json was damaged \(.+\); rebuilt it from the index$/)]);
    expect(answer(new SearchCorpus(indexes))).toEqual(expected);
    expect((await loadIndexes(dir)).warnings).toEqual([]);
  });
});

describe('a pack with empty sections', () => {
  it('is read back fresh: an index with no imports is not rebuilt on every load', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir, 1);
    await loadIndexes(dir);
    expect(readPack(file, { size: statSync(file).size, mtimeMs: statSync(file).mtimeMs }).status).toBe('fresh');
    expect((await loadIndexes(dir)).warnings).toEqual([]);
  });
});

describe('a folder of more indexes than packs are kept open', () => {
  it.skipIf(!existsSync('/proc/self/fd'))('reads the packs past the limit whole, and answers from every index', async () => {
    const dir = makeTempDir();
    const count = MAX_OPEN_PACKS + 8;
    const files = Array.from({ length: count }, (_, i) => writeIndex(dir, 60, `repo${i}`));
    await loadIndexes(dir);
    // Each pack is larger than its first read, so it would keep its file open.
    expect(Math.min(...files.map((f) => statSync(packPathFor(f)).size))).toBeGreaterThan(16 * 1024);
    // Read index by index, not from the folder's combined pack.
    rmSync(folderPackPath(dir));
    const openBefore = readdirSync('/proc/self/fd').length;
    const { indexes, warnings } = await loadIndexes(dir);
    expect(warnings).toEqual([]);
    expect(readdirSync('/proc/self/fd').length - openBefore).toBeLessThanOrEqual(MAX_OPEN_PACKS);
    const answer = search(new SearchCorpus(indexes), { query: 'retry request headers', maxResults: 10 * count });
    expect(new Set(answer.references.map((r) => r.repo_name)).size).toBe(count);
  });
});

describe('preparing a pack at index time', () => {
  it('writes the pack the next load reads, with the same answers', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir);
    const plain = await loadIndexes(dir, { packs: false });
    expect(await prepareSearchPack(file)).toBe(true);
    expect(answer(new SearchCorpus((await loadIndexes(dir)).indexes))).toEqual(answer(new SearchCorpus(plain.indexes)));
  });

  it('builds the same pack entry by entry from where a run wrote each profile, without parsing the whole file', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir);
    expect(await prepareSearchPack(file)).toBe(true);
    const parsedWhole = readFileSync(packPathFor(file));
    rmSync(packPathFor(file));
    const index = (await loadIndexes(dir, { packs: false })).indexes[0]?.index as RepoIndex;
    const ranges = summaryRanges(readFileSync(file)) as Float64Array;
    const layout = writtenLayout({ index, summaryRanges: ranges }) as WrittenLayout;
    expect(await prepareSearchPack(file, layout)).toBe(true);
    expect(readFileSync(packPathFor(file)).equals(parsedWhole)).toBe(true);
    // Ranges that do not hold profiles write no pack.
    rmSync(packPathFor(file));
    expect(await prepareSearchPack(file, { ...layout, summaryRanges: ranges.map((at) => at + 1) })).toBe(false);
    expect(existsSync(packPathFor(file))).toBe(false);
  });

  it('answers only the relationships of its header that name both paths, as loading the index does', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir);
    const index = (await loadIndexes(dir, { packs: false })).indexes[0]?.index as RepoIndex;
    const good = { repo_file_path: 'src/a.ts', target_file_path: 'src/b.ts', relationship_type: 'reference', confidence_score: 0.9, helpful_aspects: ['x'], potential_contributions: [], usage_suggestions: '' };
    const pathless = { relationship_type: 'reference', confidence_score: 1 };
    const layout = writtenLayout({ index: { ...index, relationships: [good, pathless as never] }, summaryRanges: summaryRanges(readFileSync(file)) as Float64Array }) as WrittenLayout;
    expect(await prepareSearchPack(file, layout)).toBe(true);
    const info = statSync(file);
    const read = readPack(file, { size: info.size, mtimeMs: info.mtimeMs });
    expect(read.status === 'fresh' && read.pack.relationships).toEqual([good]);
  });

});

/** Enough files for a pack too large to read at once: it reads its postings from the file as queries need them. */
const LARGE = 3000;

describe('an opened pack', () => {
  it('reads its postings from its own file even after a re-index renamed a new pack over it', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir, LARGE);
    await prepareSearchPack(file);
    const info = statSync(file);
    const read = readPack(file, { size: info.size, mtimeMs: info.mtimeMs });
    if (read.status !== 'fresh') throw new Error(`expected a fresh pack, got ${read.status}`);
    const { fieldIndex } = read.pack;
    const termIds = Array.from({ length: fieldIndex.terms.length }, (_, t) => t);
    // What the pack's postings are, read from the bytes written, before anything changes.
    const written = readFileSync(packPathFor(file));
    // What `coderag index` does: a new index, and its pack renamed over the old one.
    writeIndex(dir, 5);
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    await prepareSearchPack(file);
    expect(readFileSync(packPathFor(file)).equals(written)).toBe(false);
    const inOldFile = termIds.map((t) => [...fieldIndex.postingsOf(t)]);
    writeFileSync(packPathFor(file), written);
    const again = readPack(file, { size: info.size, mtimeMs: info.mtimeMs });
    if (again.status !== 'fresh') throw new Error(`expected a fresh pack, got ${again.status}`);
    expect(inOldFile).toEqual(termIds.map((t) => [...again.pack.fieldIndex.postingsOf(t)]));
    expect(inOldFile.flat().length).toBeGreaterThan(0);
    expect(written.length).toBeGreaterThan(256 * 1024);
  });

  it('answers with what is left, without an error, when its postings are cut short on disk after it was opened', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir, LARGE);
    await prepareSearchPack(file);
    const opened = await loadIndexes(dir);
    const full = answer(new SearchCorpus(opened.indexes));
    truncateSync(packPathFor(file), statSync(packPathFor(file)).size - 64);
    const cut = answer(new SearchCorpus(opened.indexes));
    expect(full.length).toBeGreaterThan(0);
    expect(cut.length).toBeLessThanOrEqual(full.length);
    // The next load sees the cut and rebuilds the pack, with a warning.
    const reloaded = await loadIndexes(dir);
    expect(reloaded.warnings).toEqual([expect.stringMatching(/damaged \(sections outside the file\)/)]);
    expect(answer(new SearchCorpus(reloaded.indexes))).toEqual(full);
  });
});
