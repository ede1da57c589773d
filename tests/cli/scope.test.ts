/**
 * Scoped answers on the command line: `--repo` (repeatable), `--path`, `--role` and `--exclude-tests` on search,
 * symbol and outline, each answer saying which scope it was given.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { copyFixture } from '../support/reuseRuns.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

let out: string;

interface Answer {
  references: Array<{ repo_name: string; file_path: string; role: string }>;
  scope?: Record<string, unknown>;
  notice?: string;
}

const searchJson = async (...args: string[]): Promise<Answer> => {
  const ran = await runCli(['search', '--indexes', out, '--json', '--max-results', '30', ...args]);
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout) as Answer;
};

beforeAll(async () => {
  const poly = path.join(makeTempDir(), 'poly');
  copyFixture(poly);
  // A second repository that speaks of caches too.
  const other = makeTempRepo({
    'cache/store.py': 'def cache_get(key):\n    """Read a cached value."""\n    return key\n',
    // A stub beside it: role `types`.
    'cache/store.pyi': 'def cache_get(key: str) -> str: ...\n',
    'tests/test_store.py': 'def test_cache_get():\n    assert True\n',
  }, { name: 'pystore' });
  out = makeTempDir();
  expect((await runCli(['index', poly, other.root, '--out', out])).code).toBe(0);
}, 60_000);

describe('coderag search with a scope', () => {
  it('answers from every repository without one, and states no scope', async () => {
    const answer = await searchJson('--keywords', 'cache');
    expect(new Set(answer.references.map((r) => r.repo_name))).toEqual(new Set(['poly', 'pystore']));
    expect(answer.scope).toBeUndefined();
  });

  it('--repo keeps one repository, and the answer says so', async () => {
    const answer = await searchJson('--keywords', 'cache', '--repo', 'pystore');
    expect(answer.references.length).toBeGreaterThan(0);
    expect(answer.references.every((r) => r.repo_name === 'pystore')).toBe(true);
    expect(answer.scope).toEqual({ repos: ['pystore'] });
  });

  it('--repo given twice keeps both', async () => {
    const answer = await searchJson('--keywords', 'cache', '--repo', 'pystore', '--repo', 'POLY');
    expect(new Set(answer.references.map((r) => r.repo_name))).toEqual(new Set(['poly', 'pystore']));
    expect(answer.scope).toEqual({ repos: ['pystore', 'poly'] });
  });

  it('--path keeps the files a glob matches', async () => {
    const answer = await searchJson('--keywords', 'cache,clock', '--path', 'src/cache/**');
    expect(answer.references.map((r) => r.file_path).sort()).toEqual(['src/cache/clock.ts', 'src/cache/lruCache.test.ts', 'src/cache/lruCache.ts']);
    expect(answer.scope).toEqual({ paths: ['src/cache/**'] });
    // With snippets read from the repository too.
    const withSnippets = await searchJson('--keywords', 'cache,clock', '--path', 'src/cache/**', '--snippets', '2');
    expect(withSnippets.scope).toEqual({ paths: ['src/cache/**'] });
    expect(withSnippets.references.map((r) => r.file_path).sort()).toEqual(['src/cache/clock.ts', 'src/cache/lruCache.test.ts', 'src/cache/lruCache.ts']);
  });

  it('--exclude-tests and --role leave tests out, or keep only them', async () => {
    const all = await searchJson('--keywords', 'cache');
    expect(all.references.some((r) => r.role === 'test')).toBe(true);
    const noTests = await searchJson('--keywords', 'cache', '--exclude-tests');
    expect(noTests.references.length).toBeGreaterThan(0);
    expect(noTests.references.some((r) => r.role === 'test')).toBe(false);
    expect(noTests.scope).toEqual({ exclude_tests: true });
    const onlyTests = await searchJson('--keywords', 'cache', '--role', 'test');
    expect(onlyTests.references.map((r) => r.file_path).sort()).toEqual(['src/cache/lruCache.test.ts', 'tests/test_store.py']);
  });

  it('--role takes every role an index gives, declaration files, benchmarks and lock files too', async () => {
    const stubs = await searchJson('--keywords', 'cache', '--role', 'types');
    expect(stubs.references.map((r) => `${r.repo_name} ${r.file_path} ${r.role}`)).toEqual(['pystore cache/store.pyi types']);
    expect(stubs.scope).toEqual({ roles: ['types'] });
    for (const role of ['benchmark', 'lockfile']) expect((await runCli(['search', '--indexes', out, '--keywords', 'cache', '--role', role])).code).toBe(0);
  });

  it('says in markdown which scope it answered in, and why nothing came when nothing was in it', async () => {
    const ran = await runCli(['search', '--indexes', out, '--keywords', 'clock', '--repo', 'pystore']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^> scope: repo pystore\n/);
    expect(ran.stdout).toMatch(/no results in scope \(repo pystore\); \d+ outside it/);
  });

  it('says when no indexed file is in the scope at all, rather than ranking every file for nothing', async () => {
    const answer = await searchJson('--keywords', 'cache', '--path', 'nowhere/**');
    expect(answer.references).toEqual([]);
    expect(answer.notice).toBe('no indexed file is in scope (path nowhere/**)');
    const noStubs = await searchJson('--keywords', 'cache', '--repo', 'poly', '--role', 'types');
    expect(noStubs.notice).toBe('no indexed file is in scope (repo poly; role types)');
  });

  it('refuses a repository that is not indexed, naming those that are, and an unknown role', async () => {
    const repo = await runCli(['search', '--indexes', out, '--keywords', 'cache', '--repo', 'flask']);
    expect(repo.code).toBe(2);
    expect(repo.stderr).toContain('error: no indexed repository named "flask"\nhint: indexed: poly, pystore');
    const role = await runCli(['search', '--indexes', out, '--keywords', 'cache', '--role', 'tests']);
    expect(role.code).toBe(2);
    expect(role.stderr).toContain('error: unknown role "tests"');
  });
});

describe('coderag symbol and outline with a scope', () => {
  it('symbol --repo and --exclude-tests list only definitions in scope', async () => {
    const all = await runCli(['symbol', 'cache_get', '--indexes', out, '--json']);
    expect(JSON.parse(all.stdout).matches.map((m: { file_path: string }) => m.file_path)).toContain('cache/store.py');
    const scoped = await runCli(['symbol', 'cache_get', '--indexes', out, '--json', '--repo', 'poly']);
    expect(scoped.code).toBe(0);
    expect(JSON.parse(scoped.stdout)).toMatchObject({ total_matches: 0, scope: { repos: ['poly'] } });
    const test = await runCli(['symbol', 'test_cache_get', '--indexes', out, '--exclude-tests']);
    expect(test.stdout).toMatch(/^scope: no tests\n/);
    expect(test.stdout).not.toContain('tests/test_store.py');
  });

  it('outline refuses a file outside the scope, and names the scope it answered in', async () => {
    const refused = await runCli(['outline', 'pystore', 'tests/test_store.py', '--indexes', out, '--exclude-tests']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error: pystore tests/test_store.py (test) is outside the scope asked for (no tests)');
    const kept = await runCli(['outline', 'pystore', 'cache/store.py', '--indexes', out, '--role', 'source', '--json']);
    expect(kept.code).toBe(0);
    expect(JSON.parse(kept.stdout)).toMatchObject({ file_path: 'cache/store.py', scope: { roles: ['source'] } });
  });
});
