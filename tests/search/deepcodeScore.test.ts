import { describe, expect, it } from 'vitest';
import { deepcodeScore, isRelevant, keywordMatches, namesMatch, searchableTokens, type DeepCodeFields } from '../../src/search/deepcodeScore.js';

const ref = (file_path: string, fields: Partial<DeepCodeFields> = {}): DeepCodeFields => ({
  file_path,
  file_type: 'TypeScript source',
  main_functions: [],
  key_concepts: [],
  summary: '',
  ...fields,
});

describe('keyword matching on identifier tokens', () => {
  it.each([
    ['ttl', { main_functions: ['Cache.setTtl'] }, true],
    ['ttl', { key_concepts: ['TTL management'] }, true],
    ['ttl', { summary: 'Waits for promises to settle.' }, false],
    ['ttl', { main_functions: ['settleAll', 'throttle'] }, false],
    ['cache', { summary: 'Caching layer for responses' }, true],
    ['cache invalidation', { key_concepts: ['cache', 'invalidation'] }, true],
    ['cache invalidation', { key_concepts: ['cache'] }, false],
    ['parse', { main_functions: ['parseHTTPResponse'] }, true],
    ['http', { main_functions: ['parseHTTPResponse'] }, true],
    ['rate limit', { main_functions: ['RateLimiter'] }, false],
    ['rate limiter', { main_functions: ['RateLimiter'] }, true],
  ])('"%s" against %j matches: %s', (keyword, fields, expected) => {
    expect(keywordMatches(keyword, searchableTokens(ref('x.ts', fields)))).toBe(expected);
  });
});

describe('file name similarity', () => {
  it.each([
    ['cache.ts', 'src/cache_manager.py', true],
    ['src/userCache.ts', 'lib/cache.ts', true],
    ['cache.ts', 'src/ache.ts', false],
    ['cache.ts', 'src/cachet.ts', false],
    ['a.ts', 'data.ts', false],
    ['', 'anything.ts', false],
  ])('%s ~ %s is %s', (target, candidate, expected) => {
    expect(namesMatch(target, candidate)).toBe(expected);
  });
});

describe('DeepCode score arithmetic (0.3 name + 0.2 extension + 0.5 keyword coverage)', () => {
  const cacheFile = ref('src/cache.ts', { main_functions: ['Cache.get', 'Cache.setTtl'], key_concepts: ['eviction'] });
  it.each([
    { name: 'name, extension and every keyword', target: 'cache.ts', keywords: ['ttl', 'eviction'], score: 1.0 },
    { name: 'name and extension, half the keywords', target: 'lib/cache.ts', keywords: ['ttl', 'redis'], score: 0.75 },
    { name: 'extension and one keyword of two', target: 'store.ts', keywords: ['ttl', 'redis'], score: 0.45 },
    { name: 'name match across extensions', target: 'cache.py', keywords: [], score: 0.3 },
    { name: 'keywords only', target: '', keywords: ['eviction'], score: 0.5 },
    { name: 'extension alone', target: 'store.ts', keywords: ['redis'], score: 0.2 },
  ])('$name scores $score', ({ target, keywords, score }) => {
    expect(deepcodeScore(target, cacheFile, keywords).score).toBeCloseTo(score, 10);
  });

  it('does not count an extension match alone as a result', () => {
    expect(isRelevant(deepcodeScore('store.ts', cacheFile, ['redis']))).toBe(false);
    expect(isRelevant(deepcodeScore('store.ts', cacheFile, ['ttl']))).toBe(true);
  });

  it('does not let "ttl" find a file about settling promises', () => {
    const settle = ref('src/promises.ts', { main_functions: ['settle'], summary: 'Settles promises.' });
    const result = deepcodeScore('', settle, ['ttl']);
    expect(result.score).toBe(0);
    expect(isRelevant(result)).toBe(false);
  });
});
