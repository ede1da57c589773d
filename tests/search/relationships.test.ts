import { describe, expect, it } from 'vitest';
import { normalizeTargetPath, targetPathsMatch } from '../../src/search/relationships.js';

describe("matching a target to a relationship's path, as DeepCode normalises them", () => {
  it.each([
    ['/src/cache.ts/', 'cache.ts'],
    ['src/core/cache.ts', 'core/cache.ts'],
    ['./lib/x.py', 'lib/x.py'],
    ['lib\\win\\x.py', 'win/x.py'],
  ])('normalises %s to %s (one common prefix stripped)', (input, expected) => {
    expect(normalizeTargetPath(input)).toBe(expected);
  });

  it.each([
    ['cache.ts', 'src/cache.ts', true],
    ['src/cache.ts', 'lib/cache.ts', true],
    ['cache.ts', 'src/store.ts', false],
    ['cache.ts', '', false],
    ['', 'src/cache.ts', false],
  ])('%s ~ %s: %s', (target, relationshipTarget, expected) => {
    expect(targetPathsMatch(target, relationshipTarget)).toBe(expected);
  });
});
