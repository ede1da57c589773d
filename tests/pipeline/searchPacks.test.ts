import { appendFileSync, existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { runIndex } from '../../src/pipeline/runIndex.js';
import { writeSearchPacks } from '../../src/pipeline/searchPacks.js';
import { parseShard } from '../../src/pipeline/shard.js';
import { COMBINE_MIN_INDEXES, folderPackPath } from '../../src/search/folderPack.js';
import { packPathFor } from '../../src/search/pack.js';
import { prepareSearchPack } from '../../src/search/preparePacks.js';
import { entryJson } from '../../src/index/entryJson.js';
import { linkOf } from '../../src/pipeline/packUpdate.js';
import { staticProfile } from '../support/fileSummary.js';
import { committedFixture } from '../support/reuseRuns.js';
import { gitIn, makeTempDir, makeTempRepo } from '../support/tempRepo.js';

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

  it('writes, in a run from scratch, the pack of profiles tokenised as they were made: byte for byte the one built from the index file', async () => {
    const run = await runIndex([committedFixture('fixture: the commit subjects are a field too')], { config: defaultConfig(), outDir: makeTempDir() });
    expect(run.packs).toEqual(['built']);
    const indexFile = run.written[0]!.outputPath;
    expect(readFileSync(indexFile, 'utf8')).toContain('"history"');
    const pack = packPathFor(indexFile);
    const streamed = readFileSync(pack);
    renameSync(pack, `${pack}.streamed`);
    expect(await prepareSearchPack(indexFile)).toBe(true);
    expect(readFileSync(pack).equals(streamed)).toBe(true);
  });

  it('keeps what no search would see change: the pack of an unchanged run, the field index of a fresh clone, the postings of unedited files', async () => {
    const repo = committedFixture('fixture');
    const out = makeTempDir();
    const config = defaultConfig();
    expect((await runIndex([repo], { config, outDir: out })).packs).toEqual(['built']);
    expect((await runIndex([repo], { config, outDir: out })).packs).toEqual(['kept']);

    // A fresh clone: new dates and folder, the same contents.
    const clone = path.join(makeTempDir(), 'poly');
    gitIn(path.dirname(clone))('clone', '-q', repo, clone);
    const cloned = await runIndex([clone], { config, outDir: out });
    expect(cloned.packs).toEqual(['field index kept']);
    // Byte for byte the pack built from the index alone.
    const pack = packPathFor(cloned.written[0]!.outputPath);
    const kept = readFileSync(pack);
    renameSync(pack, `${pack}.kept`);
    expect(await prepareSearchPack(cloned.written[0]!.outputPath)).toBe(true);
    expect(readFileSync(pack).equals(kept)).toBe(true);

    // An edit: the edited file's document is tokenised again, the others' postings kept; again as built from scratch.
    appendFileSync(path.join(clone, 'src/cache/clock.ts'), '\nexport const later = 1;\n');
    expect((await runIndex([clone], { config, outDir: out })).packs).toEqual(['updated']);
    const updated = readFileSync(pack);
    expect(await prepareSearchPack(cloned.written[0]!.outputPath)).toBe(true);
    expect(readFileSync(pack).equals(updated)).toBe(true);
  });
});

describe('reading what the import graph needs of a kept entry', () => {
  const entry = staticProfile('src/a "quoted" path.ts', {
    role: 'test',
    local_imports: ['src/b.ts', 'src/c,\n  "d".ts'],
    symbols: [{ kind: 'function', name: 'local_imports', ast_path: 'local_imports', start_line: 1, end_line: 2, doc: '"local_imports": ["x.ts"]' }],
    summary: 'mentions "role": "source" and ,\n  "file_path": "elsewhere.ts"',
  });

  it('takes the path, role and local imports from the entry as the index writes it, at any indentation', () => {
    for (const indent of [2, 4]) {
      const { text } = entryJson(entry, { indent, ensureAscii: indent === 4 });
      expect(linkOf(text)).toEqual({ file_path: entry.file_path, role: 'test', local_imports: entry.local_imports });
    }
  });

  it('gives up on a compact entry, so the caller parses it whole', () => {
    expect(linkOf(entryJson(entry, { indent: 0, ensureAscii: false }).text)).toBeNull();
  });
});
