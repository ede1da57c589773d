/**
 * The one narrow interface every model provider implements: one structured-output request, one HTTP call,
 * no retries (the retry layer owns those). Only openai.ts and anthropic.ts build SDK clients.
 */
import type { TokenUsage } from '../index/types.js';
import type { RateLimitSnapshot } from './rateControl.js';

export type JsonSchema = Record<string, unknown>;

export interface StructuredRequest {
  system: string;
  /**
   * The part of the user message shared by every request of a run (instructions, answer format, target
   * structure). It comes first and byte-identical, so providers can cache it: Anthropic gets a cache
   * breakpoint after it, OpenAI caches prefixes on its own.
   */
  prefix?: string;
  /** The rest of the user message: what this request is about. */
  prompt: string;
  /** Routes requests sharing a prefix to the same cache (OpenAI's `prompt_cache_key`). */
  cacheKey?: string;
  /** The answer's JSON schema, as the provider's structured-output feature takes it. */
  schema: JsonSchema;
  schemaName: string;
  maxTokens: number;
  temperature: number;
  signal?: AbortSignal;
}

export interface StructuredResponse {
  /** The answer's raw text (for debug dumps and defensive parsing). */
  text: string;
  /** The parsed answer, or undefined when the text was not JSON. */
  value: unknown;
  /** `length` when the answer was cut by max_tokens. */
  finishReason: 'stop' | 'length' | 'other';
  /** `prompt_tokens` counts every prompt token, cached ones too; `cached_prompt_tokens` says how many were. */
  usage: TokenUsage;
  /** What the response's rate-limit headers said. */
  rateLimits?: RateLimitSnapshot;
}

/** The whole user message: the shared prefix, then the request's own part. */
export function userText(request: Pick<StructuredRequest, 'prefix' | 'prompt'>): string {
  return `${request.prefix ?? ''}${request.prompt}`;
}

/** How a provider's SDK client is built: a key from the environment, an optional base URL, a model. */
export interface ProviderOptions {
  apiKey: string;
  baseURL?: string | undefined;
  model: string;
  timeoutMs: number;
}

export interface LlmProvider {
  readonly name: 'openai' | 'anthropic';
  readonly model: string;
  complete(request: StructuredRequest): Promise<StructuredResponse>;
  /**
   * The exact body `complete` sends for a request (without its signal). The dry run counts it and a batch
   * submits it, so what is counted, what is batched and what is sent live cannot drift apart.
   */
  requestBody(request: StructuredRequest): Record<string, unknown>;
  /** The provider's batch API (half price, answers within a day). */
  readonly batch?: BatchApi;
}

/** One request of a batch: its id in the batch, and the body `requestBody` built for it. */
export interface BatchItem {
  customId: string;
  body: Record<string, unknown>;
}

export interface BatchStatus {
  id: string;
  /** `ended` once the provider will answer nothing more (completed, expired, cancelled or failed). */
  state: 'in_progress' | 'ended';
  /** The provider's own word for it: validating, in_progress, completed, expired, ended, … */
  providerStatus: string;
  total: number;
  /** Requests the provider has finished, whatever their outcome. */
  done: number;
}

/** One request's outcome in a finished batch. */
export type BatchOutcome =
  | { customId: string; type: 'succeeded'; response: StructuredResponse }
  | { customId: string; type: 'errored' | 'expired' | 'canceled'; error: string };

/** A provider's batch API, through its SDK; the caller owns retries and waiting. */
export interface BatchApi {
  submit(items: readonly BatchItem[], signal?: AbortSignal): Promise<{ id: string }>;
  status(id: string, signal?: AbortSignal): Promise<BatchStatus>;
  results(id: string, signal?: AbortSignal): Promise<BatchOutcome[]>;
}

/** Parses JSON out of a model's text: bare, fenced, or the first {...} block in prose. */
export function parseJsonLoose(text: string): unknown {
  const trimmed = text.trim();
  const candidates = [trimmed];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(trimmed);
  if (fenced?.[1]) candidates.push(fenced[1]);
  const first = trimmed.indexOf('{');
  const last = trimmed.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(trimmed.slice(first, last + 1));
  for (const candidate of candidates) {
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next shape
    }
  }
  return undefined;
}
