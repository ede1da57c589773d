import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexCache } from '../../src/mcp/indexCache.js';
import { findSymbolTool, getFileOutline, getIndexesOverview, searchCodeReferences, searchText, splitKeywords, type ToolContext } from '../../src/mcp/tools.js';
import { makeTempDir } from '../support/tempRepo.js';
import { toCallToolResult } from '../../src/mcp/server.js';
import { DEFAULT_MAX_TOKENS, estimateTokens } from '../../src/search/budget.js';
import { contentHash } from '../../src/shared/hash.js';
import { CACHE_REPO, LIMITER_REPO, sampleIndex, writeIndex } from './sampleIndexes.js';

const DEEPCODE_SEARCH_KEYS = [
  'status',
  'target_file',
  'indexes_directory',
  'keywords_used',
  'total_references_found',
  'total_relationships_found',
  'formatted_content',
  'indexes_loaded',
  'total_indexes_loaded',
];

function contextWith(...indexes: [string, unknown][]): ToolContext & { dir: string } {
  const dir = makeTempDir();
  for (const [name, index] of indexes) writeIndex(dir, name, index);
  return { cache: new IndexCache(), defaultIndexesDir: dir, dir };
}

describe('splitting DeepCode\'s keywords argument', () => {
  it.each([
    ['ttl,eviction', ['ttl', 'eviction']],
    [' ttl , , eviction ', ['ttl', 'eviction']],
    ['', []],
    [undefined, []],
    [['ttl', ' cache '], ['ttl', 'cache']],
  ])('reads %j as %j', (input, expected) => {
    expect(splitKeywords(input)).toEqual(expected);
  });
});

describe('the search_code_references tool', () => {
  it('answers with DeepCode\'s keys first, in DeepCode\'s order', async () => {
    const context = contextWith(['cachelib', CACHE_REPO]);
    const answer = await searchCodeReferences(context, { indexes_path: context.dir, target_file: 'cache.ts', keywords: 'ttl' });
    expect(answer.isError).toBe(false);
    expect(Object.keys(answer.json).slice(0, DEEPCODE_SEARCH_KEYS.length)).toEqual(DEEPCODE_SEARCH_KEYS);
    expect(answer.json).toMatchObject({ status: 'success', target_file: 'cache.ts', indexes_directory: context.dir, keywords_used: ['ttl'], indexes_loaded: ['cachelib_index'] });
    expect(answer.json.formatted_content).toContain('### 1. src/lruCache.ts');
  });

  it('searches the server\'s folder when no indexes_path is given', async () => {
    const context = contextWith(['cachelib', CACHE_REPO]);
    const answer = await searchCodeReferences(context, { target_file: 'cache.ts' });
    expect(answer.json).toMatchObject({ status: 'success', indexes_directory: context.dir, total_indexes_loaded: 1 });
  });

  it('honours max_results', async () => {
    const context = contextWith(['cachelib', CACHE_REPO]);
    const all = await searchCodeReferences(context, { target_file: 'x.ts', keywords: 'cache,clock' });
    const one = await searchCodeReferences(context, { target_file: 'x.ts', keywords: 'cache,clock', max_results: 1 });
    expect(all.json.total_references_found).toBe(2);
    expect(one.json.total_references_found).toBe(1);
  });

  it('answers DeepCode\'s error for a folder with no indexes, with the reason beside it', async () => {
    const missing = path.join(makeTempDir(), 'nothing-here');
    const context: ToolContext = { cache: new IndexCache(), defaultIndexesDir: missing };
    const answer = await searchCodeReferences(context, { target_file: 'cache.ts', keywords: 'ttl' });
    expect(answer.isError).toBe(true);
    expect(answer.json).toMatchObject({
      status: 'error',
      message: `No index files found or failed to load from: ${missing}`,
      target_file: 'cache.ts',
      indexes_directory: missing,
      warnings: [`indexes folder not found: ${missing}`],
    });
  });
});

describe('the get_indexes_overview tool', () => {
  it('describes every loaded repository', async () => {
    const context = contextWith(['cachelib', CACHE_REPO], ['limiter', LIMITER_REPO]);
    const answer = await getIndexesOverview(context, { indexes_path: context.dir });
    expect(answer.isError).toBe(false);
    expect(answer.json).toMatchObject({ status: 'success', indexes_directory: context.dir, total_indexes_loaded: 2, overview: { total_repos: 2 } });
  });

  it('answers DeepCode\'s error for an empty folder', async () => {
    const context = contextWith();
    const answer = await getIndexesOverview(context, {});
    expect(answer).toMatchObject({ isError: true, json: { status: 'error', message: `No index files found in: ${context.dir}`, indexes_directory: context.dir } });
  });
});

describe('the search tool', () => {
  it('ranks free text and points at matching symbols\' lines', async () => {
    const context = contextWith(['cachelib', CACHE_REPO], ['limiter', LIMITER_REPO]);
    const answer = await searchText(context, { query: 'where is the token bucket rate limiter?' });
    expect(answer.json).toMatchObject({ status: 'success', keywords_used: ['token', 'bucket', 'rate', 'limiter'], total_indexes_loaded: 2 });
    const results = answer.json.references as { repo_name: string; file_path: string; symbols: { name: string; start_line: number }[] }[];
    expect(results[0]).toMatchObject({ repo_name: 'limiter', file_path: 'src/tokenBucket.ts', summary: 'A token bucket rate limiter.', main_functions: ['takeToken', 'refillBucket'] });
    expect(results[0]?.symbols).toContainEqual(expect.objectContaining({ name: 'takeToken', start_line: 1 }));
  });

  it('answers a query of only stopwords and punctuation with no results and a notice saying why', async () => {
    const context = contextWith(['cachelib', CACHE_REPO]);
    const answer = await searchText(context, { query: 'what is the ???' });
    expect(answer).toMatchObject({ isError: false, json: { status: 'success', total_references_found: 0, references: [], keywords_used: [] } });
    expect(answer.json.notice).toMatch(/^no results: "what is the \?\?\?" has only stopwords, numbers, single letters or punctuation/);
    const deepcode = await searchCodeReferences(context, { target_file: '', keywords: 'the,;' });
    expect(deepcode.json.notice).toMatch(/^no results: "the, ;" has only stopwords/);
  });

  it('adds source lines around matching symbols when asked, or says why it cannot', async () => {
    const repo = makeTempDir();
    const source = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    writeFileSync(path.join(repo, 'bucket.ts'), source);
    const onDisk = sampleIndex('bucketlib', [{ path: 'bucket.ts', summary: 'A token bucket.', functions: ['takeToken'], concepts: ['token'] }]);
    Object.assign(onDisk.file_summaries[0] as object, { content_hash: contentHash(source) });
    const context = contextWith(['bucketlib', { ...onDisk, analysis_metadata: { repo_path: repo } }], ['limiter', LIMITER_REPO]);
    const answer = await searchText(context, { query: 'take token', snippets: 1 });
    const results = answer.json.references as { repo_name: string; snippets?: { from_line: number; to_line: number; text: string }[]; snippet_notice?: string }[];
    expect(results.find((r) => r.repo_name === 'bucketlib')?.snippets).toEqual([expect.objectContaining({ from_line: 1, to_line: 2, text: 'line 1\nline 2' })]);
    expect(results.find((r) => r.repo_name === 'limiter')?.snippet_notice).toBe('no snippets: the index does not record where the repository was');
  });

  it('rebuilds a search file found not to match its index, and answers with a warning that says so', async () => {
    const context = contextWith(['limiter', LIMITER_REPO]);
    await searchText(context, { query: 'token bucket' });
    // One letter of a path changed inside the pack written by that search, whose body has no checksum of its own.
    const pack = path.join(context.dir, '.coderag-search', 'limiter_index.pack');
    const bytes = readFileSync(pack);
    bytes[bytes.indexOf('tokenBucket.ts')] = 'x'.charCodeAt(0);
    writeFileSync(pack, bytes);
    const server = { ...context, cache: new IndexCache() };
    const answer = await searchText(server, { query: 'token bucket' });
    expect(answer.isError).toBe(false);
    expect(answer.json.warnings).toContain('the search file of limiter_index.json did not match the index and was removed; rebuilt from the index');
    expect((answer.json.references as { file_path: string }[])[0]?.file_path).toBe('src/tokenBucket.ts');
    const next = await searchCodeReferences(server, { target_file: '', keywords: 'token' });
    expect(next.json.warnings).toEqual([]);
  });

  it('quotes a huge query or name back clipped, not whole', async () => {
    const context = contextWith(['cachelib', CACHE_REPO]);
    const huge = `${'cache '.repeat(200_000)}end`;
    const answer = await searchText(context, { query: huge });
    expect(answer.json.query).toBe(`${huge.slice(0, 200)}…`);
    expect(JSON.stringify(answer.json).length).toBeLessThan(100_000);
    const symbol = await findSymbolTool(context, { name: 'x'.repeat(2_000_000) });
    expect(JSON.stringify(symbol.json).length).toBeLessThan(10_000);
  });

  it('answers an error naming the folder when nothing is indexed', async () => {
    const context = contextWith();
    const answer = await searchText(context, { query: 'cache' });
    expect(answer).toMatchObject({ isError: true, json: { status: 'error', message: `No index files found or failed to load from: ${context.dir}`, query: 'cache' } });
  });
});

describe('the get_file_outline tool', () => {
  it('lists a file\'s symbols with their lines, the file\'s own status apart from the answer\'s', async () => {
    const context = contextWith(['cachelib', CACHE_REPO], ['limiter', LIMITER_REPO]);
    const answer = await getFileOutline(context, { repo_name: 'cachelib', file_path: 'src/lruCache.ts' });
    expect(answer.json).toMatchObject({ status: 'success', file_status: 'ok', repo_name: 'cachelib', file_path: 'src/lruCache.ts', total_symbols: 2, indexes_directory: context.dir });
    expect(answer.json.symbols).toEqual([
      { kind: 'function', name: 'createCache', qualified_name: 'createCache', start_line: 1, end_line: 8, depth: 0 },
      { kind: 'function', name: 'setTtl', qualified_name: 'setTtl', start_line: 11, end_line: 18, depth: 0 },
    ]);
  });

  it('still takes repo and path, the names it took before, as an agent\'s saved configuration may', async () => {
    const context = contextWith(['cachelib', CACHE_REPO]);
    const old = await getFileOutline(context, { repo: 'cachelib', path: 'src/lruCache.ts' });
    expect(old.json).toEqual((await getFileOutline(context, { repo_name: 'cachelib', file_path: 'src/lruCache.ts' })).json);
  });

  it('answers a tool error naming what is missing when no file is named', async () => {
    const context = contextWith(['cachelib', CACHE_REPO]);
    const answer = await getFileOutline(context, { repo_name: 'cachelib' });
    expect(answer).toMatchObject({ isError: true, json: { status: 'error', message: 'Invalid arguments for tool get_file_outline: file_path is required', repo_name: 'cachelib', file_path: null } });
  });

  it('answers a tool error that suggests the right path for a wrong one', async () => {
    const context = contextWith(['cachelib', CACHE_REPO]);
    const answer = await getFileOutline(context, { repo_name: 'cachelib', file_path: 'lib/lruCache.ts' });
    expect(answer).toMatchObject({ isError: true, json: { status: 'error', message: 'no file lib/lruCache.ts in cachelib', hint: 'did you mean src/lruCache.ts?', repo_name: 'cachelib', file_path: 'lib/lruCache.ts' } });
  });
});

describe('the find_symbol tool', () => {
  it('says where a name is defined across the indexes', async () => {
    const context = contextWith(['cachelib', CACHE_REPO], ['limiter', LIMITER_REPO]);
    const answer = await findSymbolTool(context, { name: 'takeToken' });
    expect(answer.json).toMatchObject({ status: 'success', name: 'takeToken', total_matches: 1, truncated: false, total_indexes_loaded: 2 });
    expect(answer.json.matches).toEqual([
      { kind: 'function', name: 'takeToken', qualified_name: 'takeToken', start_line: 1, end_line: 8, depth: 0, repo_name: 'limiter', index: 'limiter_index', file_path: 'src/tokenBucket.ts', match: 'exact' },
    ]);
  });

  it('answers no match with a notice that says what to try', async () => {
    const context = contextWith(['cachelib', CACHE_REPO]);
    const answer = await findSymbolTool(context, { name: 'flushAll', kind: 'function' });
    expect(answer).toMatchObject({ isError: false, json: { status: 'success', total_matches: 0, matches: [] } });
    expect(answer.json.notice).toBe(`no symbol named "flushAll" of kind function in 1 index(es); try the name's last part (get finds LruCache.get and cacheGet), or a search`);
  });
});

describe('answers an agent can afford', () => {
  /** 40 files that all match "cache eviction", each with a long summary and many functions. */
  const bigRepo = sampleIndex(
    'bigcache',
    Array.from({ length: 40 }, (_, i) => ({
      path: `src/cache/store${i}.ts`,
      summary: `Cache store ${i} with eviction by least recent use, a time to live per entry and statistics of hits and misses. `.repeat(4),
      functions: Array.from({ length: 30 }, (_, j) => `evictEntry${i}x${j}`),
      concepts: ['cache', 'eviction', 'ttl'],
    })),
  );

  it.each([
    ['search', (context: ToolContext, max_tokens?: number) => searchText(context, { query: 'cache eviction', max_results: 40, ...(max_tokens ? { max_tokens } : {}) })],
    ['search_code_references', (context: ToolContext, max_tokens?: number) => searchCodeReferences(context, { target_file: 'cache.ts', keywords: 'cache,eviction', max_results: 40, ...(max_tokens ? { max_tokens } : {}) })],
  ])('%s cuts its last results to fit max_tokens, as valid JSON that says what it left out', async (_tool, call) => {
    const context = contextWith(['bigcache', bigRepo]);
    for (const budget of [undefined, 1000, 1500]) {
      const answer = await call(context, budget);
      const text = toCallToolResult(answer).content[0]?.type === 'text' ? (toCallToolResult(answer).content[0] as { text: string }).text : '';
      const json = JSON.parse(text) as { references: unknown[]; truncated?: { max_tokens: number; references_left_out: number } };
      expect(estimateTokens(text)).toBeLessThanOrEqual(budget ?? DEFAULT_MAX_TOKENS);
      expect(json.references.length).toBeGreaterThan(0);
      expect(json.truncated).toMatchObject({ max_tokens: budget ?? DEFAULT_MAX_TOKENS, references_left_out: 40 - json.references.length });
    }
  });

  it('lists a reference\'s matching main functions first, and only a few', async () => {
    const context = contextWith(['bigcache', bigRepo]);
    const answer = await searchText(context, { query: 'evictEntry3x17' });
    const [first] = answer.json.references as { file_path: string; main_functions: string[] }[];
    expect(first?.file_path).toBe('src/cache/store3.ts');
    expect(first?.main_functions[0]).toBe('evictEntry3x17');
    expect(first?.main_functions.length).toBeLessThanOrEqual(6);
  });
});
