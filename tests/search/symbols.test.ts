import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CodeSymbol, RepoIndex } from '../../src/index/types.js';
import type { LoadedIndex } from '../../src/search/types.js';
import { Tokenizer } from '../../src/search/profileTokens.js';
import { matchingSymbols } from '../../src/search/search.js';
import { fileOutline, findSymbol } from '../../src/search/symbols.js';
import { makeTempDir } from '../support/tempRepo.js';

const sym = (kind: string, name: string, ast_path: string, start_line: number, end_line: number, doc?: string) => ({ kind, name, ast_path, start_line, end_line, ...(doc ? { doc } : {}) });

function loaded(repo: string, files: { path: string; role?: string; symbols: ReturnType<typeof sym>[] }[], repoPath = `/home/dev/${repo}`): LoadedIndex {
  const index = {
    repo_name: repo,
    analysis_metadata: { repo_path: repoPath },
    total_files: files.length,
    file_summaries: files.map((f) => ({ file_path: f.path, file_type: 'TypeScript source', main_functions: [], key_concepts: [], dependencies: [], summary: `About ${f.path}.`, lines_of_code: 50, last_modified: '', language: 'TypeScript', role: f.role ?? 'source', status: 'ok', symbols: f.symbols, local_imports: [] })),
    relationships: [],
  } as unknown as RepoIndex;
  return { key: `${repo}_index`, file: '', index };
}

const CACHE = loaded('cachelib', [
  {
    path: 'src/cache/lruCache.ts',
    symbols: [
      sym('method', 'get', 'LruCache-get', 23, 27, 'Returns the value.'),
      sym('class', 'LruCache', 'LruCache', 15, 40, 'Keeps recent entries.'),
      sym('function', 'createCache', 'createCache', 42, 42),
      sym('method', 'evict', 'LruCache-evict', 34, 39),
    ],
  },
  { path: 'tests/lruCache.test.ts', role: 'test', symbols: [sym('function', 'get', 'get', 3, 5)] },
  { path: 'src/forget.ts', symbols: [sym('function', 'forget', 'forget', 1, 3), sym('function', 'cacheGet', 'cacheGet', 5, 9), sym('function', 'GET', 'GET', 11, 12)] },
]);
const STORE = loaded('store', [{ path: 'kv_store.py', symbols: [sym('class', 'KVStore', 'KVStore', 1, 30), sym('method', 'get', 'KVStore-get', 17, 20)] }]);

describe('a file\'s outline', () => {
  it('lists every symbol in line order with its kind, lines, nesting depth and doc', () => {
    const outline = fileOutline([CACHE], 'cachelib', 'src/cache/lruCache.ts');
    expect(outline).toMatchObject({ repo_name: 'cachelib', index: 'cachelib_index', file_path: 'src/cache/lruCache.ts', language: 'TypeScript', lines_of_code: 50 });
    expect(outline.symbols.map((s) => [s.kind, s.ast_path, s.start_line, s.end_line, s.depth])).toEqual([
      ['class', 'LruCache', 15, 40, 0],
      ['method', 'LruCache-get', 23, 27, 1],
      ['method', 'LruCache-evict', 34, 39, 1],
      ['function', 'createCache', 42, 42, 0],
    ]);
    expect(outline.symbols[1]?.doc).toBe('Returns the value.');
  });

  it.each([
    ['the index key and a ./ path', 'cachelib_index', './src/cache/lruCache.ts'],
    ['Windows separators', 'cachelib', 'src\\cache\\lruCache.ts'],
    ['a path suffix that names one file', 'cachelib', 'cache/lruCache.ts'],
    ['the repository name in another case', 'CacheLib', 'src/cache/lruCache.ts'],
    ['an absolute path into the folder it was indexed in', 'cachelib', '/home/dev/cachelib/src/cache/lruCache.ts'],
    ['an absolute path spelt with . and //', 'cachelib', '/home/dev/./cachelib//src/cache/lruCache.ts'],
  ])('finds the file from %s', (_, repo, filePath) => {
    expect(fileOutline([STORE, CACHE], repo, filePath).file_path).toBe('src/cache/lruCache.ts');
  });

  it('names the indexed repositories when the repository is unknown', () => {
    expect(() => fileOutline([STORE, CACHE], 'nope', 'a.ts')).toThrow(expect.objectContaining({ message: 'no index for repository "nope"', hint: 'indexed: store, cachelib' }));
  });

  it('suggests files with the same name when the path is not indexed', () => {
    expect(() => fileOutline([CACHE], 'cachelib', 'lib/lruCache.ts')).toThrow(expect.objectContaining({ message: 'no file lib/lruCache.ts in cachelib', hint: 'did you mean src/cache/lruCache.ts?' }));
    // A relative path is never cut down to a shorter indexed one: other/src/forget.ts is not src/forget.ts.
    expect(() => fileOutline([CACHE], 'cachelib', 'other/src/forget.ts')).toThrow(expect.objectContaining({ message: 'no file other/src/forget.ts in cachelib' }));
  });

  it('takes an absolute Windows path, and refuses one outside the indexed folder instead of guessing', () => {
    const onWindows = loaded('cachelib', [{ path: 'src/cache/lruCache.ts', symbols: [] }, { path: 'index.ts', symbols: [] }], 'C:\\dev\\cachelib');
    expect(fileOutline([onWindows], 'cachelib', 'C:\\dev\\cachelib\\src\\cache\\lruCache.ts').file_path).toBe('src/cache/lruCache.ts');
    // Editors send the drive letter in lower case.
    expect(fileOutline([onWindows], 'cachelib', 'c:\\dev\\cachelib\\index.ts').file_path).toBe('index.ts');
    expect(() => fileOutline([CACHE], 'cachelib', '/elsewhere/other/src/forget.ts')).toThrow(
      expect.objectContaining({ message: 'no file /elsewhere/other/src/forget.ts in cachelib: it is outside the folder the repository was indexed in (/home/dev/cachelib)' }),
    );
  });

  it('takes an absolute path through a symbolic link to the indexed folder, and the reverse', () => {
    const real = makeTempDir();
    mkdirSync(path.join(real, 'src/cache'), { recursive: true });
    writeFileSync(path.join(real, 'src/cache/lruCache.ts'), '');
    const link = path.join(makeTempDir(), 'link');
    symlinkSync(real, link);
    const viaLink = loaded('cachelib', [{ path: 'src/cache/lruCache.ts', symbols: [] }], link);
    expect(fileOutline([viaLink], 'cachelib', path.join(real, 'src/cache/lruCache.ts')).file_path).toBe('src/cache/lruCache.ts');
    const viaReal = loaded('cachelib', [{ path: 'src/cache/lruCache.ts', symbols: [] }], real);
    expect(fileOutline([viaReal], 'cachelib', path.join(link, 'src/cache/lruCache.ts')).file_path).toBe('src/cache/lruCache.ts');
  });

  it('says a folder is one and names some of its files', () => {
    expect(() => fileOutline([CACHE], 'cachelib', 'src/')).toThrow(
      expect.objectContaining({ message: 'no file src/ in cachelib (a folder of 2 indexed files; outline takes one file)', hint: 'did you mean src/cache/lruCache.ts, src/forget.ts?' }),
    );
  });
});

describe('finding where a symbol is defined', () => {
  it('puts exact names first, source before tests, across every index', () => {
    const result = findSymbol([CACHE, STORE], 'get');
    expect(result.matches.map((m) => [m.repo_name, m.file_path, m.ast_path, m.match])).toEqual([
      ['cachelib', 'src/cache/lruCache.ts', 'LruCache-get', 'exact'],
      ['store', 'kv_store.py', 'KVStore-get', 'exact'],
      ['cachelib', 'tests/lruCache.test.ts', 'get', 'exact'],
      ['cachelib', 'src/forget.ts', 'GET', 'case_insensitive'],
      ['cachelib', 'src/forget.ts', 'cacheGet', 'suffix'],
    ]);
    expect(result).toMatchObject({ name: 'get', kind: null, total_matches: 5, truncated: false });
  });

  it.each(['LruCache.get', 'LruCache::get', 'LruCache-get', 'lrucache.GET'])('finds a method by its qualified name %s', (name) => {
    const [first, ...rest] = findSymbol([CACHE, STORE], name).matches;
    expect(first).toMatchObject({ file_path: 'src/cache/lruCache.ts', start_line: 23, end_line: 27 });
    expect(rest).toEqual([]);
  });

  it('narrows to one kind', () => {
    expect(findSymbol([CACHE, STORE], 'get', { kind: 'function' }).matches.map((m) => m.ast_path)).toEqual(['get', 'GET', 'cacheGet']);
  });

  it('is bounded and says when it cut the list', () => {
    const result = findSymbol([CACHE, STORE], 'get', { maxResults: 2 });
    expect(result.matches).toHaveLength(2);
    expect(result).toMatchObject({ total_matches: 5, truncated: true });
  });

  it('answers no matches, not an error, for a name nothing defines', () => {
    expect(findSymbol([CACHE], 'flushAll')).toMatchObject({ total_matches: 0, matches: [], truncated: false, notice: `no symbol named "flushAll" in 1 index(es); try the name's last part (get finds LruCache.get and cacheGet), or a search` });
    expect(findSymbol([CACHE], 'get').notice).toBeUndefined();
  });

  it('rejects an unknown kind and an empty name with a clear message', () => {
    expect(() => findSymbol([CACHE], 'get', { kind: 'lambda' })).toThrow('unknown symbol kind "lambda"');
    expect(() => findSymbol([CACHE], '  ')).toThrow('a symbol name is needed');
  });
});

describe('a result\'s matching symbols', () => {
  const tokenizer = new Tokenizer();
  const tokensOf = { name: (name: string) => tokenizer.text(name), doc: (doc: string) => tokenizer.text(doc) };
  const symbol = (name: string, doc?: string): CodeSymbol => ({ kind: 'function', name, ast_path: name, start_line: 1, end_line: 2, ...(doc ? { doc } : {}) });
  const matching = (query: string, symbols: CodeSymbol[]) => matchingSymbols(symbols, new Set(tokenizer.text(query)), undefined, tokensOf).map((s) => s.name);

  it('are found where a word is plural, run together, written with digits or only in the doc comment', () => {
    const symbols = [symbol('getEntries'), symbol('parse_http'), symbol('base64Encode'), symbol('run', 'Retries the request.'), symbol('unrelated')];
    expect(matching('entry', symbols)).toEqual(['getEntries']);
    expect(matching('parsehttp', symbols)).toEqual(['parse_http']);
    expect(matching('base', symbols)).toEqual(['base64Encode']);
    expect(matching('retries', symbols)).toEqual(['run']);
    expect(matching('cache', symbols)).toEqual([]);
  });
});
