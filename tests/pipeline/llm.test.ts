/**
 * The LLM pipeline end to end: the real `openai` and `@anthropic-ai/sdk` clients against the fake server
 * over real HTTP on 127.0.0.1. Nothing here mocks an SDK.
 */
import { cpSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import type { RepoIndex } from '../../src/index/types.js';
import { AnthropicProvider } from '../../src/llm/anthropic.js';
import { OpenAiProvider } from '../../src/llm/openai.js';
import type { LlmProvider } from '../../src/llm/provider.js';
import { createLlmSession } from '../../src/pipeline/llmSession.js';
import { indexRepository } from '../../src/pipeline/runIndex.js';
import { ProviderError } from '../../src/shared/errors.js';
import { startFakeLlmServer, symbolName, taggedPaths, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');
const TARGET = `new-service/
├── src/cache/ttl_cache.ts      # cache with per-entry TTL
├── src/http/router.ts          # request routing
└── src/store/kv.py             # key-value persistence
`;

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 7 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.configure({ latencyMs: 0, faults: {}, rejectJsonSchema: false, seed: 7 });
  server.resetStats();
});

function config(overrides: ConfigInput = {}) {
  const cacheDir = makeTempDir('coderag-cache-');
  return validateConfig({
    ...overrides,
    paths: { cache_dir: cacheDir, ...overrides.paths },
    llm: { request_delay: 0, retry_delay: 0.01, max_retry_after: 0.05, request_timeout: 2, ...overrides.llm },
    performance: { max_concurrent_files: 3, ...overrides.performance },
  });
}

const openai = (model = 'gpt-test') => new OpenAiProvider({ apiKey: 'sk-test-key-for-fake', baseURL: server.openaiBaseUrl, model, timeoutMs: 2000 });
const anthropic = () => new AnthropicProvider({ apiKey: 'sk-ant-test-key-for-fake', baseURL: server.anthropicBaseUrl, model: 'claude-test', timeoutMs: 2000 });

async function run(repo: string, provider: LlmProvider, cfg = config(), extra: { targetStructure?: string | null; focus?: string; prefilter?: boolean } = {}): Promise<RepoIndex> {
  const llm = createLlmSession({ provider, config: cfg, targetStructure: extra.targetStructure === undefined ? TARGET : extra.targetStructure, focus: extra.focus ?? null, prefilter: extra.prefilter ?? false });
  return indexRepository(repo, { config: cfg, llm });
}

const profiled = (index: RepoIndex) => index.file_summaries.filter((f) => f.profile_source === 'llm');

describe.each([
  ['OpenAI', () => openai()],
  ['Anthropic', () => anthropic()],
])('profiling through the %s SDK', (_name, provider) => {
  it('packs several files into each call, with the relationships in the same answer', async () => {
    const index = await run(fixture, provider());
    const files = index.file_summaries.length;
    expect(profiled(index)).toHaveLength(files);
    expect(server.stats.requests).toBeLessThanOrEqual(files / 2);
    expect(index.analysis_metadata.llm_calls).toBe(server.stats.requests);
    expect(index.relationships.length).toBeGreaterThan(0);
    for (const rel of index.relationships) {
      expect(['direct_match', 'partial_match', 'reference', 'utility']).toContain(rel.relationship_type);
      expect(rel.confidence_score).toBeGreaterThan(0.3);
    }
    expect(index.analysis_metadata.token_usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('keeps the parser\'s facts and takes the meaning from the model', async () => {
    const index = await run(fixture, provider());
    const cache = index.file_summaries.find((f) => f.file_path === 'src/cache/lruCache.ts');
    expect(cache?.main_functions).toContain('LruCache.get');
    expect(cache?.dependencies).toContain('src/cache/clock.ts');
    expect(cache?.symbols.length).toBeGreaterThan(5);
    expect(cache?.summary).not.toMatch(/^A least-recently-used cache/);
  });

  it('never has more requests in flight than the limiter allows', async () => {
    server.configure({ latencyMs: 40 });
    await run(fixture, provider(), config({ llm: { pack_max_files: 1 }, performance: { max_concurrent_files: 3 } }));
    expect(server.stats.maxInFlight).toBeLessThanOrEqual(3);
    expect(server.stats.maxInFlight).toBeGreaterThanOrEqual(2);
  });
});

describe('a run under faults', () => {
  it.each([
    ['OpenAI', () => openai()],
    ['Anthropic', () => anthropic()],
  ])('through %s, accounts for every file when over a third of requests fail', async (_name, provider) => {
    server.configure({
      faults: { rate_limit: 0.1, server_error: 0.07, overloaded: 0.05, hang: 0.04, malformed_json: 0.04, truncated: 0.04 },
      hangMs: 5000,
    });
    const cfg = config({ llm: { request_timeout: 0.4, max_retries: 3 }, performance: { max_concurrent_files: 4 } });
    const index = await run(fixture, provider(), cfg);
    const walked = 26;
    expect(index.file_summaries).toHaveLength(walked);
    for (const file of index.file_summaries) {
      if (file.status === 'failed') expect(file.reason).toMatch(/^llm_error: /);
      else expect(file.profile_source).toBe('llm');
    }
    // 34% of requests are drawn to fail; packs make few requests, so the share drawn varies more.
    const failedShare = 1 - (server.stats.byOutcome.ok ?? 0) / server.stats.requests;
    expect(failedShare).toBeGreaterThanOrEqual(0.25);
    expect(index.analysis_metadata.retries).toBeGreaterThan(0);
    expect(server.stats.maxInFlight).toBeLessThanOrEqual(4);
  }, 60_000);

  it('stops within seconds on an invalid key, instead of failing every file', async () => {
    server.configure({ faults: { unauthorized: 1 } });
    const started = Date.now();
    await expect(run(fixture, openai())).rejects.toBeInstanceOf(ProviderError);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server.stats.requests).toBeLessThanOrEqual(4);
  });

  it('falls back to plain JSON instructions when the server rejects json_schema', async () => {
    server.configure({ rejectJsonSchema: true });
    const index = await run(fixture, openai(), config(), { targetStructure: null });
    expect(profiled(index)).toHaveLength(index.file_summaries.length);
    // Requests already in flight when the first rejection arrives are rejected too; then the run stops asking.
    expect(server.stats.byOutcome.rejected_json_schema).toBeGreaterThanOrEqual(1);
    expect(server.stats.byOutcome.rejected_json_schema).toBeLessThanOrEqual(3);
  });

  it('makes no relationship calls or fields without a target structure', async () => {
    const index = await run(fixture, openai(), config(), { targetStructure: null });
    expect(index.relationships).toEqual([]);
    expect(server.stats.bodies.some((b) => b.includes('relationship_type') || b.includes('Target project structure'))).toBe(false);
  });
});

describe('the profile cache', () => {
  it('makes zero calls on a second run, on a copy with new mtimes, and one call for one changed file', async () => {
    const cfg = config();
    const copy = path.join(makeTempDir(), 'polyglot');
    cpSync(fixture, copy, { recursive: true });
    const first = await run(copy, openai(), cfg);
    const files = first.file_summaries.length;
    expect(profiled(first)).toHaveLength(files);

    server.resetStats();
    const second = await run(copy, openai(), cfg);
    expect(server.stats.requests).toBe(0);
    expect(second.analysis_metadata.cache_hits).toBe(files);

    const clone = path.join(makeTempDir(), 'polyglot');
    cpSync(copy, clone, { recursive: true });
    const later = new Date(Date.now() + 60_000);
    for (const file of second.file_summaries) utimesSync(path.join(clone, file.file_path), later, later);
    server.resetStats();
    await run(clone, openai(), cfg);
    expect(server.stats.requests).toBe(0);

    writeFileSync(path.join(clone, 'lib/tax.rb'), 'def vat(amount)\n  amount * 0.21\nend\n');
    server.resetStats();
    await run(clone, openai(), cfg);
    expect(server.stats.requests).toBe(1);
    expect(server.stats.bodies[0]).toContain('lib/tax.rb');
  });

  it('changes its key with the model and the focus', async () => {
    const cfg = config();
    await run(fixture, openai('model-a'), cfg);
    server.resetStats();
    const second = await run(fixture, openai('model-b'), cfg);
    expect(second.analysis_metadata.cache_hits).toBe(0);
    expect(server.stats.requests).toBeGreaterThan(0);
    server.resetStats();
    const third = await run(fixture, openai('model-b'), cfg, { focus: 'error handling' });
    expect(third.analysis_metadata.cache_hits).toBe(0);
    expect(server.stats.bodies.every((b) => b.includes('error handling'))).toBe(true);
  });

  it('drops a corrupt entry and asks again', async () => {
    const cfg = config();
    const repo = makeTempRepo({ 'a.py': 'def a():\n    return 1\n' });
    await run(repo.root, openai(), cfg);
    const entries = (await import('fast-glob')).default.sync('**/*.json', { cwd: cfg.paths.cache_dir, absolute: true });
    expect(entries).toHaveLength(1);
    writeFileSync(entries[0] as string, '{"file_type": ');
    server.resetStats();
    const index = await run(repo.root, openai(), cfg);
    expect(server.stats.requests).toBe(1);
    expect(index.file_summaries[0]?.profile_source).toBe('llm');
  });
});

describe('secret screening', () => {
  const planted = {
    aws: 'AKIAIOSFODNN7EXAMPLE',
    github: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    password: 'hunter2-correct-horse',
    entropy: 'q8Zr3LmX9vKp2WtY7nBd5Jf',
    pem: 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
    dotenv: 'DOTENV_VALUE_SHOULD_NEVER_LEAVE',
  };

  it('sends none of the planted secrets to the model and records the count', async () => {
    const repo = makeTempRepo({
      'src/settings.py': `AWS_KEY = "${planted.aws}"\nGITHUB = "${planted.github}"\npassword = "${planted.password}"\napi_token = "${planted.entropy}"\n\ndef load():\n    return AWS_KEY\n`,
      'src/deploy.ts': `const key = \`-----BEGIN RSA PRIVATE KEY-----\n${planted.pem}\n-----END RSA PRIVATE KEY-----\`;\nexport function deploy() { return key; }\n`,
      '.env': `SECRET=${planted.dotenv}\n`,
      'certs/server.pem': `-----BEGIN PRIVATE KEY-----\n${planted.pem}\n-----END PRIVATE KEY-----\n`,
    });
    const index = await run(repo.root, openai());
    const sent = server.stats.bodies.join('\n');
    for (const secret of Object.values(planted)) expect(sent).not.toContain(secret);
    expect(sent).not.toContain('sk-test-key-for-fake');
    const settings = index.file_summaries.find((f) => f.file_path === 'src/settings.py');
    expect(settings?.secrets_redacted).toBe(4);
    expect(index.file_summaries.find((f) => f.file_path === 'certs/server.pem')).toBeUndefined();
    expect(JSON.stringify(index)).not.toContain(planted.aws);
  });
});

describe('the pre-filter', () => {
  function bigRepo(n: number) {
    const files: Record<string, string> = {};
    for (let i = 0; i < n; i++) files[`src/m${String(i).padStart(4, '0')}.py`] = `def f${i}():\n    return ${i}\n`;
    return makeTempRepo(files);
  }

  it('sends the file list in chunks small enough that no answer can overflow max_tokens', async () => {
    const repo = bigRepo(120);
    server.configure({ respond: (req) => (req.schema && JSON.stringify(req.schema).includes('selected') ? { selected: [1, 2, 3] } : undefined) });
    const cfg = config({ llm: { max_tokens: 100 } });
    const index = await run(repo.root, openai(), cfg, { prefilter: true });
    const chunkCalls = server.stats.bodies.filter((b) => b.includes('file_selection')).length;
    expect(chunkCalls).toBe(Math.ceil(120 / 20));
    expect(profiled(index)).toHaveLength(chunkCalls * 3);
    expect(index.analysis_metadata).toMatchObject({ pre_filtering_enabled: true, files_before_filtering: 120, files_after_filtering: 18 });
    server.configure({ respond: undefined });
  });

  it('says so and keeps every file when it selects nothing, under keep_all', async () => {
    const repo = bigRepo(5);
    server.configure({ respond: (req) => (JSON.stringify(req.schema ?? {}).includes('selected') ? { selected: [] } : undefined) });
    const warnings: string[] = [];
    const cfg = config();
    const llm = createLlmSession({ provider: openai(), config: cfg, targetStructure: TARGET, prefilter: true });
    const index = await indexRepository(repo.root, { config: cfg, llm, onEvent: (e) => e.type === 'warning' && warnings.push(e.message) });
    expect(warnings.join('\n')).toContain('the pre-filter selected no file; profiling all 5');
    expect(profiled(index)).toHaveLength(5);
    server.configure({ respond: undefined });
  });

  it('stops the run when it fails under the abort policy', async () => {
    const repo = bigRepo(5);
    server.configure({ faults: { server_error: 1 } });
    const cfg = config({ llm: { prefilter_failure: 'abort', max_retries: 1 } });
    await expect(run(repo.root, openai(), cfg, { prefilter: true })).rejects.toThrow(/pre-filter failed for files 1-5 of 5/);
  });
});

describe('debug dumps', () => {
  it('saves raw answers without the API key when save_raw_responses is on', async () => {
    const dir = makeTempDir();
    const repo = makeTempRepo({ 'a.py': 'def a():\n    return 1\n' }, { name: 'dumped' });
    await run(repo.root, openai(), config({ debug: { save_raw_responses: true, raw_responses_dir: dir } }));
    const dump = readFileSync(path.join(dir, 'dumped', 'a.py.json'), 'utf8');
    expect(JSON.parse(dump)).toHaveProperty('summary');
    expect(dump).not.toContain('sk-test-key-for-fake');
  });
});

describe('packed requests', () => {
  it('stores a one-line description on the symbols the model described, and only on those', async () => {
    const index = await run(fixture, openai());
    const cache = index.file_summaries.find((f) => f.file_path === 'src/cache/lruCache.ts');
    const described = cache?.symbols.filter((s) => s.description) ?? [];
    expect(described.length).toBeGreaterThan(0);
    expect(described.length).toBeLessThanOrEqual(12);
    for (const s of described) expect(s.description).not.toContain('\n');
  });

  it('asks again alone for each file whose entry is missing, duplicated or about another file', async () => {
    let mixed = 0;
    let spoiledPack: string[] = [];
    server.configure({
      respond: (req) => {
        const answer = req.sample() as { files: Array<Record<string, unknown>> };
        // The pack to spoil needs two or more symbols among its first three files, none named like one of the
        // fourth's, for the fourth to be written about them: which files share a pack depends on the order calls go out in.
        const symbolNames = (e: Record<string, unknown> | undefined) => ((e?.symbols ?? []) as string[]).map(symbolName);
        const names = (e: Record<string, unknown> | undefined) => symbolNames(e).map((n) => n.toLowerCase());
        const donated = answer.files.slice(0, 3).flatMap(names);
        const own = new Set(names(answer.files[3]));
        if (answer.files.length < 4 || mixed > 0 || donated.length < 2 || donated.some((n) => own.has(n))) return answer;
        mixed++;
        const paths = taggedPaths(req.prompt);
        spoiledPack = answer.files.map((e) => paths[Number(e.file) - 1] as string);
        const [a, b, c, d] = answer.files as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
        a.file = paths.length + 1; // a file number nobody was given: a's entry is missing
        c.file = b.file; // b answered twice: neither counts
        // Written about another file of the pack: its symbols are the others'.
        d.symbols = [a, b, c].flatMap(symbolNames).slice(0, 12).map((name) => `${name}: x`);
        return answer;
      },
    });
    const index = await run(fixture, openai(), config({ llm: { pack_max_files: 8 } }));
    server.configure({ respond: undefined });
    expect(mixed).toBe(1);
    expect(profiled(index)).toHaveLength(index.file_summaries.length);
    const packs = server.stats.bodies.map(taggedPaths);
    const mixedPack = spoiledPack;
    const asked = mixedPack.slice(0, 4);
    const d = asked[3] as string;
    const alone = packs.filter((p) => p.length === 1).map((p) => p[0]);
    // Each of the four files is asked again alone; the files after them in the pack are not.
    for (const path of asked) expect(alone).toContain(path);
    for (const path of mixedPack.slice(4)) expect(alone).not.toContain(path);
    expect(index.file_summaries.find((f) => f.file_path === d)?.symbols.some((s) => s.description === 'x')).toBe(false);
  });

  it('falls back to one call per file when a pack answer is unusable as a whole', async () => {
    server.configure({ respond: (req) => ((req.sample() as { files: unknown[] }).files.length > 1 ? { summary: 'not a pack' } : undefined) });
    const index = await run(fixture, openai());
    server.configure({ respond: undefined });
    expect(profiled(index)).toHaveLength(index.file_summaries.length);
    const packs = server.stats.bodies.map(taggedPaths);
    const packed = packs.filter((p) => p.length > 1).flat();
    expect(packed.length).toBeGreaterThan(0);
    const alone = new Set(packs.filter((p) => p.length === 1).map((p) => p[0]));
    for (const path of packed) expect(alone.has(path)).toBe(true);
  });
});

describe('rate control', () => {
  it('survives 429s that carry no headers at all, and still loses no file', async () => {
    server.configure({ faults: { rate_limit: 0.3 }, bareRateLimit: true });
    const cfg = config({ llm: { max_retries: 6, pack_max_files: 2 } });
    const index = await run(fixture, anthropic(), cfg);
    server.configure({ bareRateLimit: false });
    expect(server.stats.byOutcome.rate_limit).toBeGreaterThan(0);
    expect(index.file_summaries).toHaveLength(26);
    expect(profiled(index)).toHaveLength(26);
    expect(index.analysis_metadata.retries).toBeGreaterThan(0);
  }, 30_000);

  it('keeps under a server-enforced request window by reading its headers', async () => {
    // 6 requests per 600 ms window: the same rate as 600 a minute, scaled down to stay quick.
    server.configure({ rateLimit: { requestsPerMinute: 6, windowMs: 600 } });
    const cfg = config({ llm: { pack_max_files: 1, max_retries: 6 }, performance: { max_concurrent_files: 4 } });
    const index = await run(fixture, openai(), cfg);
    server.configure({ rateLimit: null });
    expect(profiled(index)).toHaveLength(26);
    // Requests in flight when the budget runs out may be refused; once the headers are read, no more are.
    expect(server.stats.byOutcome.rate_limited_window ?? 0).toBeLessThanOrEqual(4);
  }, 30_000);

  it("pauses each worker for request_delay instead of spacing the whole run's requests", async () => {
    // Answers slow enough that files extracted one after another still overlap on a busy machine.
    server.configure({ latencyMs: 250 });
    const cfg = config({ llm: { pack_max_files: 1, request_delay: 0.2 }, performance: { max_concurrent_files: 5 } });
    await run(fixture, openai(), cfg);
    // A run-wide spacing of 0.2 s would never have more than two requests in flight at 250 ms each.
    expect(server.stats.maxInFlight).toBeGreaterThanOrEqual(3);
  }, 30_000);
});

describe('prompt caching', () => {
  // A target structure long enough for the shared prefix to pass the providers' 1,024-token minimum.
  const bigTarget = Array.from({ length: 80 }, (_, i) => `├── src/module${i}/service${i}.ts   # service number ${i}: caching, routing and persistence`).join('\n');

  it('sends the shared prefix first and byte-identical, with a prompt_cache_key, and counts cached tokens (OpenAI)', async () => {
    const index = await run(fixture, openai(), config({ llm: { pack_max_files: 3 } }), { targetStructure: bigTarget });
    const bodies = server.stats.bodies.map((b) => JSON.parse(b) as { prompt_cache_key?: string; messages: Array<{ content: string }> });
    expect(bodies.length).toBeGreaterThan(2);
    const users = bodies.map((b) => b.messages[1]?.content ?? '');
    const prefix = users[0]?.slice(0, users[0].indexOf('<file n="')) ?? '';
    expect(prefix.length).toBeGreaterThan(4096);
    for (const user of users) expect(user.startsWith(prefix)).toBe(true);
    expect(new Set(bodies.map((b) => b.prompt_cache_key)).size).toBe(1);
    expect(bodies[0]?.prompt_cache_key).toMatch(/^coderag-profile-/);
    const usage = index.analysis_metadata.token_usage;
    expect(usage.cached_prompt_tokens).toBeGreaterThan(0);
    expect(usage.cached_prompt_tokens).toBe(server.stats.cachedPromptTokens);
  });

  it('marks the shared prefix with cache_control and counts cache reads (Anthropic)', async () => {
    const index = await run(fixture, anthropic(), config({ llm: { pack_max_files: 3 } }), { targetStructure: bigTarget });
    const bodies = server.stats.bodies.map((b) => JSON.parse(b) as { messages: Array<{ content: Array<{ text: string; cache_control?: unknown }> }> });
    const firstBlocks = bodies.map((b) => b.messages[0]?.content[0]);
    expect(new Set(firstBlocks.map((block) => block?.text)).size).toBe(1);
    for (const block of firstBlocks) expect(block?.cache_control).toEqual({ type: 'ephemeral' });
    const usage = index.analysis_metadata.token_usage;
    expect(usage.cached_prompt_tokens).toBeGreaterThan(0);
    // Prompt tokens count every token sent, cached or not.
    expect(usage.prompt_tokens).toBe(server.stats.promptTokens);
  });
});

describe('long files', () => {
  const longFile = Array.from({ length: 40 }, (_, i) => `export function step${i}(input: number): number {\n  // step ${i} of the long pipeline, with some padding text\n  return input + ${i};\n}\n`).join('\n');

  it('splits a file longer than the excerpt at symbol boundaries and merges the answers into one profile', async () => {
    const repo = makeTempRepo({ 'src/long.ts': longFile, 'src/short.ts': 'export const one = 1;\n' });
    const cfg = config({ file_analysis: { long_files: 'chunks', max_content_length: 1200, max_chunks_per_file: 3 } });
    const index = await run(repo.root, openai(), cfg);
    const sent = server.stats.bodies.join('\n');
    for (const part of ['src/long.ts#1', 'src/long.ts#2', 'src/long.ts#3']) expect(sent).toContain(`path=\\"${part}\\"`);
    expect(sent).not.toContain('src/long.ts#4');
    const long = index.file_summaries.find((f) => f.file_path === 'src/long.ts');
    expect(long?.profile_source).toBe('llm');
    expect(index.file_summaries.map((f) => f.file_path).sort()).toEqual(['src/long.ts', 'src/short.ts']);
    // Symbols of later chunks got descriptions too.
    expect(long?.symbols.find((s) => s.name === 'step15')?.description).toBeDefined();
  });

  it('sends only the head of a long file by default', async () => {
    const repo = makeTempRepo({ 'src/long.ts': longFile });
    await run(repo.root, openai(), config({ file_analysis: { max_content_length: 1200 } }));
    expect(server.stats.bodies.join('\n')).not.toContain('src/long.ts#');
  });
});
