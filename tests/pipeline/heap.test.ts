import v8 from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { preferCompactHeap } from '../../src/pipeline/heap.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the heap policy of an indexing process', () => {
  it('asks V8 to grow the heap by at most half again what is live, each time a run starts', () => {
    const setFlags = vi.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
    preferCompactHeap();
    preferCompactHeap();
    expect(setFlags.mock.calls).toEqual([['--heap-growing-percent=50'], ['--heap-growing-percent=50']]);
  });
});
