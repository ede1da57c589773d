import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import type { RepoIndex } from '../../../src/index/types.js';
import { MergeError, mergeShards, readShard, writeMergedIndexes } from '../../../src/pipeline/modes/merge.js';
import { runIndex } from '../../../src/pipeline/runIndex.js';
import { parseShard } from '../../../src/pipeline/shard.js';
import { packPathFor } from '../../../src/search/pack.js';
import { makeTempDir, makeTempRepo } from '../../support/tempRepo.js';

const FILES = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`src/part${i}.ts`, `import { part0 } from './part0';\nexport function part${i}() { return ${i}; }\n`]));
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as RepoIndex;

describe('merging the shards of a repository', () => {
  it('writes the index a single run writes, with its run reports and search pack', async () => {
    const repo = makeTempRepo(FILES, { git: true, name: 'demo' });
    const config = defaultConfig();
    const shardOut = makeTempDir();
    const shards = [];
    for (const shard of ['1/2', '2/2']) shards.push(...(await runIndex([repo.root], { config, outDir: shardOut, shard: parseShard(shard) })).written);
    const whole = (await runIndex([repo.root], { config, outDir: makeTempDir() })).written[0]!;

    const parts = await Promise.all(shards.map((s) => readShard(s.outputPath)));
    const out = makeTempDir();
    const { written, reports } = await writeMergedIndexes(mergeShards(parts, config), out, config, null);

    expect(written).toHaveLength(1);
    const merged = read(written[0]!.outputPath);
    const single = read(whole.outputPath);
    expect(merged.file_summaries).toEqual(single.file_summaries);
    expect(merged.relationships).toEqual(single.relationships);
    expect(reports).toHaveLength(2);
    expect(existsSync(packPathFor(written[0]!.outputPath))).toBe(true);
  });

  it('refuses an incomplete set of shards, naming what is missing', async () => {
    const repo = makeTempRepo(FILES, { git: true, name: 'demo' });
    const config = defaultConfig();
    const { written } = await runIndex([repo.root], { config, outDir: makeTempDir(), shard: parseShard('1/2') });
    const parts = [await readShard(written[0]!.outputPath)];
    expect(() => mergeShards(parts, config)).toThrow(MergeError);
  });
});
