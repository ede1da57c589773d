import { mkdirSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexCache } from '../../src/mcp/indexCache.js';
import { loadIndexes } from '../../src/search/load.js';
import { makeTempDir } from '../support/tempRepo.js';
import { CACHE_REPO, LIMITER_REPO, writeIndex } from './sampleIndexes.js';

/** A cache whose loads are counted. */
function countingCache(options: { maxFolders?: number } = {}) {
  const loads: string[] = [];
  const logs: string[] = [];
  const cache = new IndexCache({
    ...options,
    load: (dir, loadOptions) => {
      loads.push(loadOptions?.packs === false ? `${dir} (no packs)` : dir);
      return loadIndexes(dir, loadOptions);
    },
    log: (line) => logs.push(line),
  });
  return { cache, loads, logs };
}

describe('the MCP server\'s index cache', () => {
  it('loads a folder once and answers from memory while its files are unchanged', async () => {
    const dir = makeTempDir();
    writeIndex(dir, 'cachelib', CACHE_REPO);
    const { cache, loads, logs } = countingCache();
    const first = await cache.get(dir);
    const second = await cache.get(dir);
    expect(first.indexes.map((i) => i.key)).toEqual(['cachelib_index']);
    expect(second).toBe(first);
    expect(loads).toEqual([dir]);
    expect(logs).toEqual([`loaded 1 index(es) from ${dir}`]);
  });

  it('forgets a folder only for the call whose snapshot failed, and loads it without packs when asked', async () => {
    const dir = makeTempDir();
    writeIndex(dir, 'cachelib', CACHE_REPO);
    const { cache, loads } = countingCache();
    const first = await cache.get(dir);
    cache.forget(dir, first);
    const reloaded = await cache.get(dir);
    expect(reloaded).not.toBe(first);
    // A second call that failed on the first snapshot does not drop the reload the first call made.
    cache.forget(dir, first);
    expect(await cache.get(dir)).toBe(reloaded);
    const packless = await cache.get(dir, { packs: false });
    expect(await cache.get(dir)).toBe(packless);
    expect(loads).toEqual([dir, dir, `${dir} (no packs)`]);
  });

  it('reloads when an index is added, rewritten or removed', async () => {
    const dir = makeTempDir();
    const file = writeIndex(dir, 'cachelib', CACHE_REPO);
    const { cache, loads } = countingCache();
    expect((await cache.get(dir)).indexes).toHaveLength(1);

    writeIndex(dir, 'limiter', LIMITER_REPO);
    expect((await cache.get(dir)).indexes.map((i) => i.key)).toEqual(['cachelib_index', 'limiter_index']);

    writeIndex(dir, 'cachelib', { ...CACHE_REPO, repo_name: 'renamed' });
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect((await cache.get(dir)).indexes[0]?.index.repo_name).toBe('renamed');

    rmSync(file);
    expect((await cache.get(dir)).indexes.map((i) => i.key)).toEqual(['limiter_index']);
    expect(loads).toHaveLength(4);
  });

  it('answers a missing folder with no indexes and a warning, and loads it once it appears', async () => {
    const dir = path.join(makeTempDir(), 'later');
    const { cache } = countingCache();
    const missing = await cache.get(dir);
    expect(missing).toMatchObject({ dir, indexes: [], failed: true, warnings: [`indexes folder not found: ${dir}`] });

    mkdirSync(dir);
    writeIndex(dir, 'cachelib', CACHE_REPO);
    expect((await cache.get(dir)).indexes).toHaveLength(1);
  });

  it('names a file given as the folder', async () => {
    const file = writeIndex(makeTempDir(), 'cachelib', CACHE_REPO);
    expect((await countingCache().cache.get(file)).warnings).toEqual([`not a folder: ${file}`]);
  });

  it('keeps a corrupt index\'s warning beside the good indexes', async () => {
    const dir = makeTempDir();
    writeIndex(dir, 'cachelib', CACHE_REPO);
    writeIndex(dir, 'corrupt', '{ not json');
    const snapshot = await countingCache().cache.get(dir);
    expect(snapshot.indexes.map((i) => i.key)).toEqual(['cachelib_index']);
    expect(snapshot.warnings).toEqual(['skipped corrupt_index.json: not valid JSON']);
  });

  it('shares one load between calls that arrive together', async () => {
    const dir = makeTempDir();
    writeIndex(dir, 'cachelib', CACHE_REPO);
    const { cache, loads } = countingCache();
    const [a, b] = await Promise.all([cache.get(dir), cache.get(dir)]);
    expect(a).toBe(b);
    expect(loads).toHaveLength(1);
  });

  it('drops the least recently used folder beyond its limit', async () => {
    const dirs = [makeTempDir(), makeTempDir(), makeTempDir()];
    for (const dir of dirs) writeIndex(dir, 'cachelib', CACHE_REPO);
    const { cache, loads } = countingCache({ maxFolders: 2 });
    const [first, second, third] = dirs as [string, string, string];
    await cache.get(first);
    await cache.get(second);
    await cache.get(first);
    await cache.get(third);
    await cache.get(first);
    await cache.get(second);
    expect(loads).toEqual([first, second, third, second]);
  });
});
