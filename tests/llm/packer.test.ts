import { describe, expect, it } from 'vitest';
import { groupIntoPacks, Packer } from '../../src/llm/packer.js';

const limits = { tokenBudget: 100, answerBudget: 1000, maxItems: 3 };
const size = (tokens: number) => ({ tokens, answerTokens: 10 });

describe('grouping items into packs', () => {
  it('fills each pack up to the token budget and the item count, in order, and never leaves an item out', () => {
    expect(groupIntoPacks([40, 40, 40, 10, 10, 10, 10, 500], size, limits)).toEqual([[40, 40], [40, 10, 10], [10, 10], [500]]);
  });

  it('keeps the answer under its budget', () => {
    expect(groupIntoPacks([1, 1, 1], () => ({ tokens: 1, answerTokens: 600 }), limits)).toEqual([[1], [1], [1]]);
  });
});

describe('the packer', () => {
  const packer = (capacity: number, sent: number[][], idleMs = 20) =>
    new Packer<number>({ ...limits, idleMs, maxLingerMs: 200, capacity: () => capacity, sizeOf: size, send: async (pack) => { sent.push(pack); await new Promise((r) => setTimeout(r, 30)); } });

  it('sends a full pack at once and a partial one once no item has joined for idleMs', async () => {
    const sent: number[][] = [];
    const p = packer(2, sent);
    for (const n of [1, 2, 3, 4]) p.add(n);
    expect(sent).toEqual([[1, 2, 3]]);
    await new Promise((r) => setTimeout(r, 40));
    expect(sent).toEqual([[1, 2, 3], [4]]);
  });

  it('holds packs back while every slot is busy, then sends what queued meanwhile together', async () => {
    const sent: number[][] = [];
    const p = packer(1, sent, 5);
    p.add(1);
    await new Promise((r) => setTimeout(r, 15));
    p.add(2);
    p.add(3);
    await new Promise((r) => setTimeout(r, 80));
    expect(sent).toEqual([[1], [2, 3]]);
  });
});
