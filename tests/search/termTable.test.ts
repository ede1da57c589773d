import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DamagedTermsError, TERM_BLOCK, termBlocksOf, termTableFromBlocks, termTableOf, type TermTable } from '../../src/search/termTable.js';

/** A table of sorted distinct terms, term i held by i + 1 documents with two postings values each. */
function builtTable(terms: readonly string[]): TermTable {
  const sorted = [...new Set(terms)].sort();
  return termTableOf(sorted, Int32Array.from(sorted, (_, i) => i + 1), Int32Array.from({ length: sorted.length + 1 }, (_, i) => 2 * i));
}

/** The same table as a pack stores it, read block by block; `reads` counts the blocks read. */
function packedTable(table: TermTable, damage: (blocks: Uint8Array) => void = () => {}) {
  const blocks = termBlocksOf(table.encode());
  damage(blocks.blocks);
  const reads: number[] = [];
  const read = (from: number, length: number) => {
    reads.push(from);
    return blocks.blocks.subarray(from, from + length);
  };
  return { table: termTableFromBlocks(table.length, { bytes: blocks.keyBytes, starts: blocks.keyStarts }, blocks.offsets, read, 2 * table.length), reads };
}

const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/);

describe('a term list stored in blocks', () => {
  it('finds every term with its document count and postings, and no term it does not hold', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 400 }), fc.array(word, { maxLength: 20 }), (terms, others) => {
        const built = builtTable(terms);
        const { table } = packedTable(built);
        for (const term of [...terms, ...others]) {
          const id = built.find(term);
          expect(table.find(term)).toBe(id);
          if (id >= 0) {
            expect(table.df(id)).toBe(built.df(id));
            expect(table.postingRange(id)).toEqual(built.postingRange(id));
          }
        }
        expect(table.encode()).toEqual(built.encode());
      }),
      { numRuns: 60 },
    );
  });

  it('reads only the block that holds a looked-up term', () => {
    const built = builtTable(Array.from({ length: 10 * TERM_BLOCK }, (_, i) => `term${String(i).padStart(4, '0')}`));
    const { table, reads } = packedTable(built);
    expect(table.find('term0321')).toBe(321);
    expect(table.find('term0322')).toBe(322);
    expect(reads).toHaveLength(1);
  });

  it('holds no term in a damaged block, without an error, and still finds the terms of the others', () => {
    const built = builtTable(Array.from({ length: 3 * TERM_BLOCK }, (_, i) => `w${String(i).padStart(3, '0')}`));
    // The second block's count is wrong.
    const blocks = termBlocksOf(built.encode());
    const { table } = packedTable(built, (bytes) => new DataView(bytes.buffer, bytes.byteOffset).setInt32(blocks.offsets[1] as number, 7, true));
    expect(table.find(`w${String(TERM_BLOCK + 1).padStart(3, '0')}`)).toBe(-1);
    expect(table.df(TERM_BLOCK + 1)).toBe(0);
    expect(table.postingRange(TERM_BLOCK + 1)).toEqual([0, 0]);
    expect(table.find('w001')).toBe(1);
    expect(table.find(`w${String(2 * TERM_BLOCK).padStart(3, '0')}`)).toBe(2 * TERM_BLOCK);
  });

  it('cannot be copied whole when a block is damaged, or does not take up the postings where the one before left them', () => {
    const built = builtTable(Array.from({ length: 3 * TERM_BLOCK }, (_, i) => `w${String(i).padStart(3, '0')}`));
    const blocks = termBlocksOf(built.encode());
    const at = (block: number, word: number) => (blocks.offsets[block] as number) + 4 * word;
    const unreadable = packedTable(built, (bytes) => new DataView(bytes.buffer, bytes.byteOffset).setInt32(at(1, 0), 7, true)).table;
    expect(() => unreadable.encode()).toThrow(DamagedTermsError);
    // The second block's first posting start, moved back yet still in order within its block.
    const firstPostingStart = 2 * TERM_BLOCK + 2;
    const overlapping = packedTable(built, (bytes) => new DataView(bytes.buffer, bytes.byteOffset).setInt32(at(1, firstPostingStart), 0, true)).table;
    expect(overlapping.postingRange(TERM_BLOCK)).toEqual([0, 2 * TERM_BLOCK + 2]);
    expect(() => overlapping.encode()).toThrow(DamagedTermsError);
  });
});
