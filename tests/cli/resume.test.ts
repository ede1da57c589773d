/**
 * Resumable after kill -9, at any point: the built CLI is killed mid-run against the fake server; the index
 * on disk is still the last complete one, and the re-run repeats at most the model calls that were in flight.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { copyFixture } from '../support/reuseRuns.js';
import { makeTempDir } from '../support/tempRepo.js';

const KEY = 'sk-resume-test-0123456789abcdefghij';
const FILES = 26;
const CONCURRENCY = 2;
let server: FakeLlmServer;

beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 5 });
});
afterAll(() => server.close());

describe('coderag index killed with SIGKILL', () => {
  it('leaves the last complete index on disk, and the re-run repeats only the calls that were in flight', async () => {
    const repo = path.join(makeTempDir(), 'poly');
    copyFixture(repo);
    const out = makeTempDir();
    const config = path.join(makeTempDir(), 'indexer_config.yaml');
    writeFileSync(config, `llm:\n  request_delay: 0\n  pack_max_files: 1\nperformance:\n  max_concurrent_files: ${CONCURRENCY}\n`);
    const env = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.openaiBaseUrl, CODERAG_CACHE_DIR: makeTempDir('coderag-cache-') };
    const args = ['index', repo, '--out', out, '--config', config];
    const indexFile = path.join(out, 'poly_index.json');

    server.configure({ latencyMs: 0 });
    expect((await runCli(args, { env })).code).toBe(0);
    const complete = readFileSync(indexFile);

    // A new focus changes every answer: the next run has a model call to make for each file (one file a call, so
    // calls in flight and files in flight are the same count).
    server.configure({ latencyMs: 120 });
    server.resetStats();
    const killed = await runCli([...args, '--focus', 'expiry'], {
      env,
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if ((server.stats.byOutcome.ok ?? 0) >= 8 && server.stats.inFlight > 0) {
            clearInterval(poll);
            child.kill('SIGKILL');
          }
        }, 5);
      },
    });
    expect(killed.code).toBeNull();
    const answered = server.stats.byOutcome.ok ?? 0;
    expect(answered).toBeGreaterThanOrEqual(8);
    expect(answered).toBeLessThan(FILES);
    expect(readFileSync(indexFile).equals(complete)).toBe(true);
    // The killed run's fragment of finished entries is still there; the next run deletes it.
    expect(readdirSync(out).some((name) => name.endsWith('.fragment'))).toBe(true);

    server.configure({ latencyMs: 0 });
    server.resetStats();
    const resumed = await runCli([...args, '--focus', 'expiry'], { env });
    expect(resumed.code).toBe(0);
    expect(readdirSync(out).filter((name) => name.endsWith('.fragment') || name.endsWith('.tmp'))).toEqual([]);
    const repeated = server.stats.byOutcome.ok ?? 0;
    expect(repeated).toBeLessThanOrEqual(FILES - answered + CONCURRENCY);
    const index = JSON.parse(readFileSync(indexFile, 'utf8'));
    expect(index.total_files).toBe(FILES);
    expect(index.analysis_metadata.focus).toBe('expiry');
    expect(index.file_summaries.every((s: { profile_source: string }) => s.profile_source === 'llm')).toBe(true);
  }, 60_000);
});

describe('coderag index with a model, run again', () => {
  it('reuses model entries and their relationships without a call, and profiles only what changed', async () => {
    const repo = path.join(makeTempDir(), 'poly');
    copyFixture(repo);
    const out = makeTempDir();
    const target = path.join(makeTempDir(), 'plan.txt');
    writeFileSync(target, 'src/cache/ttl_cache.ts\nsrc/http/router.ts\n');
    const config = path.join(makeTempDir(), 'indexer_config.yaml');
    writeFileSync(config, 'llm:\n  request_delay: 0\n');
    const env = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.openaiBaseUrl, CODERAG_CACHE_DIR: makeTempDir('coderag-cache-') };
    const args = ['index', repo, '--out', out, '--config', config, '--target-structure', target];
    const indexFile = path.join(out, 'poly_index.json');
    server.configure({ latencyMs: 0 });
    expect((await runCli(args, { env })).code).toBe(0);
    const first = JSON.parse(readFileSync(indexFile, 'utf8'));
    expect(first.relationships.length).toBeGreaterThan(0);

    writeFileSync(path.join(repo, 'lib/tax.rb'), 'def sales_tax(amount)\n  amount * 0.07\nend\n');
    server.resetStats();
    const again = await runCli(args, { env });
    expect(again.code).toBe(0);
    expect(server.stats.byOutcome.ok ?? 0).toBe(1);
    const second = JSON.parse(readFileSync(indexFile, 'utf8'));
    const others = (index: { relationships: Array<{ repo_file_path: string }> }) => index.relationships.filter((r) => r.repo_file_path !== 'lib/tax.rb');
    expect(others(second)).toEqual(others(first));
    expect(second.file_summaries.every((s: { profile_source: string }) => s.profile_source === 'llm')).toBe(true);
  }, 60_000);
});
