/**
 * Per-token admission: a token bucket for the request rate and a count of requests in flight. A request either
 * gets a release to call when it ends, or the seconds a client should wait (the `Retry-After` of its 429).
 */

export interface LimitsOptions {
  /** Requests a token may make per second, sustained. */
  ratePerSecond: number;
  /** Requests a token may make at once after a quiet spell (the bucket's size). */
  burst: number;
  /** Requests of one token in flight at once. */
  maxConcurrent: number;
  now?: () => number;
}

/** A token's limits when `coderag serve` is given none: 20 requests a second, bursts of 40, 8 in flight. */
export const DEFAULT_RATE: Omit<LimitsOptions, 'now'> = { ratePerSecond: 20, burst: 40, maxConcurrent: 8 };

export type Admission = { ok: true; release: () => void } | { ok: false; retryAfterSeconds: number; reason: 'rate' | 'concurrency' };

interface Bucket {
  tokens: number;
  at: number;
  inFlight: number;
}

export class RequestLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;

  constructor(private readonly options: LimitsOptions) {
    this.now = options.now ?? Date.now;
  }

  admit(key: string): Admission {
    const { ratePerSecond, burst, maxConcurrent } = this.options;
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now, inFlight: 0 };
    this.buckets.set(key, bucket);
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * ratePerSecond);
    bucket.at = now;
    if (bucket.inFlight >= maxConcurrent) return { ok: false, retryAfterSeconds: 1, reason: 'concurrency' };
    if (bucket.tokens < 1) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond)), reason: 'rate' };
    bucket.tokens -= 1;
    bucket.inFlight += 1;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        bucket.inFlight -= 1;
        // A full, idle bucket is what a new one would be: dropping it keeps the map as small as the busy tokens.
        if (bucket.inFlight === 0 && bucket.tokens + ((this.now() - bucket.at) / 1000) * ratePerSecond >= burst) this.buckets.delete(key);
      },
    };
  }

  /** Tokens with a bucket kept (busy or recently busy). */
  get size(): number {
    return this.buckets.size;
  }
}
