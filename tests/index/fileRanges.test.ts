import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FragmentFile, RangeReader } from '../../src/index/fileRanges.js';
import { makeTempDir } from '../support/tempRepo.js';

describe('a fragment file', () => {
  it('reads back every text appended, whether still buffered or written, and is gone once removed', async () => {
    const file = path.join(makeTempDir(), '.index.json.1.ab.fragment');
    const fragment = await FragmentFile.create(file);
    // Past a megabyte in all, some of it not ASCII, one piece larger than the buffer.
    const pieces = Array.from({ length: 300 }, (_, i) => `entry ${i} ${'x'.repeat(i * 37)} ñ 日本`);
    pieces.push('y'.repeat(3 << 20));
    const ranges = [];
    for (const piece of pieces) ranges.push(await fragment.append(piece));
    const back = [];
    for (const [i, { start, end }] of ranges.entries()) back.push((await fragment.read(start, end)).toString('utf8') === pieces[i]);
    expect(back.every(Boolean)).toBe(true);
    await fragment.remove();
    expect(existsSync(file)).toBe(false);
  });
});

describe('reading ranges of a file', () => {
  it('answers any range, in any order, and refuses one past the end', async () => {
    const file = path.join(makeTempDir(), 'data.bin');
    const data = Buffer.from(Array.from({ length: 3 << 20 }, (_, i) => i % 251));
    writeFileSync(file, data);
    const reader = await RangeReader.open(file);
    for (const [start, end] of [[0, 10], [5, 2 << 20], [(3 << 20) - 7, 3 << 20], [100, 200], [0, 3 << 20]] as const) {
      expect((await reader.read(start, end)).equals(data.subarray(start, end))).toBe(true);
    }
    await expect(reader.read((3 << 20) - 1, (3 << 20) + 1)).rejects.toThrow(RangeError);
    await reader.close();
  });
});
