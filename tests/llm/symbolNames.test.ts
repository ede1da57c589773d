import { describe, expect, it } from 'vitest';
import { normaliseSymbolName, SymbolMatcher } from '../../src/llm/symbolNames.js';

const symbols = [
  { name: 'LruCache', ast_path: 'LruCache' },
  { name: 'get', ast_path: 'LruCache-get' },
  { name: 'set', ast_path: 'LruCache-set' },
  { name: 'get', ast_path: 'TtlCache-get' },
  { name: 'parse_config', ast_path: 'parse_config' },
];

describe('matching symbol names as a model writes them', () => {
  it.each([
    ['LruCache::get()', 'lrucache-get'],
    ['`LruCache.get`', 'lrucache-get'],
    ['Lru Cache # get', 'lru-cache-get'],
    ['a->b', 'a-b'],
    ['A-b', 'a-b'],
  ])('normalises %s to %s', (raw, key) => {
    expect(normaliseSymbolName(raw)).toBe(key);
  });

  const matcher = new SymbolMatcher(symbols);
  it.each([
    ['LruCache-get', ['LruCache-get']],
    ['LruCache.get', ['LruCache-get']],
    ['LruCache::get', ['LruCache-get']],
    ['lrucache.GET()', ['LruCache-get']],
    ['cache.LruCache.set', ['LruCache-set']],
    ['PARSE_CONFIG', ['parse_config']],
    ['get', ['LruCache-get', 'TtlCache-get']],
    ['set', ['LruCache-set']],
    ['OtherClass.get', []],
    ['render', []],
    ['', []],
  ])('matches %s to %j', (raw, paths) => {
    expect(matcher.match(raw)).toEqual(paths);
  });
});
