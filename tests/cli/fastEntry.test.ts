/**
 * The file npm links as `coderag` is a small CommonJS file that runs a plain search from the CommonJS search bundle
 * beside it (with V8's compile cache), so a cold search never starts Node's ES module loader; every other command
 * line it hands to the ES module bundle. Both entries must answer alike.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, ESM_CLI, runCli, runNode } from '../support/cli.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

const FILES: Record<string, string> = {
  'src/cache/lruCache.ts': 'import { now } from "../clock";\n\n/** A least-recently-used cache whose entries expire after a time to live. */\nexport class LruCache<V> {\n  private entries = new Map<string, { value: V; expires: number }>();\n  constructor(private ttlMs: number) {}\n}\n',
  'src/clock.ts': '/** The current time in milliseconds. */\nexport function now(): number {\n  return Date.now();\n}\n',
  'src/http/server.py': 'def serve(port):\n    """Serve the app on a port."""\n    return port\n',
};

/**
 * An ES module hook that appends each of the CLI's bundle files Node's ES module loader loads to the file named by
 * $LOADED. CommonJS requires do not pass through it.
 */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.includes('/dist/bin/')) appendFileSync(process.env.LOADED, url.slice(url.lastIndexOf('/') + 1) + '\\n');
  return next(url, context);
}`;

describe('the coderag command file', () => {
  let indexes: string;
  let register: string;

  beforeAll(async () => {
    const repo = makeTempRepo(FILES, { git: true, name: 'demo' });
    indexes = makeTempDir();
    const indexed = await runCli(['index', repo.root, '--out', indexes, '--quiet'], { timeoutMs: 30_000 });
    expect(indexed.code).toBe(0);
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'hooks.mjs'), HOOKS);
    register = path.join(dir, 'register.mjs');
    writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(new URL(`file://${path.join(dir, 'hooks.mjs')}`).href)});\n`);
  }, 60_000);

  /** The bundle files the ES module loader loaded while `args` ran through the command file. */
  async function loadedBy(args: string[]): Promise<{ code: number | null; loaded: string[] }> {
    const log = path.join(makeTempDir(), 'loaded.txt');
    writeFileSync(log, '');
    const result = await runNode(['--import', register, CLI, ...args], { env: { LOADED: log } });
    return { code: result.code, loaded: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
  }

  it('is the CommonJS bundle npm links, a script that starts node itself', () => {
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { bin: { coderag: string } };
    expect(path.resolve(import.meta.dirname, '../..', pkg.bin.coderag)).toBe(CLI);
    expect(readFileSync(CLI, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it('answers a plain search without loading any ES module of the bundle', async () => {
    const { code, loaded } = await loadedBy(['search', '--indexes', indexes, '--keywords', 'cache,ttl', '--json']);
    expect(code).toBe(0);
    // With a hook registered, Node passes the entry itself through the loader too: only it may be there.
    expect(loaded.filter((file) => file !== 'coderag.cjs')).toEqual([]);
  });

  it('hands every other command line to the ES module bundle', async () => {
    for (const args of [['--version'], ['search', '--help']]) {
      const { code, loaded } = await loadedBy(args);
      expect(code, args.join(' ')).toBe(0);
      expect(loaded, args.join(' ')).toContain('coderag.js');
    }
  });

  it("keeps the search's compiled code in the user's cache folder and answers the same from it", async () => {
    const cacheHome = makeTempDir();
    const args = ['search', '--indexes', indexes, '--query', 'the cache entries expire too early after the ttl', '--json'];
    const first = await runCli(args, { env: { XDG_CACHE_HOME: cacheHome } });
    const cacheDir = path.join(cacheHome, 'coderag');
    const [cacheFile] = readdirSync(cacheDir);
    expect(cacheFile).toMatch(/^search-[0-9a-f]{16}\.v8$/);
    const saved = statSync(path.join(cacheDir, cacheFile!));
    const second = await runCli(args, { env: { XDG_CACHE_HOME: cacheHome } });
    expect(second).toEqual(first);
    expect(first.code).toBe(0);
    // Taken, not refused: a refused cache is written again, as a new file renamed over the old.
    expect(statSync(path.join(cacheDir, cacheFile!)).ino).toBe(saved.ino);
    expect(readdirSync(cacheDir)).toEqual([cacheFile]);
  });

  it('writes no compile cache when CODERAG_NO_COMPILE_CACHE is 1, and answers alike', async () => {
    const cacheHome = makeTempDir();
    const args = ['search', '--indexes', indexes, '--keywords', 'cache,ttl', '--json'];
    const off = await runCli(args, { env: { XDG_CACHE_HOME: cacheHome, CODERAG_NO_COMPILE_CACHE: '1' } });
    expect(existsSync(path.join(cacheHome, 'coderag'))).toBe(false);
    expect(off).toEqual(await runCli(args));
  });

  it('gives the same answers, messages and exit codes as the ES module bundle', async () => {
    const cases = [
      ['search', '--indexes', indexes, '--keywords', 'cache,ttl', '--json'],
      ['search', '--indexes', indexes, '--target', 'ttlCache.ts', '--keywords', 'cache'],
      ['search', '--indexes', indexes, '--query', 'Serve the app on a port, and the cache entries expire too early after the ttl', '--granularity', 'symbol', '--json'],
      ['search', '--indexes', path.join(indexes, 'missing'), '--keywords', 'cache'],
      ['search', '--indexes', indexes, '--max-results', 'none'],
      ['--version'],
    ];
    for (const args of cases) {
      const [fast, esm] = await Promise.all([runCli(args), runNode([ESM_CLI, ...args])]);
      expect(fast, args.join(' ')).toEqual(esm);
    }
  });
});
