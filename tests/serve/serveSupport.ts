/**
 * What the serve tests share: two small repositories indexed by the real `coderag index` (built CLI), a tokens
 * file, and a server started in this process on 127.0.0.1 with limits a test can reach.
 */
import { cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../support/cli.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';
import { sha256Hex } from '../../src/serve/tokens.js';
import { startServe, type RunningServe, type ServeOptions } from '../../src/serve/serve.js';

export const ALPHA_FILES = {
  'src/cache/lruCache.ts': [
    '/** A least-recently-used cache whose entries expire after a time to live. */',
    'export class LruCache<V> {',
    '  private readonly entries = new Map<string, { value: V; expires: number }>();',
    '  constructor(private readonly ttlMs: number) {}',
    '  get(key: string): V | undefined {',
    '    const entry = this.entries.get(key);',
    '    if (!entry || entry.expires < Date.now()) return undefined;',
    '    return entry.value;',
    '  }',
    '  set(key: string, value: V): void {',
    '    this.entries.set(key, { value, expires: Date.now() + this.ttlMs });',
    '  }',
    '}',
    '',
  ].join('\n'),
  'src/cache/evict.ts': 'import { LruCache } from "./lruCache";\n\n/** Evicts the expired entries of a cache. */\nexport function evictExpired(cache: LruCache<unknown>): number {\n  return 0;\n}\n',
};

export const BETA_FILES = {
  'src/limiter/tokenBucket.ts': [
    '/** A token bucket rate limiter: refills at a steady rate, takes one token a request. */',
    'export function takeToken(bucket: { tokens: number }): boolean {',
    '  if (bucket.tokens < 1) return false;',
    '  bucket.tokens -= 1;',
    '  return true;',
    '}',
    '',
    'export function refillBucket(bucket: { tokens: number }, rate: number): void {',
    '  bucket.tokens += rate;',
    '}',
    '',
  ].join('\n'),
};

/** Indexes `alpha` (a TTL cache) and `beta` (a rate limiter) into one folder with the built CLI. */
export async function buildIndexes(): Promise<string> {
  const out = makeTempDir('coderag-serve-indexes-');
  for (const [name, files] of [['alpha', ALPHA_FILES], ['beta', BETA_FILES]] as const) {
    const repo = makeTempRepo(files, { name });
    const result = await runCli(['index', repo.root, '--out', out, '-q']);
    if (result.code !== 0) throw new Error(`coderag index ${name} failed: ${result.stderr}`);
  }
  return out;
}

/** A copy of a folder of indexes, so a test may change it. */
export function copyIndexes(dir: string): string {
  const copy = makeTempDir('coderag-serve-copy-');
  cpSync(dir, copy, { recursive: true, preserveTimestamps: true });
  return copy;
}

export const TOKENS = { all: 'tok-all-0123456789', alpha: 'tok-alpha-0123456789', beta: 'tok-beta-0123456789' } as const;

export function writeTokens(lines: string[] = [`${sha256Hex(TOKENS.all)} *`, `${sha256Hex(TOKENS.alpha)} alpha   # alpha only`]): string {
  const file = path.join(makeTempDir('coderag-serve-tokens-'), 'tokens');
  writeFileSync(file, `# hashed tokens\n${lines.join('\n')}\n`);
  return file;
}

export interface TestServer extends RunningServe {
  logs: string[];
}

const running: TestServer[] = [];

export async function serve(options: Partial<ServeOptions> & { dir: string }): Promise<TestServer> {
  const logs: string[] = [];
  const server = await startServe({ host: '127.0.0.1', port: 0, settleMs: 50, pollMs: 0, log: (line) => logs.push(line), ...options });
  const test = Object.assign(server, { logs });
  running.push(test);
  return test;
}

export async function closeServers(): Promise<void> {
  for (const server of running.splice(0)) await server.close();
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** Waits until `check` holds, polling; fails after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
