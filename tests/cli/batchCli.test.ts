/**
 * `coderag index --dry-run`, `--max-cost`/`--max-calls`, `--batch` and `--collect` as a user runs them: the
 * built CLI, keys and base URLs from the environment, the fake server on 127.0.0.1 behind the real SDKs.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli as runCliWith } from '../support/cli.js';
import { startFakeLlmServer, taggedPaths, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir } from '../support/tempRepo.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');
const FILES = 26;
// Several runs a test on a shared 2-core machine: bounded, but not by the 60 s default.
vi.setConfig({ testTimeout: 400_000 });

let server: FakeLlmServer;

beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 5 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.configure({ latencyMs: 0, faults: {}, batch: {} });
  server.resetStats();
  server.batch.reset();
});

const openaiEnv = (cacheDir = makeTempDir('coderag-cache-')): NodeJS.ProcessEnv => ({ OPENAI_API_KEY: 'sk-cli-test-0123456789abcdefghij', OPENAI_BASE_URL: server.openaiBaseUrl, CODERAG_CACHE_DIR: cacheDir });
const anthropicEnv = (cacheDir = makeTempDir('coderag-cache-')): NodeJS.ProcessEnv => ({ ANTHROPIC_API_KEY: 'sk-ant-cli-test-0123456789abcdef', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, CODERAG_CACHE_DIR: cacheDir });
const liveBodies = () => server.stats.bodies.filter((b) => b.includes('"messages"') && !b.includes('custom_id'));
const liveCalls = () => liveBodies().length;
/** Files asked about live: a request packs several (llm.pack_max_files), each its own `<file n="..." path="...">` part. */
const liveFiles = () => liveBodies().flatMap(taggedPaths).length;

/** The CLI with room for a loaded machine: loading a tokenizer's ranks alone takes seconds of CPU. */
const runCli = (args: string[], options: { env?: NodeJS.ProcessEnv } = {}) => runCliWith(args, { ...options, timeoutMs: 170_000 });

function configWith(yaml: string): string {
  const file = path.join(makeTempDir(), 'indexer_config.yaml');
  writeFileSync(file, `llm:\n  request_delay: 0\n  retry_delay: 0.01\nbatch:\n  poll_interval: 0.01\n${yaml}`);
  return file;
}

function readIndex(out: string) {
  return JSON.parse(readFileSync(path.join(out, 'polyglot_index.json'), 'utf8')) as { file_summaries: Array<{ file_path: string; profile_source: string; status: string; reason?: string }> };
}

describe('coderag index --dry-run', () => {
  it('lists the packed requests it would send, live or as a batch, with their exact token counts and both prices, and sends nothing', async () => {
    const out = makeTempDir();
    const result = await runCli(['index', fixture, '--dry-run', '--out', out, '--config', configWith('')], { env: openaiEnv() });
    expect(result.code).toBe(0);
    const requests = Number(new RegExp(`polyglot: ${FILES} files to profile, 0 cached, (\\d+) requests to send`).exec(result.stdout)?.[1]);
    expect(requests).toBeGreaterThanOrEqual(FILES / 4);
    expect(requests).toBeLessThan(FILES);
    expect(result.stdout).toMatch(/\n +[\d,]+ tokens {2}(\S+, )*src\/cache\/lruCache\.ts[,\n]/);
    expect(result.stdout).toMatch(new RegExp(`openai gpt-4o-mini: ${FILES} files in ${requests} requests \\(packed as llm.pack_max_files allows, live and with --batch alike\\), [\\d,]+ prompt tokens \\(exact, o200k_base\\), ~[\\d,]+ answer tokens \\(estimate: 400 a file\\)`));
    expect(result.stdout).toMatch(/cost: \$[\d.]+ live, \$[\d.]+ with --batch \(pricing\.gpt-4o-mini: \$0\.15 input, \$0\.6 output per million tokens\)/);
    expect(server.stats.requests).toBe(0);
    expect(readdirSync(out)).toEqual([]);
  });

  it('still counts the tokens when the price table lacks the model, and says how to add it', async () => {
    const result = await runCli(['index', fixture, '--dry-run', '--json', '--model', 'qwen2.5-coder', '--config', configWith('')], { env: openaiEnv() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: no price for model qwen2.5-coder in the pricing table: tokens are counted, the cost is not');
    expect(result.stderr).toContain('hint: add it to indexer_config.yaml, e.g. pricing: { "qwen2.5-coder": { input: 0.15, output: 0.6 } }');
    const plan = JSON.parse(result.stdout);
    expect(plan).toMatchObject({ model: 'qwen2.5-coder', files: FILES, prompt_tokens_exact: false, token_count_method: 'estimate: 4 characters a token', cost_live: null, price: null });
    expect(plan.prompt_tokens).toBeGreaterThan(FILES * 100);
  });
});

describe('spending limits', () => {
  it('--max-calls stops the run with exit code 4, writes the index and marks the files left static', async () => {
    const out = makeTempDir();
    const cacheDir = makeTempDir('coderag-cache-');
    const config = configWith('performance:\n  max_concurrent_files: 2\n');
    const result = await runCli(['index', fixture, '--out', out, '--config', config, '--max-calls', '3'], { env: openaiEnv(cacheDir) });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('error: stopped by --max-calls 3 reached');
    expect(result.stdout.trim()).toBe(path.join(out, 'polyglot_index.json'));
    // A call is a request, packed or not: 3 calls, each asking about one or more files.
    expect(liveCalls()).toBe(3);
    const asked = liveFiles();
    expect(asked).toBeGreaterThanOrEqual(3);
    expect(asked).toBeLessThan(FILES);
    const files = readIndex(out).file_summaries;
    expect(files.filter((f) => f.profile_source === 'llm')).toHaveLength(asked);
    expect(files.filter((f) => f.reason === 'budget_stop: --max-calls 3 reached')).toHaveLength(FILES - asked);

    server.resetStats();
    const rest = await runCli(['index', fixture, '--out', out, '--config', config], { env: openaiEnv(cacheDir) });
    expect(rest.code).toBe(0);
    expect(liveFiles()).toBe(FILES - asked);
  });

  it('--max-calls gives the NDJSON and JSON summaries the exit code the run ends with, 4, and its word', async () => {
    const config = configWith('performance:\n  max_concurrent_files: 2\n');
    const result = await runCli(['index', fixture, '--out', makeTempDir(), '--config', config, '--max-calls', '1', '--progress', 'json', '--json'], { env: openaiEnv(makeTempDir('coderag-cache-')) });
    expect(result.code).toBe(4);
    const events = result.stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    // The summary closes the events: the stop is its outcome, not an error after it.
    expect(events.at(-1)).toMatchObject({ type: 'summary', status: 'budget_stopped', exit_code: 4 });
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'budget_stopped', exit_code: 4 });
  });

  it('--max-cost for a model without a price is refused before any request', async () => {
    const result = await runCli(['index', fixture, '--out', makeTempDir(), '--max-cost', '1', '--model', 'gpt-4.1-nano', '--config', configWith('')], { env: openaiEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: --max-cost needs a price: no price for model gpt-4.1-nano in the pricing table');
    expect(server.stats.requests).toBe(0);
  });
});

describe('coderag index --batch', () => {
  it('submits through Anthropic Message Batches, then --collect writes the index once the batch has ended', async () => {
    const out = makeTempDir();
    const env = anthropicEnv();
    const config = configWith('');
    const submit = await runCli(['index', fixture, '--batch', '--out', out, '--config', config], { env });
    expect(submit.code).toBe(0);
    const manifest = submit.stdout.trim();
    expect(existsSync(manifest)).toBe(true);
    // Named after the batch, whose id says `batch` already: never `batch_msgbatch_…` or `batch_batch_…`.
    expect(path.basename(manifest)).toMatch(/^msgbatch_\w+\.manifest$/);
    expect(submit.stderr).toContain(`coderag index --collect ${manifest}`);
    // Packed as a live run packs them: fewer requests than files, every file in one.
    const requests = server.batch.stats.submitted[0]?.requests ?? [];
    expect(requests.length).toBeLessThan(FILES);
    expect(requests.flatMap((r) => taggedPaths(JSON.stringify(r)))).toHaveLength(FILES);
    expect(existsSync(path.join(out, 'polyglot_index.json'))).toBe(false);

    const early = await runCli(['index', '--collect', manifest], { env });
    expect(early.code).toBe(75);
    expect(early.stderr).toMatch(new RegExp(`error: batch msgbatch_\\w+ is not finished: in_progress, 0 of ${requests.length} requests done`));

    const collect = await runCli(['index', '--collect', manifest], { env });
    expect(collect.code).toBe(0);
    expect(collect.stderr).toContain(`${FILES} answers stored in the profile cache, 0 not answered`);
    expect(collect.stdout.trim()).toBe(path.join(out, 'polyglot_index.json'));
    expect(liveCalls()).toBe(0);
    expect(readIndex(out).file_summaries.every((f) => f.profile_source === 'llm')).toBe(true);
  });

  it('with --wait on a partly failed OpenAI batch, reports the failures and asks just those live', async () => {
    server.configure({ batch: { failWhen: (_id, i) => i === 0 } });
    const out = makeTempDir();
    const result = await runCli(['index', fixture, '--batch', '--wait', '--out', out, '--config', configWith('')], { env: openaiEnv() });
    expect(result.code).toBe(0);
    // The files of the failed request, several (it was packed).
    const [, stored, missed] = (/(\d+) answers stored in the profile cache, (\d+) not answered \(asked again live\)/.exec(result.stderr) ?? []).map(Number);
    expect(missed).toBeGreaterThan(1);
    expect((stored ?? 0) + (missed ?? 0)).toBe(FILES);
    expect(result.stderr).toMatch(/warning: polyglot: \S+: batch request errored: 400 Invalid request \(fake batch failure\)\.; asked again live/);
    // Asked again live, the misses may share a packed request: count files asked, not requests.
    expect(liveFiles()).toBe(missed);
    expect(readIndex(out).file_summaries.every((f) => f.profile_source === 'llm')).toBe(true);
  });

  it('leaves expired requests static, marked, when batch.retry_failed_live is off', async () => {
    server.configure({ batch: { end: 'expired', answeredBeforeExpiry: 3 } });
    const out = makeTempDir();
    const result = await runCli(['index', fixture, '--batch', '--wait', '--out', out, '--config', configWith('  retry_failed_live: false\n')], { env: openaiEnv() });
    expect(result.code).toBe(0);
    const [, stored, missed] = (/(\d+) answers stored in the profile cache, (\d+) not answered \(left with their static profile\)/.exec(result.stderr) ?? []).map(Number);
    expect(stored).toBeGreaterThan(3); // three packed requests answered
    expect((stored ?? 0) + (missed ?? 0)).toBe(FILES);
    expect(liveCalls()).toBe(0);
    const files = readIndex(out).file_summaries;
    expect(files.filter((f) => f.reason === 'budget_stop: not asked again live (batch.retry_failed_live: false)')).toHaveLength(missed ?? -1);
  });

  it('--collect of a batch the provider no longer knows fails with a clear message', async () => {
    const env = openaiEnv();
    const submit = await runCli(['index', fixture, '--batch', '--out', makeTempDir(), '--config', configWith('')], { env });
    expect(path.basename(submit.stdout.trim())).toMatch(/^batch_\d+\.manifest$/);
    server.batch.forget();
    const result = await runCli(['index', '--collect', submit.stdout.trim()], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error: openai no longer knows batch batch_\w+ \(404/);
    expect(result.stderr).toContain('hint: the batch may have been deleted');
  });

  it('refuses flags that do not go together', async () => {
    const both = await runCli(['index', fixture, '--dry-run', '--batch'], { env: openaiEnv() });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('error: --dry-run lists what a run would send; it does not go with --batch or --collect');
    const wait = await runCli(['index', fixture, '--wait'], { env: openaiEnv() });
    expect(wait.code).toBe(2);
    const missing = await runCli(['index', '--collect', path.join(makeTempDir(), 'nope.json')], { env: openaiEnv() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error: cannot read the batch manifest');
  });
});
