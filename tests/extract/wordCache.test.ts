import { describe, expect, it } from 'vitest';
import { WordCache } from '../../src/extract/wordCache.js';
import { splitIdentifier, stem } from '../../src/shared/text.js';

describe('the word cache of an extraction thread', () => {
  it('answers what splitting and stemming answer, keeps a word in use across generations, and stays bounded', () => {
    const cache = new WordCache(100);
    const hot = 'parseIPv4Address';
    for (let i = 0; i < 1000; i++) {
      expect(cache.split(`makeCacheEntry${i}`)).toEqual(splitIdentifier(`makeCacheEntry${i}`));
      expect(cache.split(hot)).toBe(cache.split(hot));
      expect(cache.stem(`caching${i}`)).toBe(stem(`caching${i}`));
    }
    expect(cache.split(hot)).toEqual(splitIdentifier(hot));
    const internals = cache as unknown as { splits: { current: Map<string, string[]>; older: Map<string, string[]> } };
    expect(internals.splits.current.size + internals.splits.older.size).toBeLessThanOrEqual(100);
  });
});
