import { describe, expect, it } from 'vitest';
import type { CodeSymbol } from '../../src/index/types.js';
import type { ProfileAnswer } from '../../src/llm/answers.js';
import { mergeChunkAnswers, splitAtSymbols } from '../../src/llm/chunks.js';

const fn = (name: string, start: number, end: number, ast_path = name): CodeSymbol => ({ kind: 'function', name, ast_path, start_line: start, end_line: end });

/** Ten functions of ten lines each, ~30 characters a line. */
const lines = Array.from({ length: 100 }, (_, i) => (i % 10 === 0 ? `function f${i / 10}() {   // line ${i + 1}` : `  const v${i} = compute(${i}); // pad`));
const content = lines.join('\n');
const symbols = Array.from({ length: 10 }, (_, i) => fn(`f${i}`, i * 10 + 1, i * 10 + 10)).concat(fn('inner', 3, 4, 'f0-inner'));

describe('splitting a long file at symbol boundaries', () => {
  it('cuts only where a top-level symbol starts, each chunk within the limit, each with its own symbols', () => {
    const chunks = splitAtSymbols(content, symbols, 900, 10);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(900);
      expect((c.startLine - 1) % 10).toBe(0);
      for (const s of c.symbols) expect(s.start_line).toBeGreaterThanOrEqual(c.startLine);
    }
    // Every symbol lands in exactly one chunk.
    expect(chunks.flatMap((c) => c.symbols.map((s) => s.name)).sort()).toEqual(symbols.map((s) => s.name).sort());
    expect(chunks[chunks.length - 1]?.endLine).toBe(100);
  });

  it('stops at max_chunks_per_file', () => {
    const chunks = splitAtSymbols(content, symbols, 400, 2);
    expect(chunks).toHaveLength(2);
    expect(chunks.every((c) => c.count === 2)).toBe(true);
    expect(chunks[1]?.endLine).toBeLessThan(100);
  });

  it('cuts a symbol longer than the limit at a line boundary', () => {
    const chunks = splitAtSymbols(content, [fn('all', 1, 100)], 500, 50);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(500);
  });
});

describe('merging the answers of a file\'s chunks', () => {
  const answer = (summary: string, concepts: string[], target: string, confidence: number): ProfileAnswer => ({
    file_type: `module ${summary}`, summary, key_concepts: concepts,
    descriptions: [{ name: `fn_${summary}`, description: 'd' }],
    relationships: [{ target_file_path: target, relationship_type: 'utility', confidence_score: confidence, helpful_aspects: [], potential_contributions: [], usage_suggestions: '' }],
    rejected_relationships: 1,
  });

  it('joins summaries, de-duplicates concepts and relationships (keeping the most confident), and keeps every description', () => {
    const merged = mergeChunkAnswers([answer('First.', ['cache', 'ttl'], 'a.ts', 0.5), answer('Second.', ['ttl', 'lru'], 'a.ts', 0.8)]);
    expect(merged.file_type).toBe('module First.');
    expect(merged.summary).toBe('First. Second.');
    expect(merged.key_concepts).toEqual(['cache', 'ttl', 'lru']);
    expect(merged.relationships).toHaveLength(1);
    expect(merged.relationships[0]?.confidence_score).toBe(0.8);
    expect(merged.descriptions.map((d) => d.name)).toEqual(['fn_First.', 'fn_Second.']);
    expect(merged.rejected_relationships).toBe(2);
  });
});
