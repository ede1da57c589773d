import { describe, expect, it } from 'vitest';
import { RequestLimiter } from '../../src/serve/limits.js';
import { bearerToken, parseTokens, sha256Hex, TokenTable } from '../../src/serve/tokens.js';

describe('the tokens file', () => {
  it('reads hashes with their repositories, skips comments, and names a bad line by number only', () => {
    const text = ['# team tokens', `${sha256Hex('a')} *`, `${sha256Hex('b')} alpha,beta  # two repos`, 'secret-token-pasted-by-mistake alpha', ''].join('\n');
    const { entries, problems } = parseTokens(text);
    expect(entries.map((e) => (e.scope.all ? '*' : [...e.scope.repos].join(',')))).toEqual(['*', 'alpha,beta']);
    expect(problems).toEqual(['line 4: expected the token\'s SHA-256 as 64 hex digits first']);
    const table = new TokenTable(entries);
    expect(table.lookup('b')?.scope).toEqual({ all: false, repos: new Set(['alpha', 'beta']) });
    expect(table.lookup('c')).toBeUndefined();
    expect(table.lookup('')).toBeUndefined();
  });

  it('takes a token from "Authorization: Bearer <token>" only', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

describe('the per-token limiter', () => {
  it('lets a burst through, then refuses with the seconds to wait until the bucket refills', () => {
    let now = 0;
    const limiter = new RequestLimiter({ ratePerSecond: 2, burst: 2, maxConcurrent: 10, now: () => now });
    const first = limiter.admit('t');
    const second = limiter.admit('t');
    expect([first.ok, second.ok]).toEqual([true, true]);
    expect(limiter.admit('t')).toEqual({ ok: false, retryAfterSeconds: 1, reason: 'rate' });
    expect(limiter.admit('other').ok).toBe(true);
    now = 500;
    expect(limiter.admit('t').ok).toBe(true);
  });

  it('refuses a token\'s request beyond its concurrency until one ends, and forgets idle tokens', () => {
    let now = 0;
    const limiter = new RequestLimiter({ ratePerSecond: 100, burst: 100, maxConcurrent: 2, now: () => now });
    const a = limiter.admit('t');
    const b = limiter.admit('t');
    expect(limiter.admit('t')).toMatchObject({ ok: false, reason: 'concurrency' });
    if (a.ok) a.release();
    const c = limiter.admit('t');
    expect(c.ok).toBe(true);
    now = 10_000;
    if (b.ok) b.release();
    expect(limiter.size).toBe(1);
    if (c.ok) c.release();
    expect(limiter.size).toBe(0);
  });
});
