import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMBINE_MAX_FILES, COMBINE_MIN_INDEXES, folderPackPath, worthCombining } from '../../src/search/folderPack.js';
import { loadIndexes } from '../../src/search/load.js';
import type { LoadedIndex, SearchRequest } from '../../src/search/types.js';
import { packPathFor } from '../../src/search/pack.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import { CodeRagError } from '../../src/shared/errors.js';
import { makeTempDir } from '../support/tempRepo.js';

/**
 * Small repositories that differ where ranking looks at a repository as a whole: how many files import the
 * most imported one, the longest file, and the mean field lengths (repository `r` has more files, longer
 * files and more vocabulary than the one before it). Two repositories hold the same paths, so equal scores
 * are broken by path and then by which index a file is in.
 */
function writeRepo(dir: string, r: number, name = `repo${r}`): string {
  const files = 3 + 2 * r;
  const summary = (i: number) => ({
    file_path: i === 0 ? 'src/client.ts' : `src/feature${i}/${i % 2 ? 'retry' : 'headers'}.ts`,
    file_type: 'TypeScript source',
    main_functions: [`handle${i}`, i % 2 ? 'retryRequest' : 'parseHeaders'],
    key_concepts: [i % 3 ? 'header' : 'retry', `topic${r}`],
    dependencies: i % 2 ? ['undici'] : [],
    summary: `Feature ${i} of repository ${r}: ${'backoff '.repeat(r)}requests.`,
    lines_of_code: 20 * (r + 1) + i,
    last_modified: '',
    language: 'TypeScript',
    role: i === files - 1 ? 'test' : 'source',
    status: 'ok',
    profile_source: 'static',
    content_hash: '',
    size_bytes: 100,
    symbols: [{ kind: 'function', name: `handle${i}`, ast_path: `handle${i}`, start_line: 1, end_line: 9 }],
    local_imports: i > 0 && i <= r + 1 ? ['src/client.ts'] : [],
    vocabulary: `retry:${r + 1} timeout:${i + 1} request`,
  });
  const file = path.join(dir, `${name}_index.json`);
  const index = { repo_name: name, total_files: files, file_summaries: Array.from({ length: files }, (_, i) => summary(i)), relationships: [] };
  writeFileSync(file, JSON.stringify(index, null, 2));
  return file;
}

const REQUESTS: SearchRequest[] = [
  { query: 'retry request with backoff', maxResults: 50 },
  { query: 'parse headers', maxResults: 50 },
  { target: 'src/retry.ts', keywords: ['timeout', 'request'], maxResults: 50 },
  { query: 'handle request', type: 'function', maxResults: 50 },
];

const answers = (indexes: readonly LoadedIndex[]) => {
  const corpus = new SearchCorpus(indexes);
  return REQUESTS.map((request) => search(corpus, request).references);
};

/** Whether every index of a load was answered by one shared (combined) field index. */
const combined = (indexes: readonly LoadedIndex[]) => new Set(indexes.map((l) => l.packed?.fieldIndex)).size === 1 && indexes.every((l) => l.packed);

function folderOf(repos: number): { dir: string; files: string[] } {
  const dir = makeTempDir();
  return { dir, files: Array.from({ length: repos }, (_, r) => writeRepo(dir, r)) };
}

describe('a folder of several small indexes', () => {
  it('is combined into one search file after its first load, and answers from it exactly as index by index', async () => {
    const { dir } = folderOf(6);
    const expected = answers((await loadIndexes(dir, { packs: false })).indexes);
    expect(expected.every((references) => references.length > 0)).toBe(true);
    const first = await loadIndexes(dir);
    expect(combined(first.indexes)).toBe(false);
    expect(existsSync(folderPackPath(dir))).toBe(true);
    const second = await loadIndexes(dir);
    expect(second.warnings).toEqual([]);
    expect(combined(second.indexes)).toBe(true);
    expect(answers(first.indexes)).toEqual(expected);
    expect(answers(second.indexes)).toEqual(expected);
  });

  it('keeps each index\'s own facts: repository name, file count, profiles and the whole index', async () => {
    const { dir } = folderOf(5);
    await loadIndexes(dir);
    const { indexes } = await loadIndexes(dir);
    expect(combined(indexes)).toBe(true);
    expect(indexes.map((l) => [l.key, l.packed?.repoName, l.packed?.size])).toEqual([0, 1, 2, 3, 4].map((r) => [`repo${r}_index`, `repo${r}`, 3 + 2 * r]));
    const third = indexes[2] as LoadedIndex;
    expect(third.packed?.profile(0).file_path).toBe('src/client.ts');
    expect(third.packed?.profile(6).role).toBe('test');
    expect(third.index.file_summaries).toHaveLength(7);
  });

  it.each([
    ['an index changes', (dir: string, files: string[]) => {
      writeRepo(dir, 7, 'repo2');
      utimesSync(files[2] as string, new Date(), new Date(Date.now() + 5000));
    }],
    ['an index is added', (dir: string) => void writeRepo(dir, 6)],
    ['an index is removed', (_: string, files: string[]) => rmSync(files[1] as string)],
    ['a run report is added', (dir: string) => writeFileSync(path.join(dir, 'indexing_summary.json'), JSON.stringify({ report_generation_time: 'now' }))],
  ])('is not used once %s, and is combined again from what the folder holds', async (_, change) => {
    const { dir, files } = folderOf(5);
    await loadIndexes(dir);
    change(dir, files);
    const expected = answers((await loadIndexes(dir, { packs: false })).indexes);
    const after = await loadIndexes(dir);
    expect(after.warnings).toEqual([]);
    expect(combined(after.indexes)).toBe(false);
    expect(answers(after.indexes)).toEqual(expected);
    const again = await loadIndexes(dir);
    expect(combined(again.indexes)).toBe(true);
    expect(answers(again.indexes)).toEqual(expected);
  });

  it('that is damaged is named in a warning, the indexes are read one by one, and it is written again', async () => {
    const { dir } = folderOf(5);
    const expected = answers((await loadIndexes(dir)).indexes);
    const pack = readFileSync(folderPackPath(dir));
    pack[12] = 'x'.charCodeAt(0); // the header's opening brace
    writeFileSync(folderPackPath(dir), pack);
    const damaged = await loadIndexes(dir);
    expect(damaged.warnings).toEqual([expect.stringMatching(/^the combined search file of .+ was damaged \(.+\); reading the indexes one by one$/)]);
    expect(answers(damaged.indexes)).toEqual(expected);
    const again = await loadIndexes(dir);
    expect(again.warnings).toEqual([]);
    expect(combined(again.indexes)).toBe(true);
  });

  it('that names one index for another is damaged: the search reads the indexes one by one', async () => {
    const { dir } = folderOf(5);
    const expected = answers((await loadIndexes(dir)).indexes);
    const pack = readFileSync(folderPackPath(dir));
    const header = pack.toString('latin1', 12, 12 + pack.readUInt32LE(8));
    const members = header.indexOf('"members"');
    // The second member named as the first: the header keeps its length, and no checksum covers it.
    pack.write(header.slice(members).replace('"repo1_index.json"', '"repo0_index.json"'), 12 + members, 'latin1');
    writeFileSync(folderPackPath(dir), pack);
    const damaged = await loadIndexes(dir);
    expect(damaged.warnings).toEqual([expect.stringMatching(/^the combined search file of .+ was damaged/)]);
    expect(answers(damaged.indexes)).toEqual(expected);
  });

  it('is not combined while an index in it cannot be read: the search says why each time', async () => {
    const { dir } = folderOf(5);
    writeFileSync(path.join(dir, 'broken_index.json'), '{ "repo_name": ');
    await loadIndexes(dir);
    const { warnings } = await loadIndexes(dir);
    expect(warnings).toEqual(['skipped broken_index.json: not valid JSON']);
    expect(existsSync(folderPackPath(dir))).toBe(false);
  });
});

/** Gives every file of an index 150 more words, so its pack holds several term blocks. */
function addWords(file: string): void {
  const index = JSON.parse(readFileSync(file, 'utf8'));
  for (const summary of index.file_summaries) summary.vocabulary += ` ${Array.from({ length: 150 }, (_, k) => `word${k}`).join(' ')}`;
  writeFileSync(file, JSON.stringify(index, null, 2));
}

/** The search pack of `indexFile`, and where its section `name` starts in it. */
function packSection(indexFile: string, name: string): { pack: Buffer; at: number } {
  const pack = readFileSync(packPathFor(indexFile));
  const headerLength = pack.readUInt32LE(8);
  const header = JSON.parse(pack.toString('utf8', 12, 12 + headerLength));
  const body = Math.ceil((12 + headerLength) / 8) * 8;
  return { pack, at: body + (header.sections.find((s: { name: string }) => s.name === name) as { offset: number }).offset };
}

/** Rewrites one 32-bit word of term block `block` in the search pack of `indexFile`. */
function damageTermBlock(indexFile: string, block: number, word: number, value: number): void {
  const offsets = packSection(indexFile, 'termBlockOffsets');
  const { pack, at } = packSection(indexFile, 'termBlocks');
  pack.writeInt32LE(value, at + offsets.pack.readInt32LE(offsets.at + 4 * block) + 4 * word);
  writeFileSync(packPathFor(indexFile), pack);
}

describe('a folder whose indexes have packs damaged where a search does not look', () => {
  it('is not combined: the damaged pack is named and dropped, the next search rebuilds it, and answers stay those of the JSON', async () => {
    const { dir, files } = folderOf(5);
    files.forEach(addWords);
    const fromJson = answers((await loadIndexes(dir, { packs: false })).indexes);
    await loadIndexes(dir);
    rmSync(folderPackPath(dir));
    damageTermBlock(files[0] as string, 1, 0, 999); // the second block's term count
    const damaged = await loadIndexes(dir);
    expect(damaged.warnings).toEqual([expect.stringMatching(/^the search file of repo0_index.json was damaged \(term block 1 cannot be read\); the next search rebuilds it from the index$/)]);
    expect(existsSync(folderPackPath(dir))).toBe(false);
    expect(existsSync(packPathFor(files[0] as string))).toBe(false);
    const rebuilt = await loadIndexes(dir);
    expect(rebuilt.warnings).toEqual([]);
    const again = await loadIndexes(dir);
    expect(combined(again.indexes)).toBe(true);
    expect(answers(again.indexes)).toEqual(fromJson);
  });

  it('is not combined when a block does not follow the one before, and the search goes on', async () => {
    const { dir, files } = folderOf(4);
    files.forEach(addWords);
    await loadIndexes(dir);
    rmSync(folderPackPath(dir));
    damageTermBlock(files[2] as string, 1, 2 * 64 + 2, 0); // the second block's first posting start, back to 0
    const { indexes, warnings } = await loadIndexes(dir);
    expect(indexes).toHaveLength(4);
    expect(warnings).toEqual([expect.stringMatching(/^the search file of repo2_index.json was damaged \(term block 1 does not follow the one before\)/)]);
    expect(existsSync(folderPackPath(dir))).toBe(false);
  });

  it('that names a file its index does not hold is found out by the search that reads it, and leaves no pack made from it', async () => {
    const { dir, files } = folderOf(5);
    await loadIndexes(dir);
    rmSync(folderPackPath(dir));
    // The first path of repo3's pack, 'src/client.ts', made 'src/clienT.ts': outside every checksum.
    const { pack, at } = packSection(files[3] as string, 'pathBytes');
    pack[pack.indexOf('src/client.ts', at) + 'src/clien'.length] = 'T'.charCodeAt(0);
    writeFileSync(packPathFor(files[3] as string), pack);
    const damaged = await loadIndexes(dir);
    expect(existsSync(folderPackPath(dir))).toBe(true);
    expect(() => answers(damaged.indexes)).toThrow(CodeRagError);
    expect(existsSync(packPathFor(files[3] as string))).toBe(false);
    expect(existsSync(folderPackPath(dir))).toBe(false);
    const fromJson = answers((await loadIndexes(dir, { packs: false })).indexes);
    expect(answers((await loadIndexes(dir)).indexes)).toEqual(fromJson);
    const again = await loadIndexes(dir);
    expect(combined(again.indexes)).toBe(true);
    expect(answers(again.indexes)).toEqual(fromJson);
  });
});

describe('some of a combined folder\'s indexes, searched without the others', () => {
  it('answer as the same indexes read one by one, whichever are left out', async () => {
    const { dir } = folderOf(5);
    await loadIndexes(dir);
    const { indexes } = await loadIndexes(dir);
    expect(combined(indexes)).toBe(true);
    const oneByOne = (await loadIndexes(dir, { packs: false })).indexes;
    for (const left of ['repo0_index', 'repo2_index', 'repo4_index']) {
      const without = (list: readonly LoadedIndex[]) => list.filter((l) => l.key !== left);
      expect(answers(without(indexes))).toEqual(answers(without(oneByOne)));
    }
  });
});

describe('which folders are combined', () => {
  it(`takes at least ${COMBINE_MIN_INDEXES} indexes, none of more than ${COMBINE_MAX_FILES} files`, () => {
    expect(worthCombining([10, 10, 10])).toBe(false);
    expect(worthCombining([10, 10, 10, 10])).toBe(true);
    expect(worthCombining([10, 10, 10, COMBINE_MAX_FILES])).toBe(true);
    expect(worthCombining([10, 10, 10, COMBINE_MAX_FILES + 1])).toBe(false);
  });

  it('leaves a folder of too few indexes with its packs alone', async () => {
    const { dir } = folderOf(COMBINE_MIN_INDEXES - 1);
    await loadIndexes(dir);
    await loadIndexes(dir);
    expect(existsSync(folderPackPath(dir))).toBe(false);
  });
});
