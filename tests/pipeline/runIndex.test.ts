import { readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import type { IndexEvent } from '../../src/pipeline/events.js';
import { indexRepository, runIndex } from '../../src/pipeline/runIndex.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

const FILES = {
  'src/client.ts': "import { retry } from './retry';\nexport function fetchWithRetry() { return retry(); }\n",
  'src/retry.ts': 'export function retry() { return 1; }\n',
  'assets/logo.bin': Buffer.from([0, 1, 2, 3]),
};

describe('the orchestrator', () => {
  it('writes the index it would return, with the stages reported in order', async () => {
    const repo = makeTempRepo(FILES, { name: 'demo' });
    const events: IndexEvent[] = [];
    const inMemory = await indexRepository(repo.root, { config: defaultConfig() });
    const { written } = await runIndex([repo.root], { config: defaultConfig(), outDir: makeTempDir(), onEvent: (e) => events.push(e) });
    const onDisk = JSON.parse(readFileSync(written[0]!.outputPath, 'utf8')) as typeof inMemory;
    expect(onDisk.file_summaries).toEqual(inMemory.file_summaries.map((s) => JSON.parse(JSON.stringify(s)) as unknown));
    const kinds = events.map((e) => e.type);
    expect(kinds[0]).toBe('repo_start');
    expect(kinds.at(-1)).toBe('repo_done');
    expect(kinds.filter((k) => k === 'file_done')).toHaveLength(inMemory.total_files);
  });

  it('reuses every entry of an unchanged repository on the next run into the same folder', async () => {
    const repo = makeTempRepo(FILES, { name: 'demo' });
    const out = makeTempDir();
    await runIndex([repo.root], { config: defaultConfig(), outDir: out });
    const again = await runIndex([repo.root], { config: defaultConfig(), outDir: out });
    expect(again.written[0]!.reuse).toMatchObject({ extracted: 0, reused: again.written[0]!.index.total_files });
  });
});

describe('repositories whose folders have the same name', () => {
  it('are indexed side by side, the second named with its parent folder, neither replacing the other', async () => {
    const first = makeTempRepo(FILES, { name: 'app' });
    const second = makeTempRepo(FILES, { name: 'app' });
    const out = path.join(makeTempDir(), 'out');
    const { written } = await runIndex([first.root, second.root], { config: defaultConfig(), outDir: out });
    const parent = path.basename(path.dirname(second.root));
    expect(written.map((w) => [w.index.repo_name, path.basename(w.outputPath)])).toEqual([
      ['app', 'app_index.json'],
      [`${parent}/app`, `${parent}_app_index.json`],
    ]);
  });

  it('are one repository when one folder is named twice', async () => {
    const repo = makeTempRepo(FILES, { name: 'app' });
    const { written } = await runIndex([repo.root, `${repo.root}/`], { config: defaultConfig(), outDir: makeTempDir() });
    expect(written).toHaveLength(1);
  });
});

describe('an index left behind by a renamed repository', () => {
  it('is named in a warning when the same commit is indexed again from its new folder', async () => {
    const repo = makeTempRepo(FILES, { name: 'proj', git: true });
    const out = makeTempDir();
    await runIndex([repo.root], { config: defaultConfig(), outDir: out });
    const moved = path.join(path.dirname(repo.root), 'proj2');
    renameSync(repo.root, moved);
    const events: IndexEvent[] = [];
    await runIndex([moved], { config: defaultConfig(), outDir: out, onEvent: (e) => events.push(e) });
    const warnings = events.filter((e) => e.type === 'warning').map((e) => (e as { message: string }).message);
    expect(warnings).toEqual([
      `proj_index.json was made from the same commit in ${repo.root}, which is gone; if that folder became proj2, searches of this folder answer from both indexes, each file twice: delete proj_index.json`,
    ]);
    // Indexed again where it is, nothing is left behind.
    const again: IndexEvent[] = [];
    rmSync(path.join(out, 'proj_index.json'));
    await runIndex([moved], { config: defaultConfig(), outDir: out, onEvent: (e) => again.push(e) });
    expect(again.filter((e) => e.type === 'warning')).toEqual([]);
  });
});
