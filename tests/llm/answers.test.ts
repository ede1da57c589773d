import { describe, expect, it } from 'vitest';
import { ProfileAnswerFormat } from '../../src/llm/answers.js';
import { loadPromptSet, renderPrompt } from '../../src/llm/prompts.js';

const types = ['direct_match', 'partial_match', 'reference', 'utility'];
const relationship = (type: string, confidence: number) => ({
  target_file_path: 'src/cache.ts', relationship_type: type, confidence_score: confidence,
  helpful_aspects: ['ttl'], potential_contributions: ['eviction'], usage_suggestions: 'reuse the clock',
});

describe('checking a model\'s profile answer', () => {
  it('keeps valid relationships and rejects unknown types and low confidence one by one', () => {
    const answer = new ProfileAnswerFormat(types, 0.3).parse(
      { file_type: 'module', summary: 'Caches.', key_concepts: ['cache', 'cache'], relationships: [relationship('direct_match', 0.9), relationship('similar', 0.9), relationship('utility', 0.2)] },
    );
    expect(answer).toMatchObject({ key_concepts: ['cache'], rejected_relationships: 2 });
    expect(typeof answer !== 'string' && answer.relationships.map((r) => r.relationship_type)).toEqual(['direct_match']);
  });

  it('rejects an answer without a summary, naming the field', () => {
    expect(new ProfileAnswerFormat(null, 0.3).parse({ file_type: 'module', key_concepts: [] })).toMatch(/^summary: /);
  });

  it('asks for relationships only when there is a target structure', () => {
    expect(JSON.stringify(new ProfileAnswerFormat(null, 0.3).schema)).not.toContain('relationships');
    expect(new ProfileAnswerFormat(types, 0.3).schema).toMatchObject({
      required: ['files'],
      additionalProperties: false,
      properties: { files: { type: 'array', items: { required: ['path', 'file_type', 'symbols', 'summary', 'key_concepts', 'relationships'], additionalProperties: false } } },
    });
  });

  it('keeps one line per described symbol, bounded in count and length', () => {
    const long = 'x'.repeat(300);
    const answer = new ProfileAnswerFormat(null, 0.3).parse({
      file_type: 'module', summary: 'Caches.', key_concepts: [],
      symbols: [{ name: 'Cache-get', description: 'Reads an entry.\nSecond line.' }, { name: 'put', description: long }, { name: 'bad' }, ...Array.from({ length: 20 }, (_, i) => ({ name: `f${i}`, description: 'd' }))],
    });
    if (typeof answer === 'string') throw new Error(answer);
    expect(answer.descriptions[0]).toEqual({ name: 'Cache-get', description: 'Reads an entry.' });
    expect(answer.descriptions[1]?.description.length).toBe(160);
    expect(answer.descriptions.length).toBeLessThanOrEqual(12);
  });
});

describe('splitting a packed answer by path', () => {
  const format = new ProfileAnswerFormat(null, 0.3);
  const entry = (path: string) => ({ path, file_type: 'module', symbols: [], summary: `About ${path}.`, key_concepts: [] });

  it('finds each asked path, dropping paths not asked for and paths answered twice', () => {
    const entries = format.entries({ files: [entry('./a.ts'), entry('b.ts'), entry('b.ts'), entry('elsewhere.ts')] }, ['a.ts', 'b.ts', 'c.ts']);
    if (typeof entries === 'string') throw new Error(entries);
    expect([...entries.keys()]).toEqual(['a.ts']);
  });

  it('calls an answer without a files array unusable as a whole', () => {
    expect(format.entries({ file_type: 'module' }, ['a.ts'])).toMatch(/files array/);
    expect(format.entries([entry('a.ts')], ['a.ts'])).toMatch(/files array/);
  });
});

describe('prompt templates', () => {
  it('load with versions and refuse a missing value', () => {
    const prompts = loadPromptSet();
    expect(prompts.version).toMatch(/^profile@\d+\+file@\d+\+relationships@\d+\+focus@\d+$/);
    expect(() => renderPrompt(prompts.focus, {})).toThrow('no value for {{focus}}');
    expect(() => renderPrompt(prompts.focus, { focus: 'x', extra: 'y' })).toThrow('{{extra}} is not in the template');
  });
});
