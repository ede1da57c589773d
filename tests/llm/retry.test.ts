import { describe, expect, it } from 'vitest';
import { InvalidAnswerError, isRetryable, retryAfterMs, retryDelayMs, withRetries } from '../../src/llm/retry.js';

const httpError = (status: number, headers: Record<string, string> = {}) => Object.assign(new Error(`status ${status}`), { status, headers: new Headers(headers) });
const policy = { retries: 3, baseDelayMs: 100, maxDelayMs: 1000, random: () => 1 };

describe('which failures are retried', () => {
  it.each([
    [408, true], [409, true], [429, true], [500, true], [502, true], [503, true], [529, true],
    [400, false], [401, false], [403, false], [404, false], [422, false],
  ])('status %i is retryable: %s', (status, expected) => {
    expect(isRetryable(httpError(status))).toBe(expected);
  });

  it('retries connection errors and timeouts, and unusable answers', () => {
    expect(isRetryable(Object.assign(new Error('Connection error.'), { name: 'APIConnectionError' }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('Request timed out.'), { name: 'APIConnectionTimeoutError' }))).toBe(true);
    expect(isRetryable(new InvalidAnswerError('not JSON', '{'))).toBe(true);
  });

  it('does not retry a cancelled request', () => {
    expect(isRetryable(Object.assign(new Error('Request was aborted.'), { name: 'APIUserAbortError' }))).toBe(false);
  });
});

describe('how long to wait', () => {
  it('doubles from retry_delay with each attempt', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, new Error('x'), policy))).toEqual([100, 200, 400, 800]);
  });

  it('jitters each step between half and all of it', () => {
    expect(retryDelayMs(3, new Error('x'), { ...policy, random: () => 0 })).toBe(200);
  });

  it('honours a longer Retry-After, in seconds or milliseconds, up to the cap', () => {
    expect(retryDelayMs(1, httpError(429, { 'retry-after': '0.5' }), policy)).toBe(500);
    expect(retryDelayMs(1, httpError(429, { 'retry-after-ms': '750', 'retry-after': '1' }), policy)).toBe(750);
    expect(retryDelayMs(1, httpError(429, { 'retry-after': '30' }), policy)).toBe(1000);
  });

  it('reads an HTTP-date Retry-After', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(httpError(503, { 'retry-after': 'Thu, 01 Jan 2026 00:00:02 GMT' }), now)).toBe(2000);
  });
});

describe('retrying a task', () => {
  const fast = { retries: 3, baseDelayMs: 0, maxDelayMs: 0 };

  it('tries again after retryable failures and counts the retries', async () => {
    let attempts = 0;
    let retries = 0;
    const result = await withRetries(async () => {
      attempts++;
      if (attempts < 3) throw httpError(503);
      return 'done';
    }, fast, undefined, { onRetry: () => retries++ });
    expect(result).toBe('done');
    expect(attempts).toBe(3);
    expect(retries).toBe(2);
  });

  it('gives up after max_retries and throws the last error', async () => {
    let attempts = 0;
    await expect(withRetries(async () => {
      attempts++;
      throw httpError(500);
    }, fast)).rejects.toThrow('status 500');
    expect(attempts).toBe(4);
  });

  it('fails at once on a 401', async () => {
    let attempts = 0;
    await expect(withRetries(async () => {
      attempts++;
      throw httpError(401);
    }, fast)).rejects.toMatchObject({ status: 401 });
    expect(attempts).toBe(1);
  });

  it('stops waiting between tries when the run is cancelled', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = withRetries(async () => {
      throw httpError(429, { 'retry-after': '10' });
    }, { retries: 3, baseDelayMs: 0, maxDelayMs: 10_000 }, controller.signal);
    setTimeout(() => controller.abort(new Error('interrupted')), 50);
    await expect(pending).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
