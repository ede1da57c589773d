import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomicSync } from '../../src/shared/atomicFile.js';
import { makeTempDir } from '../support/tempRepo.js';

describe('writeFileAtomicSync', () => {
  it('writes pieces of every size, gathered or not, in order, and leaves no temp file', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'sub', 'pack.bin');
    const pieces = [
      ...Array.from({ length: 5000 }, (_, i) => randomBytes(i % 700)),
      randomBytes(3 << 20),
      new Uint8Array(0),
      ...Array.from({ length: 50 }, () => randomBytes(40_000)),
      randomBytes(1 << 20),
    ];
    writeFileAtomicSync(file, pieces);
    expect(readFileSync(file).equals(Buffer.concat(pieces))).toBe(true);
    expect(readdirSync(path.dirname(file))).toEqual(['pack.bin']);
  });
});
