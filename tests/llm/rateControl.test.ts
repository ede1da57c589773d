import { describe, expect, it } from 'vitest';
import { parseDurationMs, readRateLimits, RequestScheduler } from '../../src/llm/rateControl.js';

const http429 = (headers: Record<string, string> = {}) => Object.assign(new Error('429'), { status: 429, headers: new Headers(headers) });
const ok = <T>(value: T, rateLimits?: ReturnType<typeof readRateLimits>) => async () => ({ value, rateLimits });
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('reading rate-limit headers', () => {
  it.each([
    ['1s', 1000], ['6m0s', 360_000], ['20ms', 20], ['1m30.5s', 90_500], ['2h', 7_200_000], ['0.5', 500], ['soon', undefined], ['', undefined],
  ])('reads the duration %s as %s ms', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it("reads OpenAI's x-ratelimit-* headers and retry-after-ms", () => {
    const limits = readRateLimits(new Headers({
      'x-ratelimit-limit-requests': '120', 'x-ratelimit-remaining-requests': '7', 'x-ratelimit-reset-requests': '1.5s',
      'x-ratelimit-limit-tokens': '90000', 'x-ratelimit-remaining-tokens': '1200', 'x-ratelimit-reset-tokens': '6m0s',
      'retry-after-ms': '250',
    }));
    expect(limits).toEqual({ limitRequests: 120, remainingRequests: 7, resetRequestsMs: 1500, limitTokens: 90000, remainingTokens: 1200, resetTokensMs: 360_000, retryAfterMs: 250 });
  });

  it("reads Anthropic's anthropic-ratelimit-* headers, whose resets are times", () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const limits = readRateLimits({
      'anthropic-ratelimit-requests-limit': '50', 'anthropic-ratelimit-requests-remaining': '0', 'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:02Z',
      'retry-after': '2',
    }, now);
    expect(limits).toEqual({ limitRequests: 50, remainingRequests: 0, resetRequestsMs: 2000, retryAfterMs: 2000 });
  });

  it('gives nothing for no headers, and notes garbled ones as not to be believed', () => {
    expect(readRateLimits(undefined)).toEqual({});
    expect(readRateLimits(new Headers({ 'retry-after': 'later' }))).toEqual({});
    expect(readRateLimits(new Headers({ 'x-ratelimit-remaining-requests': 'lots' }))).toEqual({ inconsistent: true });
    expect(readRateLimits(new Headers({ 'x-ratelimit-remaining-tokens': '-5' }))).toEqual({ inconsistent: true });
  });

  it('leaves out a remaining count larger than its limit, and notes the lie', () => {
    const limits = readRateLimits(new Headers({
      'x-ratelimit-limit-requests': '100', 'x-ratelimit-remaining-requests': '1000000',
      'x-ratelimit-limit-tokens': '90000', 'x-ratelimit-remaining-tokens': '80000',
    }));
    expect(limits).toEqual({ limitTokens: 90000, remainingTokens: 80000, inconsistent: true });
  });
});

/** `n` requests at once, so every slot is taken while they last (the scheduler grows only then). */
const burst = (s: RequestScheduler, n: number, limits?: ReturnType<typeof readRateLimits>) =>
  Promise.all(Array.from({ length: n }, (_, i) => s.run(ok(i, limits), 1)));

describe('the request scheduler', () => {
  const scheduler = (over: Partial<ConstructorParameters<typeof RequestScheduler>[0]> = {}) =>
    new RequestScheduler({ concurrency: 4, maxConcurrency: 4, pauseMs: 0, fallbackPauseMs: 30, ...over });

  it('never has more requests in flight than its concurrency', async () => {
    const s = scheduler({ concurrency: 3, maxConcurrency: 3 });
    let inFlight = 0;
    let most = 0;
    await Promise.all(Array.from({ length: 12 }, () => s.run(async () => {
      most = Math.max(most, ++inFlight);
      await delay(10);
      inFlight--;
      return { value: 1 };
    }, 1)));
    expect(most).toBe(3);
  });

  it('pauses each worker for request_delay without spacing the whole run', async () => {
    const s = scheduler({ concurrency: 4, maxConcurrency: 4, pauseMs: 40 });
    const starts: number[] = [];
    const started = performance.now();
    await Promise.all(Array.from({ length: 8 }, () => s.run(async () => {
      starts.push(performance.now() - started);
      return { value: 1 };
    }, 1)));
    starts.sort((a, b) => a - b);
    // The first four start together; each slot's second request waits out its pause.
    expect(starts[3]!).toBeLessThan(20);
    expect(starts[4]!).toBeGreaterThanOrEqual(35);
  });

  it('halves its concurrency on a 429 with no headers at all, once per round trip, and pauses new requests', async () => {
    const s = scheduler({ concurrency: 8, maxConcurrency: 8, fallbackPauseMs: 60 });
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => s.run(async () => {
      await delay(5);
      throw http429();
    }, 1)));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    // Eight refusals of requests that were all in flight together count as one signal.
    expect(s.capacity).toBe(4);
    expect(s.stats.rateLimited).toBe(8);
    const before = performance.now();
    await s.run(ok(1), 1);
    expect(performance.now() - before).toBeGreaterThanOrEqual(45);
  });

  it('grows back additively while the headers show headroom, but not past its ceiling', async () => {
    const s = scheduler({ concurrency: 2, maxConcurrency: 6 });
    await burst(s, 60, { remainingRequests: 100 });
    expect(s.capacity).toBe(6);
    const flat = scheduler({ concurrency: 2, maxConcurrency: 2 });
    for (let i = 0; i < 30; i++) await flat.run(ok(i), 1);
    expect(flat.capacity).toBe(2);
  });

  it('grows by a slot per success until the first setback, then by a slot per round trip', async () => {
    const s = scheduler({ concurrency: 2, maxConcurrency: 64 });
    await burst(s, 20, { remainingRequests: 1000 });
    const grown = s.capacity;
    expect(grown).toBeGreaterThanOrEqual(10);
    await s.run(async () => Promise.reject(http429()), 1).catch(() => {});
    expect(s.capacity).toBe(Math.floor(grown / 2));
    await delay(40); // the fallback pause
    await burst(s, 12, { remainingRequests: 1000 });
    expect(s.capacity).toBeGreaterThan(Math.floor(grown / 2));
    expect(s.capacity).toBeLessThanOrEqual(Math.floor(grown / 2) + 2);
  });

  it('grows fast again after a setback once the headers show half of each limit left', async () => {
    const s = scheduler({ concurrency: 4, maxConcurrency: 64 });
    await s.run(async () => Promise.reject(http429()), 1).catch(() => {});
    expect(s.capacity).toBe(2);
    await delay(40);
    const limits = { limitRequests: 60_000, remainingRequests: 50_000, limitTokens: 10_000_000, remainingTokens: 8_000_000 };
    await Promise.all(Array.from({ length: 24 }, (_, i) => s.run(async () => {
      await delay(40);
      return { value: i, rateLimits: limits };
    }, 1)));
    expect(s.stats.highestConcurrency).toBeGreaterThanOrEqual(8);
  });

  it('jumps to what the announced limits sustain at the measured round trip, then grows a slot per success', async () => {
    // 60,000 requests a minute paced at 97%, ~40 ms a request: about 39 in flight sustain it.
    const s = scheduler({ concurrency: 4, maxConcurrency: 64 });
    const slow = (i: number) => s.run(async () => {
      await delay(40);
      return { value: i, rateLimits: { limitRequests: 60_000, remainingRequests: 59_000 } };
    }, 1);
    await Promise.all(Array.from({ length: 60 }, (_, i) => slow(i)));
    expect(s.stats.trace.slice(0, 3)).toEqual([8, 16, 32]);
    expect(s.stats.highestConcurrency).toBeGreaterThanOrEqual(32);
  });

  it('does not grow while slots stand idle, whatever the headers say', async () => {
    const s = scheduler({ concurrency: 3, maxConcurrency: 64 });
    for (let i = 0; i < 20; i++) await s.run(ok(i, { remainingRequests: 1000 }), 1);
    expect(s.capacity).toBe(3);
  });

  it('keeps the configured concurrency when the server sends no rate-limit headers', async () => {
    const s = scheduler({ concurrency: 3, maxConcurrency: 64 });
    await burst(s, 30, {});
    await burst(s, 30);
    expect(s.capacity).toBe(3);
  });

  it('does not grow when the tokens left would not cover another slot', async () => {
    const s = scheduler({ concurrency: 4, maxConcurrency: 64 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.run(ok(i, { remainingRequests: 1000, remainingTokens: 20_000 }), 5000)));
    expect(s.capacity).toBe(4);
  });

  it('falls back to the configured concurrency, and grows no more, once the headers lie', async () => {
    const s = scheduler({ concurrency: 2, maxConcurrency: 64 });
    await burst(s, 8, { remainingRequests: 1000 });
    expect(s.capacity).toBeGreaterThan(2);
    await s.run(ok(0, { remainingRequests: 1000, inconsistent: true }), 1);
    expect(s.capacity).toBe(2);
    await burst(s, 20, { remainingRequests: 1000 });
    expect(s.capacity).toBe(2);
    expect(s.stats.distrusted).toBe(true);
  });

  it('gives back what grew past the start on a dropped connection or an overloaded server, never below it', async () => {
    const s = scheduler({ concurrency: 2, maxConcurrency: 12 });
    await burst(s, 20, { remainingRequests: 1000 });
    expect(s.capacity).toBe(12);
    const dropped = Object.assign(new Error('Connection error.'), { name: 'APIConnectionError' });
    await s.run(async () => Promise.reject(dropped), 1).catch(() => {});
    expect(s.capacity).toBe(6);
    await delay(2); // one decrease per round trip: the next request starts after this one
    await s.run(async () => Promise.reject(Object.assign(new Error('overloaded'), { status: 529 })), 1).catch(() => {});
    expect(s.capacity).toBe(3);
    await delay(2);
    await s.run(async () => Promise.reject(Object.assign(new Error('overloaded'), { status: 503 })), 1).catch(() => {});
    expect(s.capacity).toBe(2);
    await delay(2);
    await s.run(async () => Promise.reject(Object.assign(new Error('boom'), { status: 500 })), 1).catch(() => {});
    expect(s.capacity).toBe(2);
    expect(s.stats.fallbacks).toBe(3);
  });

  it('does not grow when the provider has no requests to spare', async () => {
    const s = scheduler({ concurrency: 2, maxConcurrency: 6 });
    for (let i = 0; i < 20; i++) await s.run(ok(i, { remainingRequests: 1, resetRequestsMs: 1 }), 1);
    expect(s.capacity).toBe(2);
  });

  it('waits for the reset once the remaining requests run out', async () => {
    const s = scheduler();
    await s.run(ok(1, { remainingRequests: 1, resetRequestsMs: 80 }), 1);
    const before = performance.now();
    await s.run(ok(2), 1); // spends the last one
    expect(performance.now() - before).toBeLessThan(30);
    await s.run(ok(3), 1); // waits for the reset
    expect(performance.now() - before).toBeGreaterThanOrEqual(60);
  });

  it('paces starts under requests_per_minute', async () => {
    const s = scheduler({ requestsPerMinute: 1200 }); // one every 50 ms
    const started = performance.now();
    await Promise.all(Array.from({ length: 4 }, () => s.run(ok(1), 1)));
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('holds a request back until its tokens fit under tokens_per_minute', async () => {
    let now = 0;
    const s = new RequestScheduler({ concurrency: 4, maxConcurrency: 4, pauseMs: 0, fallbackPauseMs: 10, tokensPerMinute: 1000, now: () => now });
    await s.run(ok(1), 600);
    const second = s.run(ok(2), 600);
    let done = false;
    void second.then(() => (done = true));
    await delay(20);
    expect(done).toBe(false);
    now = 60_001;
    await second;
  }, 5000);
});

describe('pacing to an announced limit', () => {
  it('spaces requests evenly just under the per-minute limit the headers announce', async () => {
    const s = new RequestScheduler({ concurrency: 4, maxConcurrency: 4, pauseMs: 0, fallbackPauseMs: 10 });
    await s.run(ok(0, { limitRequests: 1200, remainingRequests: 1000 }), 1); // one every ~52 ms from now on
    const started = performance.now();
    await Promise.all(Array.from({ length: 4 }, () => s.run(ok(1), 1)));
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });
});
