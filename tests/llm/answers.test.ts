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
    expect(JSON.stringify(new ProfileAnswerFormat(null, 0.3).schema)).not.toContain('related');
    expect(new ProfileAnswerFormat(types, 0.3).schema).toMatchObject({
      required: ['files'],
      additionalProperties: false,
      properties: { files: { type: 'array', items: { required: ['file', 'type', 'symbols', 'summary', 'concepts', 'related'], additionalProperties: false } } },
    });
  });

  it('asks for the short shape: a file by number, a symbol as one "name: line" string, short relationship keys', () => {
    const items = (new ProfileAnswerFormat(types, 0.3).schema as { properties: { files: { items: { properties: Record<string, any> } } } }).properties.files.items.properties;
    expect(items.file).toMatchObject({ type: 'integer', minimum: 1 });
    expect(items.symbols.items).toMatchObject({ type: 'string' });
    expect(items.related.items.required).toEqual(['to', 'type', 'confidence', 'aspects', 'contributions', 'usage']);
  });

  it('reads the short shape into every field of the profile and its relationships', () => {
    const answer = new ProfileAnswerFormat(types, 0.3).parse({
      file: 1, type: 'TypeScript module - cache', symbols: ['Cache-get: Reads an entry.', 'Cache::put - Stores one.', 'no separator here'], summary: 'Caches.', concepts: ['ttl'],
      related: [{ to: 'src/cache.ts', type: 'utility', confidence: 0.7, aspects: ['ttl'], contributions: ['eviction'], usage: 'reuse the clock' }],
    });
    expect(answer).toEqual({
      file_type: 'TypeScript module - cache', summary: 'Caches.', key_concepts: ['ttl'],
      descriptions: [{ name: 'Cache-get', description: 'Reads an entry.' }, { name: 'Cache::put', description: 'Stores one.' }],
      relationships: [{ target_file_path: 'src/cache.ts', relationship_type: 'utility', confidence_score: 0.7, helpful_aspects: ['ttl'], potential_contributions: ['eviction'], usage_suggestions: 'reuse the clock' }],
      rejected_relationships: 0,
    });
  });

  it('still reads the long shape and symbols as a name-to-line map, as imperfect models send them', () => {
    const format = new ProfileAnswerFormat(types, 0.3);
    const long = format.parse({ path: 'a.ts', file_type: 'module', summary: 'Caches.', key_concepts: ['ttl'], symbols: { 'Cache-get': 'Reads an entry.' }, relationships: [relationship('reference', 0.8)] });
    expect(long).toMatchObject({ file_type: 'module', key_concepts: ['ttl'], descriptions: [{ name: 'Cache-get', description: 'Reads an entry.' }] });
    expect(typeof long !== 'string' && long.relationships[0]).toMatchObject({ target_file_path: 'src/cache.ts', relationship_type: 'reference', usage_suggestions: 'reuse the clock' });
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

describe('splitting a packed answer by file', () => {
  const format = new ProfileAnswerFormat(null, 0.3);
  const entry = (path: string) => ({ path, file_type: 'module', symbols: [], summary: `About ${path}.`, key_concepts: [] });

  it('finds each entry by the number of its file tag, or by a number written as text', () => {
    const entries = format.entries({ files: [{ file: 2, summary: 'b' }, { file: '1', summary: 'a' }, { file: 4, summary: 'nobody' }] }, ['a.ts', 'b.ts', 'c.ts']);
    if (typeof entries === 'string') throw new Error(entries);
    expect(Object.fromEntries([...entries].map(([p, e]) => [p, (e as { summary: string }).summary]))).toEqual({ 'a.ts': 'a', 'b.ts': 'b' });
  });

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
