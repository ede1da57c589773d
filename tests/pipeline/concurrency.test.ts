/**
 * Concurrency that follows the provider, end to end: the real `openai` and `@anthropic-ai/sdk` clients
 * against the fake server over real HTTP on 127.0.0.1, which sends a paid tier's rate-limit headers, none, or
 * lying ones, and drops connections above a number in flight. Nothing here mocks an SDK.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import type { RepoIndex } from '../../src/index/types.js';
import { AnthropicProvider } from '../../src/llm/anthropic.js';
import { OpenAiProvider } from '../../src/llm/openai.js';
import type { LlmProvider } from '../../src/llm/provider.js';
import { createLlmSession, type LlmSession } from '../../src/pipeline/llmSession.js';
import { indexRepository } from '../../src/pipeline/runIndex.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

/** A paid tier: 5,000 requests and 2,000,000 tokens a minute. */
const TIER = { requestsPerMinute: 5000, tokensPerMinute: 2_000_000 };
const FILES = 48;

let server: FakeLlmServer;
let repo: string;
beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 3 });
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) files[`src/mod${i}.py`] = `def handler_${i}(request):\n    """Answers request ${i}."""\n    return request.id + ${i}\n`;
  repo = makeTempRepo(files).root;
});
afterAll(() => server.close());
beforeEach(() => {
  server.configure({ latencyMs: 60, faults: {}, rateLimit: null, extraHeaders: null, dropAboveInFlight: null, retryAfterSeconds: 0.05, seed: 3 });
  server.resetStats();
});

function config(overrides: ConfigInput = {}) {
  return validateConfig({
    ...overrides,
    paths: { cache_dir: makeTempDir('coderag-cache-'), ...overrides.paths },
    llm: { request_delay: 0, retry_delay: 0.02, max_retry_after: 0.2, request_timeout: 5, pack_max_files: 1, ...overrides.llm },
    performance: { max_concurrent_files: 2, ...overrides.performance },
  });
}

const openai = () => new OpenAiProvider({ apiKey: 'sk-test-key-for-fake', baseURL: server.openaiBaseUrl, model: 'gpt-test', timeoutMs: 5000 });
const anthropic = () => new AnthropicProvider({ apiKey: 'sk-ant-test-key-for-fake', baseURL: server.anthropicBaseUrl, model: 'claude-test', timeoutMs: 5000 });

async function run(provider: LlmProvider, cfg = config()): Promise<{ index: RepoIndex; llm: LlmSession }> {
  const llm = createLlmSession({ provider, config: cfg, targetStructure: null });
  return { index: await indexRepository(repo, { config: cfg, llm }), llm };
}

function expectEveryFileProfiled(index: RepoIndex): void {
  expect(index.file_summaries).toHaveLength(FILES);
  for (const file of index.file_summaries) {
    expect(file.status).toBe('ok');
    expect(file.profile_source).toBe('llm');
  }
}

describe.each([
  ['OpenAI', openai],
  ['Anthropic', anthropic],
])('concurrency through the %s SDK', (_name, provider) => {
  it('grows past the configured number while the tier headers show headroom, never past the cap', async () => {
    server.configure({ rateLimit: TIER });
    const { index, llm } = await run(provider(), config({ llm: { adaptive_concurrency_max: 12 } }));
    expectEveryFileProfiled(index);
    // At 60 ms a request the tier's 5,000 a minute need about 5 in flight; growth goes on a slot per round trip past that.
    expect(llm.scheduler.stats.highestConcurrency).toBeGreaterThan(4);
    expect(llm.scheduler.stats.highestConcurrency).toBeLessThanOrEqual(12);
    expect(server.stats.maxInFlight).toBeGreaterThan(2);
    expect(server.stats.maxInFlight).toBeLessThanOrEqual(12);
    expect(server.stats.byOutcome.rate_limited_window ?? 0).toBe(0);
  }, 30_000);

  it('keeps the configured number with a server that sends no rate-limit headers', async () => {
    const { index, llm } = await run(provider());
    expectEveryFileProfiled(index);
    expect(llm.scheduler.stats.highestConcurrency).toBe(2);
    expect(server.stats.maxInFlight).toBeLessThanOrEqual(2);
  }, 30_000);
});

describe('concurrency through the OpenAI SDK', () => {
  it('halves on a 429 after growing, and still profiles every file', async () => {
    server.configure({ rateLimit: TIER });
    let answered = 0;
    server.configure({
      respond: () => {
        // After some growth, the provider refuses everything for a moment.
        if (++answered === 16) {
          server.configure({ faults: { rate_limit: 1 } });
          setTimeout(() => server.configure({ faults: {} }), 150);
        }
        return undefined;
      },
    });
    try {
      const { index, llm } = await run(openai(), config({ llm: { max_retries: 8 } }));
      expectEveryFileProfiled(index);
      const { trace, rateLimited, highestConcurrency } = llm.scheduler.stats;
      expect(rateLimited).toBeGreaterThan(0);
      expect(highestConcurrency).toBeGreaterThan(2);
      // Somewhere after growing, one step halves it.
      expect(trace.some((c, i) => i > 0 && (trace[i - 1] as number) > 2 && c <= Math.ceil((trace[i - 1] as number) / 2)), trace.join(' ')).toBe(true);
    } finally {
      server.configure({ respond: undefined });
    }
  }, 30_000);

  it('stays at the fixed number when adaptive_concurrency_max is null, as --concurrency sets it', async () => {
    server.configure({ rateLimit: TIER });
    const { index, llm } = await run(openai(), config({ llm: { adaptive_concurrency_max: null } }));
    expectEveryFileProfiled(index);
    expect(llm.scheduler.stats.highestConcurrency).toBe(2);
    expect(server.stats.maxInFlight).toBeLessThanOrEqual(2);
  }, 30_000);

  it.each([
    ['remaining above the limit', { 'x-ratelimit-limit-requests': '100', 'x-ratelimit-remaining-requests': '9999999' }],
    ['a negative remaining count', { 'x-ratelimit-remaining-requests': '-40', 'x-ratelimit-remaining-tokens': '-1' }],
    ['counts that are not numbers', { 'x-ratelimit-limit-requests': 'plenty', 'x-ratelimit-remaining-requests': 'lots', 'x-ratelimit-remaining-tokens': 'NaN' }],
  ])('falls back to the configured number once the headers lie (%s), and loses no file', async (_what, headers) => {
    let answered = 0;
    // A tier's headers at first, so it grows; then the lie rides on every answer.
    server.configure({ rateLimit: TIER, respond: () => void (++answered === 12 && server.configure({ extraHeaders: headers })) });
    try {
      const { index, llm } = await run(openai());
      expectEveryFileProfiled(index);
      const { distrusted, highestConcurrency, concurrency } = llm.scheduler.stats;
      expect(distrusted).toBe(true);
      expect(highestConcurrency).toBeGreaterThan(2);
      expect(concurrency).toBe(2);
    } finally {
      server.configure({ respond: undefined });
    }
  }, 30_000);

  it('falls back when the server drops connections under high concurrency, and loses no file', async () => {
    server.configure({ rateLimit: TIER, dropAboveInFlight: 6, latencyMs: 250 });
    const { index, llm } = await run(openai(), config({ llm: { max_retries: 10 } }));
    expectEveryFileProfiled(index);
    const { fallbacks, highestConcurrency, trace } = llm.scheduler.stats;
    expect(server.stats.byOutcome.dropped ?? 0, JSON.stringify({ out: server.stats.byOutcome, max: server.stats.maxInFlight, trace })).toBeGreaterThan(0);
    expect(fallbacks).toBeGreaterThan(0);
    expect(highestConcurrency).toBeGreaterThan(6);
    expect(trace.some((c, i) => i > 0 && c < (trace[i - 1] as number))).toBe(true);
  }, 30_000);
});
