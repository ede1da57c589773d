import { rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { IndexCache } from '../../src/mcp/indexCache.js';
import { getIndexesOverview, searchCodeReferences, searchText } from '../../src/mcp/tools.js';
import { runIndex } from '../../src/pipeline/runIndex.js';
import { changedFiles, checkFreshness, freshnessWithin, gitQuery, readTrailingMetadata } from '../../src/search/freshness.js';
import { loadIndexes } from '../../src/search/load.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../support/tempRepo.js';

const queryGit = gitQuery();

const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos.splice(0)) repo.remove();
});

function gitRepo(): TempRepo {
  const repo = makeTempRepo({ 'src/cache.ts': 'export function getCache() { return 1; }\n', 'src/clock.ts': 'export const now = () => 0;\n' }, { git: true });
  repos.push(repo);
  return repo;
}

async function indexInto(repo: TempRepo): Promise<string> {
  const out = makeTempDir();
  await runIndex([repo.root], { config: defaultConfig(), outDir: out });
  return out;
}

async function freshnessOf(out: string) {
  const { indexes } = await loadIndexes(out, { packs: false });
  const [only] = await checkFreshness(indexes);
  return only;
}

describe('freshness of an index against its repository on disk', () => {
  it('is up to date right after indexing a clean work tree, and records the commit', async () => {
    const repo = gitRepo();
    const out = await indexInto(repo);
    const head = repo.git('rev-parse', 'HEAD').trim();
    expect(await freshnessOf(out)).toMatchObject({ repo_name: 'repo', git_commit: head, git_dirty: false, checked: true, stale: false });
  });

  it('is stale once HEAD moves, naming both commits', async () => {
    const repo = gitRepo();
    const out = await indexInto(repo);
    const before = repo.git('rev-parse', 'HEAD').trim();
    repo.write('src/new.ts', 'export const x = 1;\n');
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'more');
    const after = repo.git('rev-parse', 'HEAD').trim();
    const fresh = await freshnessOf(out);
    expect(fresh).toMatchObject({ stale: true, head_commit: after, git_commit: before });
    expect(fresh?.reason).toBe(`HEAD moved from ${before.slice(0, 12)} to ${after.slice(0, 12)} since indexing`);
  });

  it('is stale when a tracked file was edited after a clean index, naming it', async () => {
    const repo = gitRepo();
    const out = await indexInto(repo);
    repo.write('src/clock.ts', 'export const now = () => Date.now();\n');
    const fresh = await freshnessOf(out);
    expect(fresh).toMatchObject({ stale: true });
    expect(fresh?.reason).toContain('src/clock.ts');
  });

  it('records a dirty index, keeps it fresh while its edits stand, and calls it stale once they change or go', async () => {
    const repo = gitRepo();
    repo.write('src/clock.ts', 'export const now = () => 42;\n');
    utimesSync(path.join(repo.root, 'src/clock.ts'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const out = await indexInto(repo);
    expect(await freshnessOf(out)).toMatchObject({ git_dirty: true, checked: true, stale: false });
    repo.write('src/clock.ts', 'export const now = () => 43;\n');
    expect(await freshnessOf(out)).toMatchObject({ stale: true, reason: 'src/clock.ts changed since indexing (uncommitted)' });
    repo.git('checkout', '--', 'src/clock.ts');
    expect((await freshnessOf(out))?.reason).toMatch(/^the uncommitted changes that were indexed are gone/);
  });

  it('keeps an index fresh when files deleted before indexing stay deleted, and calls it stale when an indexed one goes', async () => {
    const repo = gitRepo();
    repo.write('src/extra/a.ts', 'export const a = 1;\n');
    repo.write('src/extra/b.ts', 'export const b = 1;\n');
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'extra');
    rmSync(path.join(repo.root, 'src/extra'), { recursive: true });
    const out = await indexInto(repo);
    // From the whole index and from its search pack alike.
    const fromPack = async () => (await checkFreshness((await loadIndexes(out)).indexes))[0];
    expect(await freshnessOf(out)).toMatchObject({ git_dirty: true, checked: true, stale: false });
    expect(await fromPack()).toMatchObject({ git_dirty: true, checked: true, stale: false });
    rmSync(path.join(repo.root, 'src/clock.ts'));
    expect(await freshnessOf(out)).toMatchObject({ stale: true, reason: 'src/clock.ts was deleted since indexing (uncommitted)' });
    expect(await fromPack()).toMatchObject({ stale: true, reason: 'src/clock.ts was deleted since indexing (uncommitted)' });
  });

  it('is not checked, and says why, when the repository is not on disk', async () => {
    const repo = gitRepo();
    const out = await indexInto(repo);
    const root = repo.root;
    repo.remove();
    expect(await freshnessOf(out)).toMatchObject({ checked: false, stale: false, reason: `repository not on disk at ${root}` });
  });

  it('answers from HEAD alone, saying so, when git status does not answer in time', async () => {
    const repo = gitRepo();
    const out = await indexInto(repo);
    const { indexes } = await loadIndexes(out, { packs: false });
    const slowStatus = (args: string[], cwd: string, timeoutMs?: number) => (args[0] === 'status' ? Promise.reject(new Error('timed out')) : queryGit(args, cwd, timeoutMs));
    const [fresh] = await checkFreshness(indexes, { git: slowStatus });
    expect(fresh).toMatchObject({ checked: true, stale: false });
    expect(fresh?.reason).toMatch(/^HEAD is the indexed commit; edits to tracked files not checked/);
  });

  it('is not checked when the folder was not a git work tree when indexed', async () => {
    const plain = makeTempRepo({ 'a.ts': 'export const a = 1;\n' });
    repos.push(plain);
    const out = await indexInto(plain);
    expect(await freshnessOf(out)).toMatchObject({ git_commit: null, checked: false, stale: false, reason: 'the repository was not a git work tree when indexed' });
  });

  it('answers from a search pack as from the whole index: the pack keeps what the check reads of the metadata', async () => {
    const repo = gitRepo();
    const out = await indexInto(repo);
    await loadIndexes(out);
    const { indexes } = await loadIndexes(out);
    expect(indexes[0]?.packed?.indexed).toMatchObject({ repo_path: repo.root, git_commit: repo.git('rev-parse', 'HEAD').trim(), git_dirty: false });
    expect(await checkFreshness(indexes)).toEqual([await freshnessOf(out)]);
    repo.write('src/clock.ts', 'export const now = () => Date.now();\n');
    const [stale] = await checkFreshness(indexes);
    expect(stale).toMatchObject({ stale: true });
    expect(stale).toEqual(await freshnessOf(out));
  });

  it('reads the metadata of a large index from the end of its file, without parsing the rest', async () => {
    const repo = gitRepo();
    const out = await indexInto(repo);
    const meta = readTrailingMetadata(path.join(out, 'repo_index.json'));
    expect(meta).toMatchObject({ git_commit: repo.git('rev-parse', 'HEAD').trim(), git_dirty: false, tool: 'coderag' });
  });
});

describe('freshness kept for a moment between calls', () => {
  it('asks git about an index once within the time limit, again after it, and at once for a reloaded index', async () => {
    const repo = gitRepo();
    const out = await indexInto(repo);
    let calls = 0;
    let clock = 0;
    const check = freshnessWithin(1000, { git: (args, cwd) => (calls++, queryGit(args, cwd)), now: () => clock });
    const { indexes } = await loadIndexes(out, { packs: false });
    await check(indexes);
    const perCheck = calls;
    expect(perCheck).toBeGreaterThan(0);
    await check(indexes);
    expect(calls).toBe(perCheck);
    clock = 1500;
    await check(indexes);
    expect(calls).toBe(2 * perCheck);
    await check((await loadIndexes(out, { packs: false })).indexes);
    expect(calls).toBe(3 * perCheck);
  });
});

describe('freshness in the MCP tools', () => {
  it('search_code_references, search and get_indexes_overview report git_commit and stale per repository', async () => {
    const repo = gitRepo();
    const out = await indexInto(repo);
    repo.write('src/cache.ts', 'export function getCache() { return 2; }\n');
    const context = { cache: new IndexCache(), defaultIndexesDir: out };
    const head = repo.git('rev-parse', 'HEAD').trim();
    const expected = { repo_name: 'repo', index: 'repo_index', git_commit: head, stale: true };
    const refs = await searchCodeReferences(context, { target_file: 'cache.ts', keywords: 'cache' });
    expect(refs.json.freshness).toEqual([expect.objectContaining(expected)]);
    const text = await searchText(context, { query: 'cache' });
    expect(text.json.freshness).toEqual([expect.objectContaining(expected)]);
    const overview = await getIndexesOverview(context, {});
    const entry = (overview.json.overview as { repositories: Record<string, { git_commit: string; stale: boolean; freshness: { reason: string } }> }).repositories.repo_index;
    expect(entry).toMatchObject({ git_commit: head, stale: true });
    expect(entry?.freshness.reason).toContain('src/cache.ts');
  });
});

describe('reading git status --porcelain=v2 -z', () => {
  const blob = '78981922613b2afb6025042ff6bd878ac1994e85';
  it('reads the changed paths (spaces kept), skipping the source of a rename', () => {
    const output = [
      `1 .M N... 100644 100644 100644 ${blob} ${blob} src/my file.ts`,
      `2 R. N... 100644 100644 100644 ${blob} ${blob} R100 new.ts`,
      'old.ts',
      `u UU N... 100644 100644 100644 100644 ${blob} ${blob} ${blob} conflict.ts`,
      '',
    ].join('\0');
    expect(changedFiles(output)).toEqual(['src/my file.ts', 'new.ts', 'conflict.ts']);
    expect(changedFiles('')).toEqual([]);
  });
});
