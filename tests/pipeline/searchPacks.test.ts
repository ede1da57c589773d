import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { runIndex } from '../../src/pipeline/runIndex.js';
import { writeSearchPacks } from '../../src/pipeline/searchPacks.js';
import { parseShard } from '../../src/pipeline/shard.js';
import { COMBINE_MIN_INDEXES, folderPackPath } from '../../src/search/folderPack.js';
import { packPathFor } from '../../src/search/pack.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

function repos(count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    makeTempRepo({ [`src/part${i}.ts`]: `export function part${i}() { return ${i}; }\n`, 'src/clock.ts': 'export const now = () => 0;\n' }, { name: `repo${i}` }).root,
  );
}

describe('writing the search packs, the last stage of a run', () => {
  it('gives every written index its pack, and a folder of enough indexes its combined pack', async () => {
    const out = makeTempDir();
    const { written } = await runIndex(repos(COMBINE_MIN_INDEXES), { config: defaultConfig(), outDir: out, searchPacks: false });
    expect(written.some((repo) => existsSync(packPathFor(repo.outputPath)))).toBe(false);

    await writeSearchPacks(written);

    for (const repo of written) expect(existsSync(packPathFor(repo.outputPath))).toBe(true);
    expect(existsSync(folderPackPath(out))).toBe(true);
  });

  it('runs at the end of runIndex, so a library caller gets the packs coderag index writes', async () => {
    const out = makeTempDir();
    const { written } = await runIndex(repos(1), { config: defaultConfig(), outDir: out });
    expect(written).toHaveLength(1);
    expect(existsSync(packPathFor(written[0]!.outputPath))).toBe(true);
  });

  it('is left out for a shard, whose partial index is never searched', async () => {
    const out = makeTempDir();
    await runIndex(repos(1), { config: defaultConfig(), outDir: out, shard: parseShard('1/2') });
    expect(readdirSync(out).filter((name) => name.startsWith('.coderag'))).toEqual([]);
    expect(existsSync(path.join(out, '.coderag-search'))).toBe(false);
  });
});
