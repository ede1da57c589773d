/**
 * The MCP tools take the CLI's scope (repo, path, role, exclude_tests) and say in `scope` which they answered in.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { globPattern, makeScope, MAX_SCOPE_GLOBS } from '../../src/search/scope.js';
import { makeTempDir } from '../support/tempRepo.js';
import { CACHE_REPO, LIMITER_REPO, sampleIndex, writeIndex } from './sampleIndexes.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

let dir: string;
beforeAll(() => {
  dir = makeTempDir();
  writeIndex(dir, 'cachelib', CACHE_REPO);
  writeIndex(dir, 'limiter', LIMITER_REPO);
  const tests = sampleIndex('cachetests', [{ path: 'test/lruCache.test.ts', summary: 'Tests of the cache and its time to live.', functions: ['testTtl'], concepts: ['cache', 'ttl'] }]);
  tests.file_summaries[0]!.role = 'test';
  writeIndex(dir, 'cachetests', tests);
});

async function call(name: string, args: Record<string, unknown>) {
  const server = createMcpServer({ defaultIndexesDir: dir });
  const client = new Client({ name: 'test', version: '0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  closers.push(() => client.close(), () => server.close());
  const result = await client.callTool({ name, arguments: args });
  const [block] = result.content as { text: string }[];
  return { isError: result.isError === true, json: JSON.parse(block?.text ?? '{}') as Record<string, unknown> & { references?: Array<{ repo_name: string; file_path: string }> } };
}

describe('scope on the MCP tools', () => {
  it('search without a scope answers from every repository, and states none', async () => {
    const { json } = await call('search', { query: 'cache ttl token' });
    expect(new Set(json.references?.map((r) => r.repo_name))).toEqual(new Set(['cachelib', 'cachetests', 'limiter']));
    expect(json.scope).toBeUndefined();
  });

  it('search with repo answers from that repository only, one name or a list', async () => {
    const one = await call('search', { query: 'cache ttl token', repo: 'limiter' });
    expect(one.json.references?.map((r) => r.repo_name)).toEqual(['limiter']);
    expect(one.json.scope).toEqual({ repos: ['limiter'] });
    const two = await call('search', { query: 'cache ttl token', repo: ['limiter', 'cachelib'] });
    expect(new Set(two.json.references?.map((r) => r.repo_name))).toEqual(new Set(['cachelib', 'limiter']));
  });

  it('search with path, role or exclude_tests keeps the files in scope', async () => {
    const byPath = await call('search', { query: 'cache clock time', path: 'src/clock*' });
    expect(byPath.json.references?.map((r) => r.file_path)).toEqual(['src/clock.ts']);
    const noTests = await call('search', { query: 'cache ttl', exclude_tests: true });
    expect(noTests.json.references?.map((r) => r.file_path)).not.toContain('test/lruCache.test.ts');
    expect(noTests.json.scope).toEqual({ exclude_tests: true });
    const onlyTests = await call('search', { query: 'cache ttl', role: 'test' });
    expect(onlyTests.json.references?.map((r) => r.file_path)).toEqual(['test/lruCache.test.ts']);
  });

  it('search_code_references and find_symbol take the scope too', async () => {
    const refs = await call('search_code_references', { target_file: 'cache.ts', keywords: 'cache,ttl', repo: 'cachetests' });
    expect((refs.json.references as Array<{ repo_name: string }>).map((r) => r.repo_name)).toEqual(['cachetests']);
    expect(refs.json.scope).toEqual({ repos: ['cachetests'] });
    const symbols = await call('find_symbol', { name: 'now', repo: 'limiter' });
    expect(symbols.json).toMatchObject({ total_matches: 0, scope: { repos: ['limiter'] } });
  });

  it('get_file_outline refuses a file outside the scope', async () => {
    const refused = await call('get_file_outline', { repo: 'cachetests', path: 'test/lruCache.test.ts', exclude_tests: true });
    expect(refused.isError).toBe(true);
    expect(refused.json.message).toContain('is outside the scope asked for (no tests)');
  });

  it('answers an unknown repository with a tool error naming the indexed ones', async () => {
    const { isError, json } = await call('search', { query: 'cache', repo: 'flask' });
    expect(isError).toBe(true);
    expect(json).toMatchObject({ status: 'error', message: 'no indexed repository named "flask"', hint: 'indexed: cachelib, cachetests, limiter' });
  });
});

describe('globPattern', () => {
  it.each([
    ['src/**', 'src/a/b.ts', true],
    ['src/**', 'lib/src/a.ts', false],
    ['src/', 'src/a.ts', true],
    ['src/cache', 'src/cache/lru.ts', true],
    ['src/cache', 'src/cachedir/x.ts', false],
    ['*.py', 'pkg/store/kv.py', true],
    ['*.py', 'pkg/store/kv.pyc', false],
    ['src/*.ts', 'src/a/b.ts', false],
    ['**/test_*.py', 'tests/test_store.py', true],
    ['{src,lib}/**', 'lib/router.js', true],
    ['./app/Panel.tsx', 'app/Panel.tsx', true],
    ['src/***/x.ts', 'src/a/b/x.ts', true],
    ['**/**/**/x.ts', 'x.ts', true],
  ])('%s matches %s: %s', (glob, file, expected) => {
    expect(globPattern(glob).test(file)).toBe(expected);
  });

  it('keeps a glob\'s {a,b} whole where a list of globs is split at its commas', () => {
    expect(makeScope({ path: '{src,lib}/**,*.py' }, []).paths).toEqual(['{src,lib}/**', '*.py']);
    expect(makeScope({ path: ['src/{cache,limiter}/*.ts', 'docs/'] }, []).paths).toEqual(['src/{cache,limiter}/*.ts', 'docs/']);
  });

  it('refuses scopes a server should not have to match: too many globs, too long, too many wildcards', () => {
    expect(() => makeScope({ path: Array.from({ length: MAX_SCOPE_GLOBS + 1 }, (_, i) => `src/${i}/**`) }, [])).toThrow(`at most ${MAX_SCOPE_GLOBS} path globs`);
    expect(() => globPattern(`src/${'a'.repeat(300)}`)).toThrow('at most 256 characters');
    expect(() => globPattern('**a**a**a**a**a*a*a*a*Z')).toThrow('at most 8 wildcards');
  });
});
