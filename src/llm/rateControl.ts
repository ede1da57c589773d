/**
 * Rate control for every model request of a run, in one scheduler:
 * - concurrency that follows the provider: it starts at `max_concurrent_files` and grows only while the
 *   latest answer's rate-limit headers show headroom (requests and tokens left for two more rounds with one
 *   more slot) and every slot is in use, up to `llm.adaptive_concurrency_max` (64 by default). It grows
 *   fast until the first setback, and after one whenever the headers show half of each announced limit left:
 *   each success doubles it, up to what the announced per-minute limits sustain at the measured round trip
 *   (Little's law), and adds a slot past that; otherwise it grows a slot per round trip. A 429 halves it, at
 *   most once per round trip; a dropped connection, a timeout or an overloaded server (502, 503, 504, 529)
 *   halves what grew past the start, never below it. A server that sends no rate-limit headers (Ollama,
 *   vLLM) keeps the configured number; one whose headers contradict themselves (remaining above the limit,
 *   negative, not a number) is not believed again in the run, and concurrency falls back to the start;
 * - the provider's own budget: `x-ratelimit-remaining-*` (OpenAI) and `anthropic-ratelimit-*-remaining`
 *   (Anthropic) say how many requests and tokens are left until a reset; at zero, new requests wait for it;
 * - `retry-after` on a 429 pauses every new request, not just the one refused;
 * - a per-minute limit the headers announce (`x-ratelimit-limit-requests`, `…-tokens`) paces requests
 *   evenly at just under that rate, as do optional caps of our own (`llm.requests_per_minute`,
 *   `llm.tokens_per_minute`), so the server rarely has to refuse any;
 * - `llm.request_delay` is DeepCode's pause per worker: a slot rests that long after its request before the
 *   next one may use it. It does not space requests across the run.
 * Retrying stays with retry.ts; this module only decides when a request may start.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { headerGetter, InvalidAnswerError, isRetryable, statusOf, type HeaderSource } from './retry.js';

/** What a provider's response headers say about its limits; absent fields were not sent. */
export interface RateLimitSnapshot {
  limitRequests?: number;
  remainingRequests?: number;
  /** Milliseconds until the request budget is replenished. */
  resetRequestsMs?: number;
  limitTokens?: number;
  remainingTokens?: number;
  resetTokensMs?: number;
  /** Milliseconds the server asked to wait (retry-after-ms or retry-after). */
  retryAfterMs?: number;
  /**
   * A rate-limit header was sent that cannot be believed: not a count, negative, or more remaining than
   * the limit. The contradicting pair is left out of the snapshot.
   */
  inconsistent?: boolean;
}

/** `1s`, `6m0s`, `20ms`, `1m30.5s`, `2h` (OpenAI's reset format) to milliseconds. */
export function parseDurationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  let total = 0;
  let matched = '';
  for (const m of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
    matched += m[0];
  }
  return matched === trimmed ? total : undefined;
}

function count(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** A reset given as a duration (OpenAI) or an RFC 3339 time (Anthropic), in milliseconds from now. */
function resetMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const duration = parseDurationMs(value);
  if (duration !== undefined) return duration;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Reads both providers' rate-limit headers and retry-after; missing or garbled headers are left out. */
export function readRateLimits(headers: HeaderSource, now: number = Date.now()): RateLimitSnapshot {
  const get = headerGetter(headers);
  const snapshot: RateLimitSnapshot = {};
  let inconsistent = false;
  /** The first of `names` that was sent, as a count; a header sent but not a count is a lie noted. */
  const countOf = (...names: string[]): number | undefined => {
    for (const name of names) {
      const raw = get(name);
      if (raw === null) continue;
      const n = count(raw);
      if (n === undefined) inconsistent = true;
      return n;
    }
    return undefined;
  };
  const set = <K extends keyof RateLimitSnapshot>(key: K, value: RateLimitSnapshot[K] | undefined) => {
    if (value !== undefined) snapshot[key] = value;
  };
  let limitRequests = countOf('x-ratelimit-limit-requests', 'anthropic-ratelimit-requests-limit');
  let remainingRequests = countOf('x-ratelimit-remaining-requests', 'anthropic-ratelimit-requests-remaining');
  let limitTokens = countOf('x-ratelimit-limit-tokens', 'anthropic-ratelimit-tokens-limit', 'anthropic-ratelimit-input-tokens-limit');
  let remainingTokens = countOf('x-ratelimit-remaining-tokens', 'anthropic-ratelimit-tokens-remaining', 'anthropic-ratelimit-input-tokens-remaining');
  if (limitRequests !== undefined && remainingRequests !== undefined && remainingRequests > limitRequests) {
    inconsistent = true;
    limitRequests = remainingRequests = undefined;
  }
  if (limitTokens !== undefined && remainingTokens !== undefined && remainingTokens > limitTokens) {
    inconsistent = true;
    limitTokens = remainingTokens = undefined;
  }
  set('limitRequests', limitRequests);
  set('remainingRequests', remainingRequests);
  set('resetRequestsMs', resetMs(get('x-ratelimit-reset-requests') ?? get('anthropic-ratelimit-requests-reset'), now));
  set('limitTokens', limitTokens);
  set('remainingTokens', remainingTokens);
  set('resetTokensMs', resetMs(get('x-ratelimit-reset-tokens') ?? get('anthropic-ratelimit-tokens-reset') ?? get('anthropic-ratelimit-input-tokens-reset'), now));
  const ms = count(get('retry-after-ms'));
  if (ms !== undefined) snapshot.retryAfterMs = ms;
  else {
    const after = get('retry-after');
    const seconds = count(after);
    if (seconds !== undefined) snapshot.retryAfterMs = seconds * 1000;
    else if (after !== null && !Number.isNaN(Date.parse(after))) snapshot.retryAfterMs = Math.max(0, Date.parse(after) - now);
  }
  if (inconsistent) snapshot.inconsistent = true;
  return snapshot;
}

export interface SchedulerOptions {
  /** Requests in flight at the start: `performance.max_concurrent_files`. */
  concurrency: number;
  /** The ceiling of growth: `llm.adaptive_concurrency_max` (64 by default); `concurrency` keeps it fixed. */
  maxConcurrency: number;
  /** Milliseconds each slot rests after its request: `llm.request_delay`. */
  pauseMs: number;
  requestsPerMinute?: number | null;
  tokensPerMinute?: number | null;
  /** Milliseconds every new request waits after a 429 that names no wait (no headers at all). */
  fallbackPauseMs: number;
  now?: () => number;
}

export interface SchedulerStats {
  /** The concurrency now (slots, rounded down). */
  concurrency: number;
  lowestConcurrency: number;
  highestConcurrency: number;
  rateLimited: number;
  /** Setbacks other than a 429 that shrank the concurrency: dropped connections, timeouts, overload. */
  fallbacks: number;
  /** Whether the provider's headers contradicted themselves, so growth stopped for the run. */
  distrusted: boolean;
  /** The concurrency after each change, in order (the first TRACE_LENGTH changes). */
  trace: number[];
  /** Milliseconds new requests spent waiting for a budget, a pause or a cap. */
  pacedMs: number;
}

/** A request as the scheduler sees it: its estimated tokens, and the headers of its answer. */
export interface ScheduledResult<T> {
  value: T;
  rateLimits?: RateLimitSnapshot | undefined;
}

const WINDOW_MS = 60_000;
/** The share of an announced per-minute limit we pace at: the rest absorbs clock skew between us and the server. */
const PACE_SHARE = 0.97;
/** Concurrency grows while the headers leave requests and tokens for this many rounds with one more slot. */
const HEADROOM_ROUNDS = 2;
/** Statuses of a server overwhelmed rather than limiting us: what grew past the start is given back. */
const OVERLOAD_STATUS = new Set([502, 503, 504, 529]);
const TRACE_LENGTH = 256;

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

export class RequestScheduler {
  private limit: number;
  private held = 0;
  private readonly waiters: Array<() => void> = [];
  private readonly freeListeners = new Set<() => void>();
  private readonly now: () => number;
  /** No request starts before this time (a retry-after, or a provider budget at zero). */
  private pauseUntil = 0;
  /** Requests the provider still allows, counted down as we start them; undefined when it never said. */
  private requestBudget: number | undefined;
  private tokenBudget: number | undefined;
  private requestsResetAt = 0;
  private tokensResetAt = 0;
  private nextStart = 0;
  /** Per-minute limits the provider announced. */
  private announcedRpm: number | undefined;
  private announcedTpm: number | undefined;
  private readonly tokenLog: Array<{ at: number; tokens: number }> = [];
  /** Requests started after this time may shrink the concurrency again: one decrease per round trip. */
  private lastDecreaseAt = -Infinity;
  /** Growth by a slot per success until the first setback, then by a slot per round trip. */
  private slowStart = true;
  /** Set once the headers contradicted themselves: they no longer justify growth. */
  private distrusted = false;
  /** Running mean of the estimated tokens of a request, to judge the token headroom by. */
  private meanTokens = 0;
  private started = 0;
  /** Running mean of a successful request's round trip, in milliseconds, and how many it is taken over. */
  private meanLatencyMs = 0;
  private answered = 0;
  readonly stats: SchedulerStats;

  constructor(private readonly options: SchedulerOptions) {
    this.limit = Math.max(1, options.concurrency);
    this.now = options.now ?? Date.now;
    this.stats = { concurrency: Math.floor(this.limit), lowestConcurrency: Math.floor(this.limit), highestConcurrency: Math.floor(this.limit), rateLimited: 0, fallbacks: 0, distrusted: false, trace: [], pacedMs: 0 };
  }

  /** Slots now: how many requests may be in flight at once. */
  get capacity(): number {
    return Math.max(1, Math.floor(this.limit));
  }

  /** Called whenever a slot frees, so a caller that forms work per slot (the packer) can form more. */
  onFree(listener: () => void): () => void {
    this.freeListeners.add(listener);
    return () => this.freeListeners.delete(listener);
  }

  /**
   * Runs one request when a slot is free and the budgets allow, and learns from its outcome. The result is
   * returned at once; the slot rests for `request_delay` before the next request takes it.
   */
  async run<T>(task: () => Promise<ScheduledResult<T>>, estimatedTokens: number, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    let startedAt: number;
    try {
      await this.pace(estimatedTokens, signal);
      startedAt = this.now();
    } catch (error) {
      this.release(0);
      throw error;
    }
    try {
      const result = await task();
      this.answered++;
      this.meanLatencyMs += (this.now() - startedAt - this.meanLatencyMs) / this.answered;
      this.learn(result.rateLimits, true, startedAt);
      return result.value;
    } catch (error) {
      this.learnFromError(error, startedAt);
      throw error;
    } finally {
      this.release(this.options.pauseMs);
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (this.held < this.capacity && this.waiters.length === 0) {
      this.held++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = () => {
        signal?.removeEventListener('abort', onAbort);
        this.held++;
        resolve();
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(entry);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(entry);
    });
  }

  private release(afterMs: number): void {
    const free = () => {
      this.held--;
      this.drain();
      for (const listener of this.freeListeners) listener();
    };
    // Not unref'd: a request waiting for this slot may be all that is left of the run.
    if (afterMs > 0) setTimeout(free, afterMs);
    else free();
  }

  private drain(): void {
    while (this.held < this.capacity && this.waiters.length > 0) this.waiters.shift()?.();
  }

  /** Waits until every budget and pause allows one more request, then books it. */
  private async pace(tokens: number, signal?: AbortSignal): Promise<void> {
    const started = this.now();
    for (;;) {
      const wait = this.waitFor(tokens);
      if (wait <= 0) break;
      // Re-check at least every quarter second: a response meanwhile may bring a new budget.
      await sleep(Math.min(wait, 250), undefined, signal ? { signal } : undefined);
    }
    const now = this.now();
    this.stats.pacedMs += now - started;
    this.started++;
    this.meanTokens += (tokens - this.meanTokens) / this.started;
    const rpm = this.rpm();
    if (rpm) this.nextStart = Math.max(now, this.nextStart) + WINDOW_MS / rpm;
    if (this.requestBudget !== undefined) this.requestBudget--;
    if (this.tokenBudget !== undefined) this.tokenBudget -= tokens;
    if (this.tpm()) this.tokenLog.push({ at: now, tokens });
  }

  /** Milliseconds until this request may start; 0 means now. */
  private waitFor(tokens: number): number {
    const now = this.now();
    let wait = this.pauseUntil - now;
    if (this.rpm()) wait = Math.max(wait, this.nextStart - now);
    if (this.requestBudget !== undefined && this.requestBudget <= 0) {
      // Past the reset, one request probes and its answer brings the new budget.
      if (now < this.requestsResetAt) wait = Math.max(wait, this.requestsResetAt - now);
      else this.requestBudget = 1;
    }
    if (this.tokenBudget !== undefined && this.tokenBudget < tokens) {
      if (now < this.tokensResetAt) wait = Math.max(wait, this.tokensResetAt - now);
      else this.tokenBudget = undefined;
    }
    const tpm = this.tpm();
    if (tpm) {
      while (this.tokenLog.length > 0 && (this.tokenLog[0]?.at ?? 0) <= now - WINDOW_MS) this.tokenLog.shift();
      let used = this.tokenLog.reduce((sum, e) => sum + e.tokens, 0);
      // A request larger than the whole cap would never fit: it waits only for an empty window.
      const need = Math.min(tokens, tpm);
      for (const entry of this.tokenLog) {
        if (used + need <= tpm) break;
        used -= entry.tokens;
        wait = Math.max(wait, entry.at + WINDOW_MS - now);
      }
    }
    return wait;
  }

  /** Requests a minute to pace at: our cap, or just under the provider's announced limit, whichever is lower. */
  private rpm(): number | undefined {
    const announced = this.announcedRpm !== undefined ? this.announcedRpm * PACE_SHARE : undefined;
    return minDefined(this.options.requestsPerMinute ?? undefined, announced);
  }

  private tpm(): number | undefined {
    const announced = this.announcedTpm !== undefined ? this.announcedTpm * PACE_SHARE : undefined;
    return minDefined(this.options.tokensPerMinute ?? undefined, announced);
  }

  private learn(limits: RateLimitSnapshot | undefined, ok: boolean, startedAt: number): void {
    const now = this.now();
    if (limits?.inconsistent) this.distrust();
    if (limits) {
      if (limits.limitRequests !== undefined && limits.limitRequests > 0) this.announcedRpm = limits.limitRequests;
      if (limits.limitTokens !== undefined && limits.limitTokens > 0) this.announcedTpm = limits.limitTokens;
      if (limits.remainingRequests !== undefined) this.requestBudget = limits.remainingRequests;
      if (limits.remainingTokens !== undefined) this.tokenBudget = limits.remainingTokens;
      // Without a reset time an exhausted budget is probed again after the fallback pause.
      if (limits.remainingRequests !== undefined) this.requestsResetAt = now + (limits.resetRequestsMs ?? this.options.fallbackPauseMs);
      if (limits.remainingTokens !== undefined) this.tokensResetAt = now + (limits.resetTokensMs ?? this.options.fallbackPauseMs);
    }
    if (!ok || this.distrusted || !this.showsHeadroom(limits)) return;
    // Slots the run leaves idle prove nothing about the provider: grow only when every slot is taken.
    const saturated = this.held >= this.capacity || this.waiters.length > 0;
    if (saturated && startedAt > this.lastDecreaseAt && this.limit < this.options.maxConcurrency) {
      const fast = this.slowStart || ample(limits);
      // Fast growth doubles at once up to what the announced per-minute limits sustain at the measured round
      // trip (Little's law), and takes a slot per success past that: a short run may spend the minute's budget
      // faster than it refills, as long as the remaining counts show room (showsHeadroom).
      const sustained = this.sustainable() ?? 0;
      const step = fast ? Math.max(1, Math.min(this.limit, sustained - this.limit)) : 1 / this.limit;
      this.limit = Math.min(this.options.maxConcurrency, this.limit + step);
      this.noteConcurrency();
      this.drain();
    }
  }

  /**
   * Whether an answer's headers leave room for one more request in flight: requests, and tokens at the mean
   * request's estimate, for HEADROOM_ROUNDS more rounds. Headers that say nothing show no headroom.
   */
  private showsHeadroom(limits: RateLimitSnapshot | undefined): boolean {
    if (!limits || (limits.remainingRequests === undefined && limits.remainingTokens === undefined)) return false;
    const slots = this.capacity + 1;
    if (limits.remainingRequests !== undefined && limits.remainingRequests < HEADROOM_ROUNDS * slots) return false;
    if (limits.remainingTokens !== undefined && limits.remainingTokens < HEADROOM_ROUNDS * slots * this.meanTokens) return false;
    return true;
  }

  /**
   * Requests in flight that the announced per-minute limits sustain (paced just under them) when each takes
   * the mean round trip so far; undefined before an answer or without an announced limit.
   */
  private sustainable(): number | undefined {
    const rpm = this.rpm();
    const tpm = this.tpm();
    const perMinute = minDefined(rpm, tpm !== undefined && this.meanTokens > 0 ? tpm / this.meanTokens : undefined);
    if (perMinute === undefined || this.answered === 0) return undefined;
    return Math.floor((perMinute * this.meanLatencyMs) / WINDOW_MS);
  }

  /** Headers that lie justify nothing: no more growth, and back to the configured concurrency. */
  private distrust(): void {
    if (this.distrusted) return;
    this.distrusted = true;
    this.stats.distrusted = true;
    this.slowStart = false;
    if (this.limit > this.options.concurrency) {
      this.limit = Math.max(1, this.options.concurrency);
      this.noteConcurrency();
    }
  }

  private learnFromError(error: unknown, startedAt: number): void {
    const headers = (error as { headers?: HeaderSource } | null)?.headers;
    const limits = readRateLimits(headers, this.now());
    const status = statusOf(error);
    this.learn(limits, false, startedAt);
    if (status !== 429) {
      const overwhelmed = status === undefined ? !(error instanceof InvalidAnswerError) && isRetryable(error) : OVERLOAD_STATUS.has(status);
      if (overwhelmed) this.fallBack(startedAt);
      return;
    }
    this.stats.rateLimited++;
    const now = this.now();
    const wait = limits.retryAfterMs ?? (limits.remainingRequests === 0 || limits.remainingTokens === 0 ? undefined : this.options.fallbackPauseMs);
    if (wait !== undefined) this.pauseUntil = Math.max(this.pauseUntil, now + wait);
    this.slowStart = false;
    if (startedAt > this.lastDecreaseAt) {
      this.limit = Math.max(1, this.limit / 2);
      this.lastDecreaseAt = now;
      this.noteConcurrency();
    }
  }

  /**
   * A dropped connection, a timeout or an overloaded server: concurrency grown past the start is halved (once
   * per round trip), never below the start, since the provider's limits were not what refused the request.
   */
  private fallBack(startedAt: number): void {
    this.slowStart = false;
    if (startedAt <= this.lastDecreaseAt || this.limit <= this.options.concurrency) return;
    this.limit = Math.max(this.options.concurrency, this.limit / 2);
    this.lastDecreaseAt = this.now();
    this.stats.fallbacks++;
    this.noteConcurrency();
  }

  private noteConcurrency(): void {
    const c = this.capacity;
    if (c !== this.stats.concurrency && this.stats.trace.length < TRACE_LENGTH) this.stats.trace.push(c);
    this.stats.concurrency = c;
    this.stats.lowestConcurrency = Math.min(this.stats.lowestConcurrency, c);
    this.stats.highestConcurrency = Math.max(this.stats.highestConcurrency, c);
  }
}

/** Whether the provider has at least half of each announced limit left: room to grow fast again after a setback. */
function ample(limits: RateLimitSnapshot | undefined): boolean {
  if (!limits) return false;
  const pairs = [
    [limits.remainingRequests, limits.limitRequests],
    [limits.remainingTokens, limits.limitTokens],
  ].filter((pair): pair is [number, number] => pair[0] !== undefined && pair[1] !== undefined);
  return pairs.length > 0 && pairs.every(([remaining, limit]) => remaining >= limit / 2);
}
