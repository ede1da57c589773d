/**
 * `coderag index` with a model, as a user runs it: the built CLI, keys and base URL from the environment,
 * the fake server on 127.0.0.1 behind the real SDK.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir } from '../support/tempRepo.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');
const KEY = 'sk-cli-test-0123456789abcdefghij';
let server: FakeLlmServer;

beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 3 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.configure({ latencyMs: 0, faults: {} });
  server.resetStats();
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.openaiBaseUrl, CODERAG_CACHE_DIR: makeTempDir('coderag-cache-'), ...extra };
}

function configWith(yaml: string): string {
  const file = path.join(makeTempDir(), 'indexer_config.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('coderag index with a model', () => {
  it('says which provider it chose and reports calls, tokens and relationships', async () => {
    const out = makeTempDir();
    const target = path.join(makeTempDir(), 'plan.txt');
    writeFileSync(target, 'src/cache/ttl_cache.ts\nsrc/http/router.ts\n');
    const config = configWith('llm:\n  request_delay: 0\n');
    const result = await runCli(['index', fixture, '--out', out, '--config', config, '--target-structure', target], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`profiles: openai gpt-4o-mini at ${server.openaiBaseUrl} (auto: OPENAI_API_KEY is set)`);
    // 26 files, packed several to a call.
    const calls = Number(/openai gpt-4o-mini: (\d+) calls, 0 retries, 0 cache hits, \d+ prompt \+ \d+ completion tokens \(\d+ answer tokens a file\), \d+ relationships/.exec(result.stderr)?.[1]);
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(26);
    expect(result.stderr).not.toContain(KEY);
    const index = JSON.parse(readFileSync(path.join(out, 'polyglot_index.json'), 'utf8'));
    expect(index.analysis_metadata).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', llm_calls: calls });
    expect(JSON.stringify(index)).not.toContain(KEY);
  });

  it('stops at once with a clear message on an invalid key, without printing it', async () => {
    server.configure({ faults: { unauthorized: 1 } });
    const started = Date.now();
    const result = await runCli(['index', fixture, '--out', makeTempDir()], { env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error: openai refused the request \(401\)/);
    expect(result.stderr).toContain('hint: check the API key in the environment');
    expect(result.stderr).not.toContain(KEY);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('exits 130 on Ctrl+C, aborting requests in flight and keeping finished profiles in the cache', async () => {
    server.configure({ latencyMs: 1500 });
    const cacheDir = makeTempDir('coderag-cache-');
    const out = makeTempDir();
    const started = Date.now();
    const result = await runCli(['index', fixture, '--out', out, '--config', configWith('llm:\n  request_delay: 0\nperformance:\n  max_concurrent_files: 2\n')], {
      env: env({ CODERAG_CACHE_DIR: cacheDir }),
      onSpawn: (child) => {
        const poll = setInterval(() => {
          // Once two answers have come back and more are in flight, interrupt.
          if ((server.stats.byOutcome.ok ?? 0) >= 2 && server.stats.inFlight > 0) {
            clearInterval(poll);
            child.kill('SIGINT');
          }
        }, 20);
      },
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupted');
    expect(Date.now() - started).toBeLessThan(15_000);
    const cached = (await import('fast-glob')).default.sync('**/*.json', { cwd: cacheDir });
    expect(cached.length).toBeGreaterThanOrEqual(2);
  });

  it('refuses --focus without a model, rather than ignoring it', async () => {
    const result = await runCli(['index', fixture, '--out', makeTempDir(), '--focus', 'caching']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: --focus needs a model');
  });

  it('relates files to a --target-structure without a model, and warns when it names no file', async () => {
    const out = makeTempDir();
    const result = await runCli(['index', fixture, '--out', out, '--target-structure', configWith('just prose, no paths\n')]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: the target structure names no file: no relationships are inferred');
    // Nor does the index claim relationships were inferred from it.
    const index = JSON.parse(readFileSync(path.join(out, readdirSync(out).find((f) => f.endsWith('_index.json')) as string), 'utf8'));
    expect(index.relationships).toEqual([]);
    expect(index.analysis_metadata.relationships_source).toBeUndefined();
  });

  it('warns that model-only settings from the config are ignored in an offline run', async () => {
    const config = configWith('file_analysis:\n  enable_pre_filtering: true\n');
    const result = await runCli(['index', fixture, '--out', makeTempDir(), '--config', config]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: file_analysis.enable_pre_filtering needs a model; ignored in this offline run');
  });
});
