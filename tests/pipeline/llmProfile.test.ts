import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import type { LlmProvider } from '../../src/llm/provider.js';
import type { PromptSet } from '../../src/llm/prompts.js';
import { answerContext, isProfileAnswer, profileKey } from '../../src/pipeline/llmProfile.js';

const config = defaultConfig();
const ctx = {
  provider: { name: 'openai', model: 'gpt-4o-mini' } as LlmProvider,
  prompts: { version: 'v1' } as PromptSet,
  config,
  targetStructure: null as string | null,
  focus: null as string | null,
};

describe('a file profiled by a model', () => {
  it('is cached under a key that changes with its content, the model, the prompts and the focus', () => {
    const key = profileKey('hash-a', ctx);
    expect(profileKey('hash-a', ctx)).toBe(key);
    expect(profileKey('hash-b', ctx)).not.toBe(key);
    expect(profileKey('hash-a', { ...ctx, provider: { name: 'openai', model: 'gpt-4o' } as LlmProvider })).not.toBe(key);
    expect(profileKey('hash-a', { ...ctx, prompts: { version: 'v2' } as PromptSet })).not.toBe(key);
    expect(profileKey('hash-a', { ...ctx, focus: 'security' })).not.toBe(key);
  });

  it('is answered in a context that names the target structure by its hash, not its text', () => {
    const context = answerContext({ ...ctx, targetStructure: 'src/\n  app.ts\n' });
    expect(context).not.toContain('app.ts');
    expect(answerContext({ ...ctx, targetStructure: 'src/\n  other.ts\n' })).not.toBe(context);
  });

  it.each([
    [{ file_type: 't', summary: 's', key_concepts: [], relationships: [], descriptions: [] }, true],
    [{ file_type: 't', summary: 's', key_concepts: [], relationships: [] }, false],
    [{ file_type: 1, summary: 's', key_concepts: [], relationships: [], descriptions: [] }, false],
    [null, false],
  ])('takes %j from the cache only when it is a whole answer: %s', (value, expected) => {
    expect(isProfileAnswer(value)).toBe(expected);
  });
});
