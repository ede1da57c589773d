/**
 * The one retry layer. SDK clients are built with `maxRetries: 0`; here p-retry decides whether to try
 * again and we decide how long to wait: exponential backoff from `llm.retry_delay` with jitter, or the
 * server's Retry-After (`retry-after-ms`, `retry-after` seconds or date) when it asks for longer, up to
 * `llm.max_retry_after`. Only 408/409/429/5xx, network errors, timeouts and unusable answers are retried;
 * 400/401/403/404/422 fail at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pRetry, { AbortError } from 'p-retry';

export interface RetryPolicy {
  retries: number;
  /** Milliseconds: the first backoff step. */
  baseDelayMs: number;
  /** Milliseconds: the longest Retry-After honoured, and the longest backoff. */
  maxDelayMs: number;
  random?: () => number;
}

/** A model answer that cannot be used (not JSON, cut by max_tokens, wrong shape): worth one more try. */
export class InvalidAnswerError extends Error {
  constructor(message: string, readonly raw: string) {
    super(message);
    this.name = 'InvalidAnswerError';
  }
}

const RETRYABLE_STATUS = new Set([408, 409, 429]);

interface HttpishError {
  status?: number;
  headers?: { get(name: string): string | null } | Record<string, string>;
  name?: string;
}

export function statusOf(error: unknown): number | undefined {
  const status = (error as HttpishError | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

export function isRetryable(error: unknown): boolean {
  if (error instanceof InvalidAnswerError) return true;
  const status = statusOf(error);
  if (status !== undefined) return RETRYABLE_STATUS.has(status) || status >= 500;
  const name = (error as HttpishError | null)?.name ?? '';
  if (name === 'APIUserAbortError' || name === 'AbortError') return false;
  // No status: the request never got an answer (connection refused or reset, timeout).
  return /Connection|Timeout|Network|FetchError|ECONN|ETIMEDOUT|socket/i.test(`${name} ${(error as Error)?.message ?? ''}`);
}

/** Response headers as the SDKs hand them over: a fetch `Headers` object or a plain record. */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | undefined> | null | undefined;

/** Reads a header by its lower-case name from either kind. */
export function headerGetter(headers: HeaderSource): (name: string) => string | null {
  if (!headers) return () => null;
  if (typeof (headers as { get?: unknown }).get === 'function') return (name) => (headers as { get(name: string): string | null }).get(name);
  const record = headers as Record<string, string | undefined>;
  return (name) => record[name] ?? record[name.toLowerCase()] ?? null;
}

/** The wait a server asked for, in milliseconds, or undefined. */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  const headers = (error as HttpishError | null)?.headers;
  if (!headers) return undefined;
  const get = headerGetter(headers);
  const ms = Number(get('retry-after-ms'));
  if (get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const value = get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with jitter in [0.5, 1] of the step, or Retry-After when longer, capped. */
export function retryDelayMs(attempt: number, error: unknown, policy: RetryPolicy): number {
  const random = policy.random ?? Math.random;
  const step = policy.baseDelayMs * 2 ** (attempt - 1);
  const backoff = Math.min(step, policy.maxDelayMs) * (0.5 + random() / 2);
  const asked = retryAfterMs(error);
  return Math.round(Math.min(Math.max(backoff, asked ?? 0), policy.maxDelayMs));
}

export interface RetryObserver {
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

/** Runs `task` with the policy; the signal cancels both a request in flight and a wait between tries. */
export function withRetries<T>(task: (attempt: number) => Promise<T>, policy: RetryPolicy, signal?: AbortSignal, observer: RetryObserver = {}): Promise<T> {
  return pRetry(
    async (attempt) => {
      try {
        return await task(attempt);
      } catch (error) {
        if (signal?.aborted) throw new AbortError(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        if (!isRetryable(error)) throw new AbortError(error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
    },
    {
      retries: policy.retries,
      // p-retry's own wait is off: onFailedAttempt waits, so Retry-After can lengthen it.
      minTimeout: 0,
      maxTimeout: 0,
      randomize: false,
      ...(signal ? { signal } : {}),
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        if (retriesLeft <= 0) return;
        const delayMs = retryDelayMs(attemptNumber, error, policy);
        observer.onRetry?.({ attempt: attemptNumber, delayMs, error });
        if (delayMs > 0) await sleep(delayMs, undefined, signal ? { signal } : undefined);
      },
    },
  );
}
