import { describe, expect, it } from 'vitest';
import { formatMarkdown } from '../../src/search/format.js';
import type { Reference, SearchResponse } from '../../src/search/types.js';

const reference = (n: number, overrides: Partial<Reference> = {}): Reference => ({
  repo_name: 'demo',
  file_path: `src/file${n}.ts`,
  score: 1 / (n + 1),
  file_type: 'TypeScript source',
  main_functions: [`handle${n}`],
  key_concepts: ['retry'],
  dependencies: ['./util'],
  summary: 'Retries a request with backoff.',
  lines_of_code: 10,
  role: 'source',
  language: 'TypeScript',
  symbols: [],
  matched_keywords: ['retry'],
  ...overrides,
});

const answer = (references: Reference[], notice?: string): SearchResponse => ({
  target_file: '',
  keywords_used: ['retry'],
  scorer: 'bm25f',
  references,
  relationships: [],
  ...(notice ? { notice } : {}),
});

describe('the markdown answer', () => {
  it('shows every reference the answer holds, not only the first eight', () => {
    const markdown = formatMarkdown(answer(Array.from({ length: 12 }, (_, i) => reference(i))));
    expect(markdown).toContain('### 12. src/file11.ts');
  });

  it('cuts a long summary once, with one ellipsis, and leaves a short one as it is', () => {
    const long = `${'word '.repeat(70)}and more…`;
    const markdown = formatMarkdown(answer([reference(0, { summary: long }), reference(1)]));
    const summaries = markdown.split('\n').filter((line) => line.startsWith('**Summary**: '));
    expect(summaries[0]).toMatch(/word…$/);
    expect(summaries[0]?.length).toBeLessThanOrEqual('**Summary**: '.length + 301);
    expect(summaries[1]).toBe('**Summary**: Retries a request with backoff.');
  });

  it('never ends a cut summary in two ellipses, nor in half an emoji', () => {
    const cutAfterDots = formatMarkdown(answer([reference(0, { summary: `${'a'.repeat(297)}...and then more` })]));
    expect(cutAfterDots).toContain(`**Summary**: ${'a'.repeat(297)}…\n`);
    const cutInEmoji = formatMarkdown(answer([reference(0, { summary: `${'a'.repeat(299)}😀 and more` })]));
    expect(cutInEmoji).toContain(`**Summary**: ${'a'.repeat(299)}…\n`);
  });

  it('writes a dash for a list with nothing in it', () => {
    const markdown = formatMarkdown(answer([reference(0, { main_functions: [], dependencies: [] })]));
    expect(markdown).toContain('**Main Functions**: -\n');
    expect(markdown).toContain('**Dependencies**: -\n');
  });

  it('with nothing found, says why and adds no empty suggestions or next actions', () => {
    const markdown = formatMarkdown(answer([], 'no results: no indexed file matches kubernetes'));
    expect(markdown).toContain('> no results: no indexed file matches kubernetes');
    expect(markdown).not.toContain('Implementation Suggestions');
    expect(markdown).not.toContain('Next Actions');
  });
});
