/**
 * The run budget and the price arithmetic: pure functions and a small class, no server.
 */
import { describe, expect, it } from 'vitest';
import { BudgetStop, RunBudget } from '../../src/llm/budget.js';
import { costOf, type ModelPrice } from '../../src/llm/pricing.js';
import { bodyText, promptTokenCounter, type PromptTokenCounter } from '../../src/llm/tokens.js';
import { isRetryable } from '../../src/llm/retry.js';

const price: ModelPrice = { input: 1, cached_input: 0.1, output: 4, batch: 0.5 };
/** 1,000 tokens a body, whatever it holds. */
const thousand: PromptTokenCounter = { exact: true, method: 'fixed', count: () => 1000 };

describe('costOf', () => {
  it.each([
    [{ input: 1_000_000, output: 0 }, 'live', 1],
    [{ input: 0, output: 1_000_000 }, 'live', 4],
    [{ input: 1_000_000, output: 1_000_000 }, 'batch', 2.5],
    [{ input: 1_000_000, cachedInput: 500_000, output: 0 }, 'live', 0.55],
  ] as const)('prices %o (%s) at $%d', (tokens, mode, dollars) => {
    expect(costOf(price, tokens, mode)).toBeCloseTo(dollars, 10);
  });
});

describe('RunBudget', () => {
  it('refuses the call that would pass --max-calls, and every call after it', () => {
    const budget = new RunBudget({ maxCalls: 2, maxCost: null, price: null, counter: null, expectedOutputTokens: 100 });
    budget.admit({});
    budget.admit({});
    expect(() => budget.admit({})).toThrow(BudgetStop);
    expect(budget.stopped).toBe('--max-calls 2 reached');
    expect(() => budget.admit({})).toThrow('--max-calls 2 reached');
    expect(budget.calls).toBe(2);
  });

  it('counts requests in flight against --max-cost before they settle', () => {
    // Each request: 1,000 prompt tokens ($0.001) + 250 expected answer tokens ($0.001) = $0.002.
    const budget = new RunBudget({ maxCalls: null, maxCost: 0.005, price, counter: thousand, expectedOutputTokens: 250 });
    const a = budget.admit({});
    budget.admit({});
    expect(() => budget.admit({})).toThrow(/--max-cost \$0\.0050 reached/);
    budget.settle(a, { prompt_tokens: 1000, completion_tokens: 250 });
    expect(budget.spent).toBeCloseTo(0.002, 10);
  });

  it('assumes answers as long as the average so far once it has seen one', () => {
    const budget = new RunBudget({ maxCalls: null, maxCost: 0.051, price, counter: thousand, expectedOutputTokens: 10_000 });
    // The first request is priced with 10,000 answer tokens ($0.041); its answer has 250 ($0.002 in all).
    budget.settle(budget.admit({}), { prompt_tokens: 1000, completion_tokens: 250 });
    let admitted = 0;
    while (!budget.stopped) {
      try {
        budget.admit({});
        admitted++;
      } catch {
        // stopped
      }
    }
    // $0.002 spent; 24 more requests at $0.002 fit under $0.051, where the assumption alone would allow 1.
    expect(admitted).toBe(24);
  });

  it('is never retried by the retry layer', () => {
    expect(isRetryable(new BudgetStop('--max-calls 1 reached'))).toBe(false);
  });
});

describe('prompt token counting', () => {
  it('estimates 4 characters a token of everything a body sends, for models without a known tokenizer', async () => {
    const counter = await promptTokenCounter('anthropic', 'claude-haiku-4-5');
    const body = { system: 'abcd', messages: [{ role: 'user', content: 'x'.repeat(40) }], tools: [{ name: 't' }] };
    expect(counter).toMatchObject({ exact: false, method: 'estimate: 4 characters a token' });
    expect(counter.count(body)).toBe(Math.ceil(bodyText(body).length / 4));
  });

  it('counts OpenAI chat messages exactly, with 3 tokens a message and 3 to prime the answer', async () => {
    const counter = await promptTokenCounter('openai', 'gpt-4o');
    expect(counter).toMatchObject({ exact: true, method: 'o200k_base' });
    // "hello" and "system", "user" are one token each in o200k_base.
    const body = { messages: [{ role: 'system', content: 'hello' }, { role: 'user', content: 'hello' }] };
    expect(counter.count(body)).toBe(3 + 2 * (3 + 1 + 1));
  });
});
