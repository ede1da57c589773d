/**
 * The general model call: one structured question through the run's scheduler, retry policy, spending limits
 * and statistics, and the check that tells a provider refusing the run (bad key, unknown model) from a
 * failed request. Profiling, pre-filtering and planning all ask through it.
 */
import type { Config } from '../config/schema.js';
import { ProviderError, errorMessage } from '../shared/errors.js';
import type { RunBudget } from './budget.js';
import { estimateTokens } from './profileRequest.js';
import type { LlmProvider, StructuredRequest, StructuredResponse } from './provider.js';
import type { RequestScheduler } from './rateControl.js';
import { InvalidAnswerError, statusOf, withRetries, type RetryPolicy } from './retry.js';

export interface LlmStats {
  calls: number;
  retries: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Of prompt_tokens, those read from the provider's prompt cache. */
  cached_prompt_tokens: number;
  cache_hits: number;
  secrets_redacted: number;
  /** Files whose profile a model answer gave (cache hits apart): what answer tokens a file are counted over. */
  answered_files: number;
  /** Relationships dropped because their target is not a file of the target structure. */
  relationships_outside: number;
}

export function emptyLlmStats(): LlmStats {
  return { calls: 0, retries: 0, prompt_tokens: 0, completion_tokens: 0, cached_prompt_tokens: 0, cache_hits: 0, secrets_redacted: 0, answered_files: 0, relationships_outside: 0 };
}

/** Statuses that mean the provider cannot serve this run at all: stop, do not mark every file failed. */
const FATAL_STATUS = new Set([401, 403, 404]);

/** What a model call needs of its run: the provider, the settings, and the run's retry policy, scheduler, statistics, signal and limits. */
export interface AskContext {
  provider: LlmProvider;
  config: Config;
  retry: RetryPolicy;
  scheduler: RequestScheduler;
  stats: LlmStats;
  signal: AbortSignal;
  /** The run's spending limits (`--max-cost`, `--max-calls`); every request asks it first. */
  budget?: RunBudget | null | undefined;
}

export interface AskOptions {
  /** Ask again when the answer is unusable (default); a pack falls back to single requests instead. */
  retryInvalid?: boolean;
  onRaw?: (raw: string) => Promise<void> | undefined;
  /** Files the request asks about (a pack's length), for the budget's estimate of the answer (default 1). */
  files?: number;
}

/**
 * One structured question through the run's scheduler, retry policy and statistics: an answer cut off at
 * max_tokens, not JSON, or of the wrong shape (`parse` returns a string saying why) is retried like a 503.
 */
export async function askModel<T>(
  ctx: AskContext,
  question: Omit<StructuredRequest, 'system' | 'maxTokens' | 'temperature' | 'signal'> & Partial<Pick<StructuredRequest, 'system' | 'maxTokens' | 'temperature'>>,
  parse: (value: unknown) => T | string,
  options: AskOptions = {},
): Promise<T> {
  const request: StructuredRequest = {
    system: ctx.config.llm.system_prompt,
    maxTokens: ctx.config.llm.max_tokens,
    temperature: ctx.config.llm.temperature,
    ...question,
    signal: ctx.signal,
  };
  const tokens = estimateTokens(request.system) + estimateTokens(request.prefix ?? '') + estimateTokens(request.prompt) + request.maxTokens;
  return withRetries(
    async () => {
      // Asked before the scheduler, so a stopped run does not wait its turn to be refused; a pack is one
      // request, its prompt tokens counted from the body the provider sends.
      const reservation = ctx.budget?.admit(ctx.provider.requestBody(request), options.files ?? 1);
      let response: StructuredResponse | undefined;
      try {
        response = await ctx.scheduler.run(
          async () => {
            ctx.stats.calls++;
            const answer = await ctx.provider.complete(request);
            return { value: answer, rateLimits: answer.rateLimits };
          },
          tokens,
          ctx.signal,
        );
      } finally {
        if (reservation) ctx.budget?.settle(reservation, response?.usage ?? null);
      }
      ctx.stats.prompt_tokens += response.usage.prompt_tokens;
      ctx.stats.completion_tokens += response.usage.completion_tokens;
      ctx.stats.cached_prompt_tokens += response.usage.cached_prompt_tokens ?? 0;
      await options.onRaw?.(response.text);
      let failure: string | null = null;
      let parsed: T | string | undefined;
      if (response.finishReason === 'length') failure = 'answer cut off at llm.max_tokens';
      else if (response.value === undefined) failure = 'answer is not JSON';
      else {
        parsed = parse(response.value);
        if (typeof parsed === 'string') failure = `answer has the wrong shape (${parsed})`;
      }
      if (failure !== null) {
        const error = new InvalidAnswerError(failure, response.text);
        throw options.retryInvalid === false ? new UnusableAnswer(error) : error;
      }
      return parsed as T;
    },
    ctx.retry,
    ctx.signal,
    { onRetry: () => ctx.stats.retries++ },
  ).catch((error: unknown) => {
    throw error instanceof UnusableAnswer ? error.answer : error;
  });
}

/** Carries an unusable answer past the retry layer untouched (it is not retryable). */
class UnusableAnswer extends Error {
  constructor(readonly answer: InvalidAnswerError) {
    super(answer.message);
    this.name = 'UnusableAnswer';
  }
}


/**
 * The error that stops a run when `error` means the provider cannot serve it at all (401, 403, 404): `who`
 * refused the request. Null for a failure of this request alone.
 */
export function refusal(error: unknown, who: string): ProviderError | null {
  const status = statusOf(error);
  if (status === undefined || !FATAL_STATUS.has(status)) return null;
  return new ProviderError(`${who} refused the request (${status}): ${firstLine(errorMessage(error))}`, {
    cause: error,
    hint: status === 404 ? 'check llm.model' : 'check the API key in the environment',
  });
}

/** The first line of a message, at most 200 characters. */
export function firstLine(text: string): string {
  return text.split('\n')[0]?.slice(0, 200) ?? '';
}
