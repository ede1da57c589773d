import { describe, expect, it } from 'vitest';
import { prefilterChunkSize } from '../../src/pipeline/prefilter.js';

describe('the pre-filter', () => {
  it.each([
    [100, 20],
    [1_000, 260],
    [4_096, 400],
    [10, 1],
  ])('asks about as many files at once as an answer of %i tokens can select (%i), at most 400', (maxTokens, expected) => {
    expect(prefilterChunkSize(maxTokens)).toBe(expected);
  });
});
