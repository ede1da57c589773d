import { describe, expect, it } from 'vitest';
import { inShard, parseShard, shardFileName } from '../../src/pipeline/shard.js';
import { UsageError } from '../../src/shared/errors.js';

const paths = Array.from({ length: 400 }, (_, i) => `src/module${i}/file${i % 7}.ts`);

describe('shards', () => {
  it.each([
    ['1/4', { index: 1, count: 4 }],
    [' 3 / 3 ', { index: 3, count: 3 }],
  ])('reads %j', (text, shard) => {
    expect(parseShard(text)).toEqual(shard);
  });

  it.each(['0/4', '5/4', '2', 'a/b', '1/0', '-1/2'])('refuses %j as a usage error', (text) => {
    expect(() => parseShard(text)).toThrow(UsageError);
  });

  it('puts every file in exactly one shard, in roughly even parts', () => {
    const shards = [1, 2, 3, 4].map((index) => paths.filter((p) => inShard(p, { index, count: 4 })));
    expect(shards.flat().sort()).toEqual([...paths].sort());
    for (const part of shards) expect(part.length).toBeGreaterThan(60);
  });

  it('keeps a file in its shard whatever other files come and go', () => {
    const shard = { index: 2, count: 4 };
    const before = paths.filter((p) => inShard(p, shard));
    const after = [...paths.slice(100), 'src/new.ts', 'lib/other.ts'].filter((p) => inShard(p, shard));
    expect(after.filter((p) => paths.includes(p))).toEqual(before.filter((p) => paths.slice(100).includes(p)));
  });

  it('names a partial index beside the full one', () => {
    expect(shardFileName('polyglot_index.json', { index: 2, count: 4 })).toBe('polyglot_index.shard-2-of-4.json');
  });
});
