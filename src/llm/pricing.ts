/**
 * What model tokens cost, from the `pricing` table of the configuration (US dollars per million tokens).
 * Prices change and differ by account: the table is the user's to keep; a model missing from it is said
 * plainly, and everything that does not need a price still works.
 */
import type { Config } from '../config/schema.js';

export type ModelPrice = Config['pricing'][string];

export interface TokenCounts {
  input: number;
  /** Prompt tokens served from the provider's prompt cache (a part of `input`). */
  cachedInput?: number;
  output: number;
}

export function priceOf(config: Config, model: string): ModelPrice | null {
  return Object.hasOwn(config.pricing, model) ? (config.pricing[model] ?? null) : null;
}

/** Dollars for these tokens, live or through a batch. */
export function costOf(price: ModelPrice, tokens: TokenCounts, mode: 'live' | 'batch' = 'live'): number {
  const cached = Math.min(tokens.cachedInput ?? 0, tokens.input);
  const dollars = ((tokens.input - cached) * price.input + cached * (price.cached_input ?? price.input) + tokens.output * price.output) / 1_000_000;
  return mode === 'batch' ? dollars * price.batch : dollars;
}

export function missingPriceMessage(model: string): string {
  return `no price for model ${model} in the pricing table`;
}

export function missingPriceHint(model: string): string {
  return `add it to indexer_config.yaml, e.g. pricing: { ${JSON.stringify(model)}: { input: 0.15, output: 0.6 } } (US dollars per million tokens)`;
}

export function formatDollars(value: number): string {
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toPrecision(2)}`;
}
