/**
 * Batch runs and dry runs end to end: the real `openai` and `@anthropic-ai/sdk` clients against the fake
 * server's batch and live endpoints on 127.0.0.1. Nothing here mocks an SDK.
 */
import { cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { getEncodingNameForModel, Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { validateConfig } from '../../../src/config/load.js';
import type { ConfigInput } from '../../../src/config/schema.js';
import { AnthropicProvider } from '../../../src/llm/anthropic.js';
import { RunBudget } from '../../../src/llm/budget.js';
import { OpenAiProvider } from '../../../src/llm/openai.js';
import { priceOf } from '../../../src/llm/pricing.js';
import type { LlmProvider } from '../../../src/llm/provider.js';
import { promptTokenCounter } from '../../../src/llm/tokens.js';
import { batchStatus, collectBatch, manifestName, readManifest, submitBatch, waitForBatch } from '../../../src/pipeline/modes/batch.js';
import { createLlmSession, type LlmSession } from '../../../src/pipeline/llmSession.js';
import { costOfPlan, planRun } from '../../../src/pipeline/modes/dryRun.js';
import { indexRepository } from '../../../src/pipeline/runIndex.js';
import { ProviderError, UsageError } from '../../../src/shared/errors.js';
import { ExtractorPool } from '../../../src/extract/extractorPool.js';
import { rewriteEntries, startFakeLlmServer, taggedPaths, type FakeLlmServer } from '../../support/fakeLlmServer.js';
import { makeTempDir } from '../../support/tempRepo.js';

const fixture = path.resolve(import.meta.dirname, '../../fixtures/polyglot');
const FILES = 26;
const TARGET = 'new-service/\n├── src/cache/ttl_cache.ts\n└── src/http/router.ts\n';

// Several runs a test on a shared 2-core machine: bounded, but not by the 60 s default.
vi.setConfig({ testTimeout: 120_000 });

let server: FakeLlmServer;
// One extraction pool for the file: grammars load once, not once per run.
let extractors: ExtractorPool;
beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 11 });
  extractors = new ExtractorPool(0);
});
afterAll(async () => {
  await extractors.close();
  await server.close();
});
beforeEach(() => {
  server.configure({ latencyMs: 0, faults: {}, batch: {}, respond: undefined });
  server.resetStats();
  server.batch.reset();
});

function config(overrides: ConfigInput = {}) {
  return validateConfig({
    ...overrides,
    paths: { cache_dir: makeTempDir('coderag-cache-'), ...overrides.paths },
    llm: { request_delay: 0, retry_delay: 0.01, max_retry_after: 0.05, request_timeout: 2, ...overrides.llm },
    performance: { max_concurrent_files: 3, ...overrides.performance },
  });
}

const openai = (model = 'gpt-4o-mini') => new OpenAiProvider({ apiKey: 'sk-test-key-for-fake', baseURL: server.openaiBaseUrl, model, timeoutMs: 2000 });
const anthropic = () => new AnthropicProvider({ apiKey: 'sk-ant-test-key-for-fake', baseURL: server.anthropicBaseUrl, model: 'claude-haiku-4-5', timeoutMs: 2000 });
const session = (provider: LlmProvider, cfg = config(), budget: RunBudget | null = null) =>
  createLlmSession({ provider, config: cfg, targetStructure: TARGET, budget });

/** Live model requests the server received (batch endpoints apart). */
const liveBodies = () => server.stats.bodies.filter((b) => b.includes('"messages"') && !b.includes('"requests"') && !b.includes('custom_id'));
/** Files asked about live: a live request packs several (llm.pack_max_files), each its own `<file n="..." path="...">` part. */
const liveFiles = () => liveBodies().flatMap(taggedPaths);

async function submitted(llm: LlmSession, cfg = config()) {
  const counter = await promptTokenCounter(llm.provider.name, llm.provider.model);
  const plans = await planRun([fixture], { config: cfg, llm, counter, extractors });
  const { manifest } = await submitBatch(plans, { llm, outDir: makeTempDir(), configFile: null, overrides: {} });
  return { plans, manifest };
}

describe.each([
  ['OpenAI', () => openai()],
  ['Anthropic', () => anthropic()],
])('a batch run through the %s SDK', (_name, provider) => {
  it('submits every cache miss once, packed as a live run packs them, and after collecting the index needs no live call', async () => {
    const cfg = config();
    const llm = session(provider(), cfg);
    const { plans, manifest } = await submitted(llm, cfg);
    expect(server.batch.stats.submitted).toHaveLength(1);
    const submittedRequests = server.batch.stats.submitted[0]?.requests ?? [];
    expect(submittedRequests).toHaveLength(plans[0]?.requests.length ?? 0);
    expect(submittedRequests.length).toBeLessThanOrEqual(Math.ceil(FILES / 2));
    // Every file once, in a request of several (llm.pack_max_files, 4 by default).
    const asked = submittedRequests.flatMap((r) => taggedPaths(JSON.stringify(r)));
    expect(asked).toHaveLength(FILES);
    expect(new Set(asked).size).toBe(FILES);
    expect(manifest.requests.flatMap((r) => r.files.map((f) => f.path)).sort()).toEqual([...asked].sort());

    const events: string[] = [];
    const status = await waitForBatch(llm, manifest, { pollIntervalMs: 1, maxWaitMs: 5000, onEvent: (e) => e.type === 'info' && events.push(e.message) });
    expect(status.state).toBe('ended');
    const n = submittedRequests.length;
    expect(events.at(-1)).toMatch(new RegExp(`${n} of ${n} requests done`));

    const collected = await collectBatch(llm, manifest);
    expect(collected).toMatchObject({ stored: FILES, misses: [] });
    expect(collected.usage.prompt_tokens).toBeGreaterThan(0);

    const index = await indexRepository(fixture, { config: cfg, llm, extractors });
    expect(liveBodies()).toHaveLength(0);
    expect(index.analysis_metadata.cache_hits).toBe(FILES);
    expect(index.file_summaries.every((f) => f.profile_source === 'llm')).toBe(true);
    expect(index.relationships.length).toBeGreaterThan(0);
  });

  it('reports the files of a partly failed batch and asks exactly those again live', async () => {
    server.configure({ batch: { failWhen: (_id, i) => i % 3 === 0 } });
    const cfg = config();
    const llm = session(provider(), cfg);
    const { manifest } = await submitted(llm, cfg);
    await waitForBatch(llm, manifest, { pollIntervalMs: 1, maxWaitMs: 5000 });
    const collected = await collectBatch(llm, manifest);
    // Every file of a failed request misses, and only those.
    const failed = manifest.requests.filter((_r, i) => i % 3 === 0).reduce((n, r) => n + r.files.length, 0);
    expect(failed).toBeGreaterThan(1);
    expect(collected.stored).toBe(FILES - failed);
    expect(collected.misses).toHaveLength(failed);
    for (const miss of collected.misses) expect(miss).toMatchObject({ type: 'errored', error: expect.stringContaining('fake batch failure') });

    const index = await indexRepository(fixture, { config: cfg, llm, extractors });
    // Asked again live, the misses are packed: count files asked, not requests.
    expect(liveFiles()).toHaveLength(failed);
    for (const miss of collected.misses) expect(liveFiles()).toContain(miss.path);
    expect(index.file_summaries.every((f) => f.profile_source === 'llm')).toBe(true);
  });

  it('reports the files of the unanswered requests of an expired batch as expired, and asks them again live', async () => {
    server.configure({ batch: { end: 'expired', answeredBeforeExpiry: 3 } });
    const cfg = config();
    const llm = session(provider(), cfg);
    const { manifest } = await submitted(llm, cfg);
    const status = await waitForBatch(llm, manifest, { pollIntervalMs: 1, maxWaitMs: 5000 });
    expect(status).toMatchObject({ state: 'ended', providerStatus: provider().name === 'openai' ? 'expired' : 'ended' });
    const collected = await collectBatch(llm, manifest);
    const answered = manifest.requests.slice(0, 3).reduce((n, r) => n + r.files.length, 0);
    expect(collected.stored).toBe(answered);
    expect(collected.misses.map((m) => m.type)).toEqual(Array(FILES - answered).fill('expired'));
    await indexRepository(fixture, { config: cfg, llm, extractors });
    expect(liveFiles()).toHaveLength(FILES - answered);
  });

  it('keeps the usable entries of a packed answer and misses only the file whose entry is unusable', async () => {
    const broken = 'lib/tax.rb';
    rewriteEntries(server, (entry, path) => {
      if (path === broken) delete entry.summary;
    });
    const cfg = config();
    const llm = session(provider(), cfg);
    const { manifest } = await submitted(llm, cfg);
    await waitForBatch(llm, manifest, { pollIntervalMs: 1, maxWaitMs: 5000 });
    const collected = await collectBatch(llm, manifest);
    expect(manifest.requests.find((r) => r.files.some((f) => f.path === broken))?.files.length).toBeGreaterThan(1);
    expect(collected.stored).toBe(FILES - 1);
    expect(collected.misses).toEqual([{ repo: 'polyglot', path: broken, type: 'invalid', error: expect.stringMatching(/^answer has the wrong shape \(summary: /) }]);
  });

  it('says plainly when the provider no longer knows the batch of a manifest', async () => {
    const llm = session(provider());
    const { manifest } = await submitted(llm);
    server.batch.forget();
    const error = await batchStatus(llm, manifest).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toMatch(new RegExp(`${provider().name} no longer knows batch ${manifest.batch_id} \\(404`));
    expect((error as ProviderError).hint).toContain('coderag index --batch');
    await expect(collectBatch(llm, manifest)).rejects.toThrow(/no longer knows batch/);
  });
});

describe('planning', () => {
  it('plans only the files whose answers are not cached', async () => {
    const cfg = config();
    const repo = path.join(makeTempDir(), 'polyglot');
    cpSync(fixture, repo, { recursive: true });
    const llm = session(openai(), cfg);
    await indexRepository(repo, { config: cfg, llm, extractors });
    writeFileSync(path.join(repo, 'lib/tax.rb'), 'def vat(amount)\n  amount * 0.21\nend\n');
    const counter = await promptTokenCounter('openai', 'gpt-4o-mini');
    const [plan] = await planRun([repo], { config: cfg, llm: session(openai(), cfg), counter, extractors });
    expect(plan).toMatchObject({ profiled: FILES, cached: FILES - 1 });
    expect(plan?.requests.map((r) => r.files.map((f) => f.path))).toEqual([['lib/tax.rb']]);
  });

  it('still counts the tokens when the price table lacks the model', async () => {
    const cfg = config();
    const counter = await promptTokenCounter('openai', 'gpt-4.1-nano');
    const plans = await planRun([fixture], { config: cfg, llm: session(openai('gpt-4.1-nano'), cfg), counter, extractors });
    const cost = costOfPlan(plans, cfg, 'gpt-4.1-nano', counter);
    expect(cost).toMatchObject({ files: FILES, exact: true, price: null, live: null, batch: null });
    expect(cost.promptTokens).toBeGreaterThan(FILES * 100);
  });
});

describe('the dry run\'s token count', () => {
  const tiktoken = new Tiktoken(o200k);
  const within2Percent = (planned: number, sent: number) => expect(Math.abs(planned - sent) / sent).toBeLessThanOrEqual(0.02);

  // One file a request (llm.pack_max_files: 1): a live packer may send a pack early when files arrive slowly, so
  // the packed count is compared apart, below, with a looser bound.
  it('is exact for an OpenAI model: within 2% of the tokens the following run sends', async () => {
    expect(getEncodingNameForModel('gpt-4o-mini')).toBe('o200k_base');
    const cfg = config({ llm: { pack_max_files: 1 } });
    const counter = await promptTokenCounter('openai', 'gpt-4o-mini');
    const plans = await planRun([fixture], { config: cfg, llm: session(openai(), cfg), counter, extractors });
    const planned = costOfPlan(plans, cfg, 'gpt-4o-mini', counter);
    expect(planned).toMatchObject({ files: FILES, requests: FILES, exact: true, method: 'o200k_base' });

    await indexRepository(fixture, { config: cfg, llm: session(openai(), cfg), extractors });
    const bodies = liveBodies().map((b) => JSON.parse(b));
    expect(bodies).toHaveLength(FILES);
    // Counted here from what the server received, as OpenAI documents it: each message's role and text plus
    // 3 tokens, 3 to prime the answer; and the answer schema's JSON.
    const message = (msg: { role: string; content: string }) => 3 + tiktoken.encode(msg.role).length + tiktoken.encode(msg.content).length;
    const sent = bodies.reduce((n, body) => n + 3 + body.messages.reduce((m: number, msg: { role: string; content: string }) => m + message(msg), 0) + tiktoken.encode(JSON.stringify(body.response_format.json_schema.schema)).length, 0);
    within2Percent(planned.promptTokens, sent);
  });

  it('is an estimate, labelled so, for Anthropic: within 2% of 4 characters a token of what the run sends', async () => {
    const cfg = config({ llm: { pack_max_files: 1 } });
    const counter = await promptTokenCounter('anthropic', 'claude-haiku-4-5');
    const plans = await planRun([fixture], { config: cfg, llm: session(anthropic(), cfg), counter, extractors });
    const planned = costOfPlan(plans, cfg, 'claude-haiku-4-5', counter);
    expect(planned).toMatchObject({ exact: false, method: 'estimate: 4 characters a token' });

    await indexRepository(fixture, { config: cfg, llm: session(anthropic(), cfg), extractors });
    const bodies = liveBodies().map((b) => JSON.parse(b));
    expect(bodies).toHaveLength(FILES);
    // The user message is content blocks now: the shared prefix (with its cache breakpoint), then the file's part.
    const text = (content: string | Array<{ text: string }>) => (typeof content === 'string' ? content : content.map((b) => b.text).join('')).length;
    const sent = bodies.reduce((n, body) => n + (body.system.length + text(body.messages[0].content) + JSON.stringify(body.tools).length) / 4, 0);
    within2Percent(planned.promptTokens, sent);
  });
  it('prices a packed run by its packs, grouped by the packer\'s rule, close to what the run sends', async () => {
    const counter = await promptTokenCounter('openai', 'gpt-4o-mini');
    const alone = costOfPlan(await planRun([fixture], { config: config({ llm: { pack_max_files: 1 } }), llm: session(openai()), counter, extractors }), config(), 'gpt-4o-mini', counter);
    const cfg = config({ llm: { pack_max_files: 4 } });
    const plans = await planRun([fixture], { config: cfg, llm: session(openai(), cfg), counter, extractors });
    const planned = costOfPlan(plans, cfg, 'gpt-4o-mini', counter);
    expect(planned.files).toBe(FILES);
    expect(planned.requests).toBeGreaterThanOrEqual(Math.ceil(FILES / 4));
    expect(planned.requests).toBeLessThan(FILES);
    expect(planned.promptTokens).toBeLessThan(alone.promptTokens * 0.6);
    // A batch submits the same packs: half the live price, the same tokens.
    expect(planned.batch).toBeCloseTo((planned.live ?? 0) * (cfg.pricing['gpt-4o-mini']?.batch ?? 1), 10);

    await indexRepository(fixture, { config: cfg, llm: session(openai(), cfg), extractors });
    const bodies = liveBodies().map((b) => JSON.parse(b));
    expect(liveFiles()).toHaveLength(FILES);
    const message = (msg: { role: string; content: string }) => 3 + tiktoken.encode(msg.role).length + tiktoken.encode(msg.content).length;
    const sent = bodies.reduce((n, body) => n + 3 + body.messages.reduce((m: number, msg: { role: string; content: string }) => m + message(msg), 0) + tiktoken.encode(JSON.stringify(body.response_format.json_schema.schema)).length, 0);
    // Exact when the run makes as many packs as planned; each extra pack (one sent early) adds one shared prefix.
    const perPack = planned.promptTokens / planned.requests;
    expect(Math.abs(sent - planned.promptTokens)).toBeLessThanOrEqual(0.02 * sent + Math.max(0, bodies.length - planned.requests) * perPack);
  });
});

describe('spending limits', () => {
  it('stop at --max-calls: finished answers are cached, the rest keep their static profile with a reason', async () => {
    const cfg = config({ performance: { max_concurrent_files: 1 } });
    const budget = new RunBudget({ maxCalls: 5, maxCost: null, price: null, counter: null, expectedOutputTokens: 400 });
    const index = await indexRepository(fixture, { config: cfg, llm: session(openai(), cfg, budget), extractors });
    // A call is a request, packed or not: 5 calls, each asking about one or more files.
    expect(liveBodies()).toHaveLength(5);
    const asked = liveFiles().length;
    expect(asked).toBeGreaterThanOrEqual(5);
    expect(asked).toBeLessThan(FILES);
    expect(budget.stopped).toBe('--max-calls 5 reached');
    const llm = index.file_summaries.filter((f) => f.profile_source === 'llm');
    const stopped = index.file_summaries.filter((f) => f.reason?.startsWith('budget_stop: --max-calls 5 reached'));
    expect(llm).toHaveLength(asked);
    expect(stopped).toHaveLength(FILES - asked);
    for (const file of stopped) expect(file).toMatchObject({ status: 'ok', profile_source: 'static' });

    server.resetStats();
    const again = await indexRepository(fixture, { config: cfg, llm: session(openai(), cfg), extractors });
    expect(again.analysis_metadata.cache_hits).toBe(asked);
    expect(liveFiles()).toHaveLength(FILES - asked);
  });

  it('stop before --max-cost would be passed, counting requests in flight', async () => {
    const cfg = config({ pricing: { 'gpt-4o-mini': { input: 100, output: 100 } }, performance: { max_concurrent_files: 4 } });
    const price = priceOf(cfg, 'gpt-4o-mini');
    const counter = await promptTokenCounter('openai', 'gpt-4o-mini');
    const maxCost = 0.5;
    // The default estimate a file: answers now describe symbols too, longer than the 100 tokens this assumed.
    const budget = new RunBudget({ maxCalls: null, maxCost, price, counter, expectedOutputTokens: cfg.budget.expected_output_tokens });
    const index = await indexRepository(fixture, { config: cfg, llm: session(openai(), cfg, budget), extractors });
    const calls = liveBodies().length;
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(FILES);
    expect(budget.spent).toBeLessThanOrEqual(maxCost);
    expect(budget.stopped).toMatch(/^--max-cost \$0\.50 reached/);
    expect(index.file_summaries.filter((f) => f.profile_source === 'llm')).toHaveLength(liveFiles().length);
  });
});

describe('a batch manifest\'s name', () => {
  it('is the batch id, prefixed with batch_ only when the id does not say batch already', () => {
    expect(manifestName('batch_abc123')).toBe('batch_abc123.manifest');
    expect(manifestName('msgbatch_01XY')).toBe('msgbatch_01XY.manifest');
    expect(manifestName('job/42')).toBe('batch_job_42.manifest');
  });
});

describe('a batch manifest of an earlier CodeRAG', () => {
  it('is refused with a message that says to submit again, since its one-file requests used other prompts', async () => {
    const file = path.join(makeTempDir(), 'batch_old.manifest');
    writeFileSync(file, JSON.stringify({ tool: 'coderag', manifest_version: 1, requests: [{ custom_id: 'coderag-0', key: 'k', repo: 'r', path: 'a.ts', prompt_tokens: 9 }] }));
    const error = await readManifest(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain('was written by an earlier CodeRAG (manifest version 1)');
    expect((error as UsageError).hint).toBe('submit the files again with coderag index --batch');
  });
});
