/**
 * Answers an agent can afford: an answer is cut to a token budget by dropping its last results (files and
 * definitions, least relevant first), never by dropping fields, so what is kept reads as it always does.
 *
 * Tokens are estimated, not counted: one per 3.5 characters of the answer's text. cl100k_base puts about 3.9
 * characters of these answers in a token (`npm run bench`'s MCP figures: 1,403 counted where 1,829 were estimated
 * at 3 a token), so the estimate errs on the side of a shorter answer, and costs nothing to load.
 */
import type { SearchResponse } from './types.js';

export const CHARS_PER_TOKEN = 3.5;

/** The default budget of the MCP tools' search answers. */
export const DEFAULT_MAX_TOKENS = 2000;

/** The smallest budget an answer is cut to: below it, not even the answer's frame would fit. */
export const MIN_MAX_TOKENS = 200;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * `render(n)` with the largest `n` in [0, `max`] whose text is within `maxTokens`; `n` counts the results kept, and
 * a larger `n` never renders shorter. With no budget, `render(max)`.
 */
export function fitToBudget(render: (n: number) => string, max: number, maxTokens?: number): { text: string; kept: number } {
  const whole = render(max);
  if (maxTokens === undefined || estimateTokens(whole) <= maxTokens) return { text: whole, kept: max };
  let lo = 0;
  let hi = max - 1;
  // The largest n that fits, found in log2(max) renders.
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (estimateTokens(render(mid)) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  return { text: render(lo), kept: lo };
}

/** What an answer cut to a budget left out, for it to say. */
export interface LeftOut {
  max_tokens: number;
  references_left_out: number;
  symbols_left_out: number;
}

/**
 * `render` of `response` cut to `maxTokens`: its last references and definitions (as many of each) are left out
 * until `serialize` of the answer fits, and `render` is told what was left out (null when nothing was).
 */
export function fitResponse<T>(response: SearchResponse, render: (cut: SearchResponse, leftOut: LeftOut | null) => T, serialize: (answer: T) => string, maxTokens?: number): T {
  // No budget: the whole answer, rendered once (not once more to be measured).
  if (maxTokens === undefined) return render(response, null);
  const references = response.references.length;
  const definitions = response.symbols?.length ?? 0;
  const total = Math.max(references, definitions);
  const answer = (n: number): T => {
    const cut = { ...response, references: response.references.slice(0, n), ...(response.symbols ? { symbols: response.symbols.slice(0, n) } : {}) };
    const leftOut = n >= total || maxTokens === undefined ? null : { max_tokens: maxTokens, references_left_out: references - Math.min(n, references), symbols_left_out: definitions - Math.min(n, definitions) };
    return render(cut, leftOut);
  };
  return answer(fitToBudget((n) => serialize(answer(n)), total, maxTokens).kept);
}
