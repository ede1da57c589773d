/**
 * `coderag index` with a model that leaves room, or answers imperfectly, as a user runs it: the built CLI,
 * keys and base URL from the environment, the fake server on 127.0.0.1 behind the real openai SDK.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { rewriteEntries, startFakeLlmServer, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir } from '../support/tempRepo.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');
const KEY = 'sk-cli-test-0123456789abcdefghij';
let server: FakeLlmServer;

beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 5 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.configure({ latencyMs: 0, faults: {}, respond: undefined, rateLimit: null });
  server.resetStats();
});

function env(): NodeJS.ProcessEnv {
  return { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.openaiBaseUrl, CODERAG_CACHE_DIR: makeTempDir('coderag-cache-') };
}

function configWith(yaml: string): string {
  const file = path.join(makeTempDir(), 'indexer_config.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('coderag index with a model', () => {
  it('keeps the static profile of a file whose answer stays unusable, exits 0 and counts it in the closing line and the --json summary', async () => {
    rewriteEntries(server, (entry, path) => {
      if (path === 'lib/tax.rb') delete entry.summary;
    });
    const out = makeTempDir();
    const config = configWith('llm:\n  request_delay: 0\n  retry_delay: 0.01\n  max_retries: 1\n');
    const result = await runCli(['index', fixture, '--out', out, '--config', config, '--json'], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/26 files indexed/);
    expect(result.stderr).toContain('1 kept their static profile (answers unusable)');
    const [repo] = JSON.parse(result.stdout).repositories;
    expect(repo).toMatchObject({ llm_answered_files: 25, llm_unusable_files: 1, relationships_outside_target: 0 });
    // The answer tokens the fake server wrote, over the 25 files whose answers were used.
    const perFile = Math.round(server.stats.completionTokens / 25);
    expect(perFile).toBeGreaterThan(0);
    expect(result.stderr).toContain(`(${perFile} answer tokens a file)`);
    expect(repo.answer_tokens_per_file).toBe(perFile);
    expect(result.stderr).not.toMatch(/failed/);
    const index = JSON.parse(readFileSync(path.join(out, 'polyglot_index.json'), 'utf8'));
    const tax = index.file_summaries.find((f: { file_path: string }) => f.file_path === 'lib/tax.rb');
    expect(tax).toMatchObject({ status: 'ok', profile_source: 'static' });
    expect(tax.reason).toMatch(/^llm_unusable: /);
  });

  it('reports relationships dropped for targets outside the structure in the closing line and the --json summary', async () => {
    server.configure({
      respond: (req) => {
        const answer = req.sample() as { files?: Array<Record<string, unknown>> };
        for (const entry of answer.files ?? []) {
          entry.related = ['Node.js', './src/cache/ttl_cache.ts'].map((to) => ({ to, type: 'reference', confidence: 0.9, aspects: [], contributions: [], usage: '' }));
        }
        return answer;
      },
    });
    const target = path.join(makeTempDir(), 'plan.txt');
    writeFileSync(target, 'src/cache/ttl_cache.ts\nsrc/http/router.ts\n');
    const config = configWith('llm:\n  request_delay: 0\n');
    const result = await runCli(['index', fixture, '--out', makeTempDir(), '--config', config, '--target-structure', target, '--json'], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('26 relationships (26 outside the target structure dropped)');
    expect(JSON.parse(result.stdout).repositories[0]).toMatchObject({ total_relationships: 26, relationships_outside_target: 26, llm_unusable_files: 0 });
  });

  it('grows requests in flight past the default under a tier\'s headers, and --concurrency fixes the number', async () => {
    server.configure({ latencyMs: 150, rateLimit: { requestsPerMinute: 5000, tokensPerMinute: 2_000_000 } });
    const config = configWith('llm:\n  request_delay: 0\n  pack_max_files: 1\n');
    const grown = await runCli(['index', fixture, '--out', makeTempDir(), '--config', config], { env: env() });
    expect(grown.code).toBe(0);
    expect(server.stats.maxInFlight).toBeGreaterThan(5);
    server.resetStats();
    const fixed = await runCli(['index', fixture, '--out', makeTempDir(), '--config', config, '--concurrency', '3'], { env: env() });
    expect(fixed.code).toBe(0);
    expect(server.stats.maxInFlight).toBeLessThanOrEqual(3);
  });
});
