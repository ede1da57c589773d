/**
 * An index written by `coderag merge` seeds an incremental run, as a single run's does: merge writes the
 * reuse state beside it, combined from the shards' own, so the next `coderag index` into that folder (or a
 * fresh clone indexing into a copy of it, as a CI artifact seeds a local run) takes every unchanged entry.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoIndex } from '../../src/index/types.js';
import { runCli } from '../support/cli.js';
import { copyFixture } from '../support/reuseRuns.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../support/tempRepo.js';

const SHARDS = 2;
const read = (file: string): RepoIndex => JSON.parse(readFileSync(file, 'utf8')) as RepoIndex;
/** The entries and relationships: what a run that reused every entry must write unchanged. */
const content = (index: RepoIndex) => ({ files: index.file_summaries, relationships: index.relationships });

describe('an index written by coderag merge, indexed again', () => {
  let repo: TempRepo;
  let shardDir: string;
  let merged: string;
  let merge: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    repo = makeTempRepo({}, { name: 'poly' });
    copyFixture(repo.root);
    repo.git('init', '-q');
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'fixture');
    shardDir = makeTempDir();
    const shards = await Promise.all(Array.from({ length: SHARDS }, (_, i) => runCli(['index', repo.root, '--out', shardDir, '--shard', `${i + 1}/${SHARDS}`, '-q'])));
    for (const shard of shards) expect(shard.code, shard.stderr).toBe(0);
    merged = makeTempDir();
    merge = await runCli(['merge', shardDir, '--out', merged]);
  }, 120_000);
  afterAll(() => repo.remove());

  it('has the reuse state a single run writes beside it', () => {
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stderr).not.toContain('reuse state');
    expect(existsSync(path.join(merged, '.poly_index.json.state'))).toBe(true);
  });

  it('is updated incrementally by the next index into its folder: every entry reused, the closing line says so', async () => {
    const before = read(path.join(merged, 'poly_index.json'));
    const again = await runCli(['index', repo.root, '--out', merged]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/poly: 26 files indexed, 0 skipped, [\d.]+s; 26 reused \(\d+ by mtime and size, \d+ by git blob, \d+ by content hash\)/);
    expect(again.stderr).toContain('poly: 26 of 26 entries reused');
    expect(content(read(path.join(merged, 'poly_index.json')))).toEqual(content(before));
  }, 60_000);

  it('seeds a fresh clone indexing into a copy of it, by git blob ids', async () => {
    const clone = path.join(makeTempDir(), 'poly');
    repo.git('clone', '-q', repo.root, clone);
    const copy = makeTempDir();
    cpSync(merged, copy, { recursive: true });
    const local = await runCli(['index', clone, '--out', copy]);
    expect(local.code, local.stderr).toBe(0);
    expect(local.stderr).toContain('poly: 26 of 26 entries reused (0 by mtime and size, 26 by git blob, 0 by content hash)');
  }, 60_000);

  it('keeps what the next run needs to resolve imports again without parsing, when a file they point at goes', async () => {
    const clone = path.join(makeTempDir(), 'poly');
    repo.git('clone', '-q', repo.root, clone);
    const copy = makeTempDir();
    cpSync(merged, copy, { recursive: true });
    // lib/server.mjs imports it, and its summary, composed, names it.
    rmSync(path.join(clone, 'lib/router.js'));
    const local = await runCli(['index', clone, '--out', copy]);
    expect(local.code, local.stderr).toBe(0);
    expect(local.stderr).toMatch(/poly: 25 files indexed, .*; 25 reused from the index made in \S+ \(.*\), 1 of them with their imports resolved again, 0 extracted, 1 removed/);
  }, 60_000);

  it('is merged all the same when the shards come without their states, and says the next run indexes again', async () => {
    const bare = makeTempDir();
    for (let i = 1; i <= SHARDS; i++) cpSync(path.join(shardDir, `poly_index.shard-${i}-of-${SHARDS}.json`), path.join(bare, `poly_index.shard-${i}-of-${SHARDS}.json`));
    const out = path.join(makeTempDir(), 'out');
    mkdirSync(out);
    const result = await runCli(['merge', bare, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('poly: merged without a reuse state: no shard has a reuse state beside it (it has no reuse state)');
    expect(content(read(path.join(out, 'poly_index.json')))).toEqual(content(read(path.join(merged, 'poly_index.json'))));
  }, 60_000);
});
