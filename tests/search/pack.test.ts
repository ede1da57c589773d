import { utimesSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadIndexes, prepareSearchPack } from '../../src/search/load.js';
import { packPathFor, summaryRanges } from '../../src/search/pack.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import { makeTempDir } from '../support/tempRepo.js';

const summary = (i: number) => ({
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

function writeIndex(dir: string, files = 12): string {
  const file = path.join(dir, 'demo_index.json');
  const index = { repo_name: 'demo', total_files: files, file_summaries: Array.from({ length: files }, (_, i) => summary(i)), relationships: [] };
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
    const first = await loadIndexes(dir, { packMinFiles: 1 });
    expect(existsSync(packPathFor(file))).toBe(true);
    const second = await loadIndexes(dir, { packMinFiles: 1 });
    expect(second.indexes[0]?.packed).toBeDefined();
    const expected = answer(new SearchCorpus(plain.indexes));
    expect(expected.length).toBeGreaterThan(0);
    expect(answer(new SearchCorpus(first.indexes))).toEqual(expected);
    expect(answer(new SearchCorpus(second.indexes))).toEqual(expected);
    expect(second.indexes[0]?.index.file_summaries).toHaveLength(12);
  });

  it('ignores a pack once its index file changes', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir);
    await loadIndexes(dir, { packMinFiles: 1 });
    writeIndex(dir, 6);
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const { indexes } = await loadIndexes(dir, { packMinFiles: 100 });
    expect(indexes[0]?.packed).toBeUndefined();
    expect(new SearchCorpus(indexes).size).toBe(5);
  });

  it('writes no pack for a small index', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir);
    await loadIndexes(dir);
    expect(existsSync(packPathFor(file))).toBe(false);
  });
});

describe('preparing a pack at index time', () => {
  it('writes the pack the next load reads, with the same answers', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir);
    const plain = await loadIndexes(dir, { packs: false });
    const index = plain.indexes[0]?.index;
    if (!index) throw new Error('fixture index did not load');
    expect(await prepareSearchPack(file, index, 1)).toBe(true);
    const packed = await loadIndexes(dir, { packMinFiles: 1 });
    expect(packed.indexes[0]?.packed).toBeDefined();
    expect(answer(new SearchCorpus(packed.indexes))).toEqual(answer(new SearchCorpus(plain.indexes)));
  });

  it('writes nothing for an index below the size that repays a pack', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir);
    const index = (await loadIndexes(dir, { packs: false })).indexes[0]?.index;
    if (!index) throw new Error('fixture index did not load');
    expect(await prepareSearchPack(file, index)).toBe(false);
    expect(existsSync(packPathFor(file))).toBe(false);
  });
});
