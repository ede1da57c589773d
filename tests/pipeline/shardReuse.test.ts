/**
 * A shard profiles its own files but resolves their imports against the whole repository's: reusing its
 * entries must notice files coming and going in the other shards too.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { ExtractorPool } from '../../src/extract/extractorPool.js';
import { runIndex } from '../../src/pipeline/runIndex.js';
import { inShard, type Shard } from '../../src/pipeline/shard.js';
import { comparable, copyFixture } from '../support/reuseRuns.js';
import { makeTempDir } from '../support/tempRepo.js';

const extractors = new ExtractorPool(0);
afterAll(() => extractors.close());

/** The smallest split that puts the importer and the file it imports in different shards. */
function splitting(importer: string, imported: string): { own: Shard; count: number } {
  for (let count = 2; ; count++) {
    for (let index = 1; index <= count; index++) {
      const shard = { index, count };
      if (inShard(importer, shard) && !inShard(imported, shard)) return { own: shard, count };
    }
  }
}

describe('an incremental shard run', () => {
  it('re-resolves its files\' imports when a file of another shard is deleted, and writes what a full shard run writes', async () => {
    const repo = path.join(makeTempDir(), 'poly');
    copyFixture(repo);
    const { own } = splitting('lib/billing.rb', 'lib/tax.rb');
    const config = defaultConfig();
    const out = makeTempDir();
    const first = await runIndex([repo], { config, outDir: out, extractors, shard: own });
    const before = JSON.parse(readFileSync(first.written[0]?.outputPath as string, 'utf8'));
    expect(before.file_summaries.find((s: { file_path: string }) => s.file_path === 'lib/billing.rb').local_imports).toContain('lib/tax.rb');

    rmSync(path.join(repo, 'lib/tax.rb'));
    const again = await runIndex([repo], { config, outDir: out, extractors, shard: own });
    const full = await runIndex([repo], { config, outDir: makeTempDir(), extractors, shard: own, reuse: false });
    // Every file is taken from the previous index; billing.rb, whose import is gone, with its imports resolved again.
    expect(again.written[0]?.reuse).toMatchObject({ reused: 11, reresolved: 1, extracted: 0, parsed: 0 });
    const after = JSON.parse(readFileSync(again.written[0]?.outputPath as string, 'utf8'));
    expect(after.file_summaries.find((s: { file_path: string }) => s.file_path === 'lib/billing.rb').local_imports).not.toContain('lib/tax.rb');
    expect(comparable(again.written[0]?.outputPath as string)).toEqual(comparable(full.written[0]?.outputPath as string));
  });
});
