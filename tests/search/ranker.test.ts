import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CodeSymbol, FileRelationship, FileSummary } from '../../src/index/types.js';
import { askedRoles, DEFAULT_PARAMS, rankBm25f } from '../../src/search/bm25f.js';
import { testedStems } from '../../src/search/profileTokens.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import { DEFAULT_SCORER, SCORERS, type SearchRequest } from '../../src/search/types.js';
import { searchStem, splitIdentifier, stem } from '../../src/shared/text.js';
import { corpusOf, staticProfile } from '../support/fileSummary.js';

const symbol = (name: string, kind: CodeSymbol['kind'] = 'function', doc?: string, start_line = 1): CodeSymbol => ({
  kind,
  name,
  ast_path: name,
  start_line,
  end_line: start_line + 4,
  ...(doc ? { doc } : {}),
});

const file = (file_path: string, fields: Partial<FileSummary> = {}): FileSummary =>
  staticProfile(file_path, { dependencies: fields.local_imports ?? [], ...fields });

const ranking = (corpus: SearchCorpus, request: SearchRequest): string[] => search(corpus, { maxResults: 20, ...request }).references.map((r) => r.file_path);

describe('the bm25f ranker', () => {
  it('ranks the best k as the first k of the whole ranking, ties broken by path', () => {
    // Few distinct profiles over many files: most scores tie, so the order among equals is what is tested.
    const words = ['cache', 'retry', 'parse', 'headers'];
    const profiles = fc.array(fc.tuple(fc.subarray(words, { minLength: 1 }), fc.integer({ min: 1, max: 3 })), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(profiles, fc.integer({ min: 1, max: 12 }), (files, k) => {
        const corpus = corpusOf(files.map(([concepts, size], i) => file(`src/f${(i * 7) % 41}_${i}.ts`, { key_concepts: concepts, lines_of_code: size })));
        const input = { terms: corpus.tokenizer.text(words.join(' ')), targetName: [], targetLanguage: '' };
        const whole = rankBm25f(corpus.segments, input);
        expect(whole).toHaveLength(files.length);
        expect(rankBm25f(corpus.segments, input, undefined, k)).toEqual(whole.slice(0, k));
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it('is the default scorer, first among SCORERS, with deepcode still available', () => {
    expect(SCORERS[0]).toBe('bm25f');
    expect(DEFAULT_SCORER).toBe('bm25f');
    expect(SCORERS).toContain('deepcode');
    expect(search(corpusOf([file('a.ts')]), { query: 'anything' }).scorer).toBe('bm25f');
  });

  it('puts a source file above its test, even when the test mentions the query more', () => {
    const corpus = corpusOf([
      file('src/cache.ts', { symbols: [symbol('LruCache', 'class'), symbol('evict', 'method')], key_concepts: ['cache', 'evict'] }),
      file('tests/cache.test.ts', {
        role: 'test',
        symbols: [symbol('testCacheEvict'), symbol('testCacheEvictTwice'), symbol('cacheFixture')],
        key_concepts: ['cache', 'evict', 'lru'],
        local_imports: ['src/cache.ts'],
      }),
    ]);
    expect(ranking(corpus, { query: 'lru cache evict' })).toEqual(['src/cache.ts', 'tests/cache.test.ts']);
  });

  it('lets a query that asks for tests have them first', () => {
    expect(askedRoles(['test', 'cach'])).toEqual(new Set(['test']));
    const corpus = corpusOf([
      file('src/cache.ts', { symbols: [symbol('Cache', 'class')] }),
      file('tests/expiry.test.ts', { role: 'test', symbols: [symbol('testCacheEvict'), symbol('testCacheExpiry')], key_concepts: ['cache', 'evict'] }),
    ]);
    expect(ranking(corpus, { query: 'cache evict tests' })[0]).toBe('tests/expiry.test.ts');
  });

  it('ranks a file whose symbol is named for the query above one that only mentions it in a doc comment', () => {
    const corpus = corpusOf([
      file('src/clock.ts', { symbols: [symbol('now', 'function', 'Current time; the retry policy reads it between attempts.')] }),
      file('src/policy.ts', { symbols: [symbol('retryPolicy', 'function')] }),
    ]);
    expect(ranking(corpus, { query: 'retry policy' })).toEqual(['src/policy.ts', 'src/clock.ts']);
  });

  it('lifts a file imported by a strong match above an equally weak stranger', () => {
    const corpus = corpusOf([
      file('src/http.ts', { symbols: [symbol('retryRequest'), symbol('backoff')], local_imports: ['src/clock.ts'] }),
      file('src/clock.ts', { key_concepts: ['delay'] }),
      file('src/timer.ts', { key_concepts: ['delay'] }),
    ]);
    expect(ranking(corpus, { query: 'retry backoff delay' })).toEqual(['src/http.ts', 'src/clock.ts', 'src/timer.ts']);
  });

  it('keeps markdown and config below code that matches as well', () => {
    const corpus = corpusOf([
      file('README.md', { role: 'docs', language: 'Markdown', file_type: 'Markdown documentation', summary: 'Retry with backoff: how retry and backoff work.', key_concepts: ['retry', 'backoff'] }),
      file('config/retry.yaml', { role: 'config', language: 'YAML', file_type: 'YAML configuration', key_concepts: ['retry', 'backoff'] }),
      file('src/retry.ts', { symbols: [symbol('withRetry'), symbol('backoffDelay')] }),
    ]);
    expect(ranking(corpus, { query: 'retry backoff' })[0]).toBe('src/retry.ts');
  });

  it('splits identifiers and stems on both sides: "caches" finds CacheStore, "formdata" finds FormData', () => {
    const corpus = corpusOf([
      file('src/store.ts', { symbols: [symbol('CacheStore', 'class')] }),
      file('src/form.ts', { symbols: [symbol('FormData', 'class')] }),
      file('src/other.ts', { symbols: [symbol('settle')] }),
    ]);
    expect(ranking(corpus, { query: 'caches' })).toEqual(['src/store.ts']);
    expect(ranking(corpus, { query: 'formdata' })).toEqual(['src/form.ts']);
    expect(search(corpus, { query: 'formdata' }).references[0]?.symbols.map((s) => s.name)).toEqual(['FormData']);
  });

  it('matches an identifier written in the request whole, above files that only share its parts', () => {
    const corpus = corpusOf([
      file('crates/printer/src/lib.rs', { language: 'Rust', vocabulary: 'doc_auto_cfg docsrs cfg_attr' }),
      file('crates/core/flags/defs.rs', { language: 'Rust', vocabulary: 'doc:40 cfg:12 auto:9 flag:30' }),
    ]);
    expect(ranking(corpus, { query: 'use `doc_cfg` instead of `doc_auto_cfg`' })[0]).toBe('crates/printer/src/lib.rs');
    expect(search(corpus, { query: 'refactor `isHidden` and doc_auto_cfg' }).keywords_used).toEqual(['refactor', 'isHidden', 'doc_auto_cfg']);
  });

  it('searches keywords a request means as words, but not function words or syntax', () => {
    const corpus = corpusOf([
      file('src/cli.rs', { language: 'Rust', vocabulary: 'short:12 long:30 help:20 arg:40 option:2' }),
      file('src/output.rs', { language: 'Rust', vocabulary: 'trailing:3 option:6 write:20' }),
      file('src/walk.rs', { language: 'Rust', vocabulary: 'walk:20 entry:12 option:3' }),
    ]);
    expect(ranking(corpus, { query: 'the short option' })[0]).toBe('src/cli.rs');
    expect(search(corpus, { query: 'the fn and self of a short default type' }).keywords_used).toEqual(['short', 'default', 'type']);
  });

  it('keeps a word apart from the shorter word its -ing or -ed form would fold into: "string" is not "str"', () => {
    const corpus = corpusOf([
      file('src/escape.rs', { language: 'Rust', vocabulary: 'escape:6 string:3 quote:2' }),
      file('src/parse.rs', { language: 'Rust', vocabulary: 'str:40 parse:12 token:9' }),
    ]);
    expect(ranking(corpus, { query: 'string' })).toEqual(['src/escape.rs']);
  });

  it('weighs task words (fix, add, remove) lightly, unless the request has nothing else', () => {
    const corpus = corpusOf([file('src/fixer.ts', { symbols: [symbol('fixPath')] }), file('src/headers.ts', { symbols: [symbol('parseHeaders')] })]);
    expect(ranking(corpus, { query: 'fix header parsing' })[0]).toBe('src/headers.ts');
    expect(ranking(corpus, { query: 'fix' })).toEqual(['src/fixer.ts']);
  });

  describe('a file named for the request', () => {
    const user = (name: string) => symbol(name, 'function', `reads the ${name.toLowerCase()} cache and its cache keys`);
    const corpus = corpusOf([
      file('bench/llm.ts', { lines_of_code: 900, symbols: ['warmCache', 'coldCache', 'cacheStats', 'clearCache'].map(user), vocabulary: 'cache:45 profile:20 run:30' }),
      file('src/pipeline/llmProfile.ts', { lines_of_code: 400, symbols: [symbol('profileFiles'), symbol('cachedProfile')], vocabulary: 'profile:30 cache:12' }),
      file('src/cache/profileCache.ts', { lines_of_code: 90, symbols: [symbol('ProfileCache', 'class')], vocabulary: 'cache:6 entry:4' }),
      file('src/cache/lruCache.ts', { lines_of_code: 60, symbols: [symbol('LruCache', 'class')], vocabulary: 'cache:3 evict:2' }),
    ]);

    it('comes before the largest file that uses the request\'s word most', () => {
      expect(ranking(corpus, { keywords: ['cache'] }).slice(0, 2).sort()).toEqual(['src/cache/lruCache.ts', 'src/cache/profileCache.ts']);
      expect(ranking(corpus, { query: 'profile cache' })[0]).toBe('src/cache/profileCache.ts');
      // Without the lift, one word saturates in every file that uses it, and the size prior decides.
      expect(ranking(corpus, { keywords: ['cache'], params: { ...DEFAULT_PARAMS, nameMatch: 0 } })[0]).toBe('bench/llm.ts');
    });

    it('is never a test, a doc or an example the request does not ask for', () => {
      const withTest = corpusOf([
        file('source/core/options.ts', { lines_of_code: 900, symbols: [symbol('cacheOptions'), symbol('cacheableRequest')], vocabulary: 'cache:40' }),
        file('test/cache.ts', { role: 'test', lines_of_code: 700, symbols: [symbol('cacheTest')], vocabulary: 'cache:60' }),
        file('source/core/index.ts', { lines_of_code: 1200, symbols: [symbol('request')], vocabulary: 'request:60' }),
        file('source/core/errors.ts', { lines_of_code: 200, symbols: [symbol('HTTPError', 'class')], vocabulary: 'error:30' }),
      ]);
      expect(ranking(withTest, { keywords: ['cache'] })[0]).toBe('source/core/options.ts');
      expect(ranking(withTest, { keywords: ['cache', 'test'] })[0]).toBe('test/cache.ts');
      // Nor a prose file, whatever role it was given.
      const withNotes = corpusOf([...withTest.indexes[0]!.index.file_summaries, file('source/cache.md', { language: 'Markdown', file_type: 'Markdown', role: 'source', vocabulary: 'cache:60' })]);
      expect(ranking(withNotes, { keywords: ['cache'] })[0]).toBe('source/core/options.ts');
    });

    it('must hold every word of it: a name holding some of them gains nothing', () => {
      const noLift = { ...DEFAULT_PARAMS, nameMatch: 0 };
      for (const request of [{ query: 'warm cache profile stats' }, { keywords: ['cache', 'evict', 'entry'] }, { target: 'src/cache.ts', keywords: ['cache', 'entry'] }]) {
        expect(ranking(corpus, request)).toEqual(ranking(corpus, { ...request, params: noLift }));
      }
    });
  });

  describe('a request that is one name', () => {
    const corpus = corpusOf([
      file('src/core.py', { language: 'Python', lines_of_code: 2900, symbols: [symbol('Context', 'class'), symbol('invoke')], vocabulary: 'echo:30 get_current_context:12 context:80' }),
      file('src/globals.py', { language: 'Python', lines_of_code: 45, symbols: [symbol('get_current_context'), symbol('push_context')], vocabulary: 'context:9' }),
      file('src/utils.py', { language: 'Python', lines_of_code: 600, symbols: [symbol('echo'), symbol('open_file')], vocabulary: 'echo:8' }),
      file('src/termui.py', { language: 'Python', lines_of_code: 800, symbols: [symbol('echo_via_pager'), symbol('secho'), symbol('_echo')], vocabulary: 'echo:25' }),
      file('src/errors.py', { language: 'Python', lines_of_code: 300, symbols: ['ContextError', 'UsageError', 'BadParameter'].map((n) => symbol(n, 'class')), vocabulary: 'class:9 context:6' }),
    ]);

    it('finds the file that defines it before larger files that call it or define longer names', () => {
      expect(ranking(corpus, { keywords: ['echo'] })[0]).toBe('src/utils.py');
      expect(ranking(corpus, { query: 'get_current_context' })[0]).toBe('src/globals.py');
    });

    it('reads a kind word beside a name written as code as a hint, not a word to match', () => {
      expect(ranking(corpus, { query: 'Context class' })[0]).toBe('src/core.py');
      expect(ranking(corpus, { query: 'get_current_context function' })[0]).toBe('src/globals.py');
      // Two plain words are a concept, in lower or Title Case: both words are searched and no definition is lifted.
      const noLift = { ...DEFAULT_PARAMS, nameMatch: 0 };
      for (const concept of ['class context', 'Class Context', 'Type Echo']) {
        expect(ranking(corpus, { query: concept })).toEqual(ranking(corpus, { query: concept, params: noLift }));
      }
    });

    it('points nowhere when the tokenizer keeps nothing of the name', () => {
      const withX = corpusOf([file('src/vec.ts', { symbols: [symbol('x'), symbol('do')] })]);
      expect(ranking(withX, { keywords: ['x'] })).toEqual([]);
      expect(ranking(withX, { keywords: ['do'] })).toEqual([]);
    });
  });

  it('returns nothing for words no profile holds', () => {
    expect(ranking(corpusOf([file('src/a.ts', { symbols: [symbol('alpha')] })]), { query: 'zebra' })).toEqual([]);
  });

  it('reports matched keywords and the matching symbols with their lines', () => {
    const corpus = corpusOf([file('src/cache.ts', { symbols: [symbol('Cache', 'class', undefined, 3), symbol('setTtl', 'method', undefined, 10), symbol('clear', 'method', undefined, 20)] })]);
    const [ref] = search(corpus, { keywords: ['ttl', 'redis'] }).references;
    expect(ref?.matched_keywords).toEqual(['ttl']);
    expect(ref?.symbols).toEqual([{ kind: 'method', name: 'setTtl', ast_path: 'setTtl', start_line: 10, end_line: 14 }]);
    expect(ref?.score).toBe(1);
  });

  it('narrows to one kind of element with --type and lists those elements', () => {
    const corpus = corpusOf([
      file('src/cache.ts', { symbols: [symbol('Cache', 'class'), symbol('makeCache', 'function', undefined, 30)] }),
      file('src/types.ts', { symbols: [symbol('CacheOptions', 'interface')] }),
    ]);
    const refs = search(corpus, { query: 'cache', type: 'interface' }).references;
    expect(refs.map((r) => r.file_path)).toEqual(['src/types.ts']);
    expect(refs[0]?.symbols.map((s) => s.name)).toEqual(['CacheOptions']);
    expect(search(corpus, { query: 'cache', type: 'file' }).references.every((r) => r.symbols.length === 0)).toBe(true);
  });
});

describe('target mode', () => {
  const files = [
    file('src/cache/lruCache.ts', { symbols: [symbol('LruCache', 'class')] }),
    file('src/cache/clock.ts', { symbols: [symbol('now')] }),
    file('lib/ttl.py', { language: 'Python', file_type: 'Python source', symbols: [symbol('ttl_cache')] }),
    file('src/log.ts', { symbols: [symbol('log')] }),
  ];

  it('ranks files named like the target first, those in the target\'s language before the others', () => {
    const corpus = corpusOf([...files, file('lib/lru_cache.py', { language: 'Python', file_type: 'Python source' })]);
    const names = ranking(corpus, { target: 'src/lruCache.ts' });
    expect(names.slice(0, 2)).toEqual(['src/cache/lruCache.ts', 'lib/lru_cache.py']);
    expect(names).not.toContain('src/log.ts');
    expect(ranking(corpus, { target: 'src/ttlCache.ts', keywords: ['ttl'] })[0]).toBe('lib/ttl.py');
  });

  it('counts JavaScript, TypeScript and TSX as one language for a target in any of them, and C with C++', () => {
    const twins = (paths: Array<[string, string]>) =>
      corpusOf(paths.map(([filePath, language]) => file(filePath, { language, file_type: `${language} source`, symbols: [symbol('expireEntries')], key_concepts: ['expire', 'entries'] })));
    const web = twins([['lib/expire.py', 'Python'], ['lib/expire.ts', 'TypeScript'], ['lib/expire.js', 'JavaScript']]);
    // Equal words: the path breaks ties, so without the family the Python file would come first.
    expect(ranking(web, { target: 'app/Panel.tsx', keywords: ['expire', 'entries'] }).slice(0, 2).sort()).toEqual(['lib/expire.js', 'lib/expire.ts']);
    expect(ranking(web, { target: 'app/panel.js', keywords: ['expire', 'entries'] }).slice(0, 2).sort()).toEqual(['lib/expire.js', 'lib/expire.ts']);
    expect(ranking(web, { target: 'app/panel.py', keywords: ['expire', 'entries'] })[0]).toBe('lib/expire.py');
    const native = twins([['src/expire.go', 'Go'], ['src/expire.h', 'C']]);
    expect(ranking(native, { target: 'src/cache.cpp', keywords: ['expire', 'entries'] })[0]).toBe('src/expire.h');
  });

  it('keeps the tests beside a test target, which a source target ranks below the code', () => {
    const corpus = corpusOf([
      file('src/ranking.ts', { symbols: [symbol('rankScore')], vocabulary: 'rank:4 score:2' }),
      file('tests/scores.test.ts', { role: 'test', symbols: [symbol('rankScore')], vocabulary: 'rank:6 score:3' }),
    ]);
    expect(ranking(corpus, { target: 'tests/lookup.test.ts', keywords: ['rank', 'score'] })[0]).toBe('tests/scores.test.ts');
    expect(ranking(corpus, { target: 'tests\\lookup.test.ts', keywords: ['rank', 'score'] })[0]).toBe('tests/scores.test.ts');
    expect(ranking(corpus, { target: 'src/lookup.ts', keywords: ['rank', 'score'] })[0]).toBe('src/ranking.ts');
    // An absolute path's folders above the repository (`/srv/test/…`) do not make it a test; its file name does.
    expect(ranking(corpus, { target: '/srv/test/app/src/lookup.ts', keywords: ['rank', 'score'] })[0]).toBe('src/ranking.ts');
    expect(ranking(corpus, { target: 'C:\\proj\\src\\lookup.test.ts', keywords: ['rank', 'score'] })[0]).toBe('tests/scores.test.ts');
  });

  it('returns the target\'s relationships and lifts the related files', () => {
    const relationship: FileRelationship = {
      repo_file_path: 'src/log.ts',
      target_file_path: 'src/ttlCache.ts',
      relationship_type: 'reference',
      confidence_score: 0.9,
      helpful_aspects: ['logging'],
      potential_contributions: [],
      usage_suggestions: '',
    };
    const response = search(corpusOf(files, [relationship]), { target: 'src/ttlCache.ts', keywords: ['ttl'] });
    expect(response.relationships).toEqual([{ ...relationship, repo_name: 'demo' }]);
    expect(response.references.map((r) => r.file_path)).toContain('src/log.ts');
  });
});

describe('words from code', () => {
  it.each([
    ['URLs', ['urls']],
    ['isURLSameOrigin', ['is', 'url', 'same', 'origin']],
    ['HTTPResponse', ['http', 'response']],
    ['isIPv4', ['is', 'ipv4']],
    ['expandIPv6Address', ['expand', 'ipv6', 'address']],
    ['sha256sum', ['sha256', 'sum']],
    ['utf8ToBytes', ['utf8', 'to', 'bytes']],
    ['toBase64', ['to', 'base64']],
    ['Int32Array', ['int32', 'array']],
    ['HTTP2Server', ['http2', 'server']],
    ['x86_64', ['x86', '64']],
  ])('splits %s into %j', (identifier, parts) => {
    expect(splitIdentifier(identifier)).toEqual(parts);
  });

  it.each([
    ['aliases', 'alias'],
    ['alias', 'alias'],
    ['statuses', 'status'],
    ['matches', 'match'],
    ['added', 'add'],
    ['stopped', 'stop'],
    ['caching', 'cach'],
  ])('stems %s to %s when choosing concepts', (word, stemmed) => {
    expect(stem(word)).toBe(stemmed);
  });

  it.each([
    ['aliases', 'alias'],
    ['entries', 'entry'],
    ['caches', 'cach'],
    ['cache', 'cach'],
    ['string', 'string'],
    ['setting', 'setting'],
    ['padding', 'padding'],
    ['matched', 'matched'],
  ])('stems %s to %s when searching, folding plurals and a final e only', (word, stemmed) => {
    expect(searchStem(word)).toBe(stemmed);
  });

  it('names the source file a test is about', () => {
    expect(testedStems('flag_mutex_test.go')).toEqual(['flag_mutex']);
    expect(testedStems('test/specs/helpers/isAbsoluteURL.spec.js')).toEqual(['isabsoluteurl']);
    expect(testedStems('__tests__/context/cookies.js')).toEqual(['cookies', 'context']);
  });
});

describe('search arguments', () => {
  it('refuses a max_results below one instead of slicing from the end', () => {
    const corpus = new SearchCorpus([]);
    expect(() => search(corpus, { query: 'cache', maxResults: -1 })).toThrow('maxResults must be a whole number of at least 1, not -1');
    expect(() => search(corpus, { query: 'cache', maxResults: 0 })).toThrow(RangeError);
    expect(search(corpus, { query: 'cache', maxResults: 3 }).references).toEqual([]);
  });
});

describe('which profiles are searched', () => {
  const files = [
    file('src/limiter.ts', { status: 'failed', reason: 'llm_error: 429', symbols: [symbol('TokenBucket', 'class')] }),
    file('src/limiter.bin.ts', { status: 'skipped', reason: 'binary', symbols: [symbol('TokenBucket', 'class')] }),
  ];

  it.each(['bm25f', 'deepcode'] as const)('finds a file whose model call failed by its static profile, never a skipped one (%s)', (scorer) => {
    expect(ranking(corpusOf(files), { query: 'token bucket', scorer })).toEqual(['src/limiter.ts']);
  });
});

describe('the deepcode scorer', () => {
  it('orders files of equal score by their paths\' code units, the same under every locale', () => {
    // localeCompare would put `src/apple.ts` first under en_US and `src/Zebra.ts` first under C.
    const files = ['src/apple.ts', 'src/Zebra.ts'].map((p) => file(p, { symbols: [symbol('TokenBucket', 'class')] }));
    expect(ranking(corpusOf(files), { query: 'token bucket', scorer: 'deepcode' })).toEqual(['src/Zebra.ts', 'src/apple.ts']);
  });
});
