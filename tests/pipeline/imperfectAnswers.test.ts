/**
 * Answers that are valid JSON but imperfect, through the real `openai` and `@anthropic-ai/sdk` clients
 * against the fake server on 127.0.0.1: symbols named in another form than listed, descriptions of symbols
 * the file does not have, relationships to paths outside the target structure, and an entry that stays
 * unusable. No file is lost to any of them. Nothing here mocks an SDK.
 */
import { cpSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import type { RepoIndex } from '../../src/index/types.js';
import { AnthropicProvider } from '../../src/llm/anthropic.js';
import { OpenAiProvider } from '../../src/llm/openai.js';
import type { LlmProvider } from '../../src/llm/provider.js';
import { createLlmSession } from '../../src/pipeline/llmSession.js';
import { indexRepository, runIndex } from '../../src/pipeline/runIndex.js';
import { rewriteEntries, startFakeLlmServer, symbolName, type AnswerEntry, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir } from '../support/tempRepo.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');
const TARGET = `new-service/
├── src/cache/ttl_cache.ts      # cache with per-entry TTL
├── src/http/router.ts          # request routing
└── src/store/kv.py             # key-value persistence
`;

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 11 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.configure({ latencyMs: 0, faults: {}, respond: undefined });
  server.resetStats();
});

function config(overrides: ConfigInput = {}) {
  return validateConfig({
    ...overrides,
    paths: { cache_dir: makeTempDir('coderag-cache-'), ...overrides.paths },
    llm: { request_delay: 0, retry_delay: 0.01, max_retry_after: 0.05, request_timeout: 5, ...overrides.llm },
    performance: { max_concurrent_files: 3, ...overrides.performance },
  });
}

const openai = () => new OpenAiProvider({ apiKey: 'sk-test-key-for-fake', baseURL: server.openaiBaseUrl, model: 'gpt-test', timeoutMs: 5000 });
const anthropic = () => new AnthropicProvider({ apiKey: 'sk-ant-test-key-for-fake', baseURL: server.anthropicBaseUrl, model: 'claude-test', timeoutMs: 5000 });

async function run(provider: LlmProvider, cfg = config(), targetStructure: string | null = TARGET): Promise<RepoIndex> {
  const llm = createLlmSession({ provider, config: cfg, targetStructure });
  return indexRepository(fixture, { config: cfg, llm });
}

describe.each([
  ['OpenAI', openai],
  ['Anthropic', anthropic],
])('imperfect answers through the %s SDK', (_name, provider) => {
  it('keeps the descriptions of symbols named A.b, A::b or in another case for A-b', async () => {
    const forms = [(n: string) => n.replace(/-/g, '.'), (n: string) => n.replace(/-/g, '::'), (n: string) => `${n.toUpperCase()}()`];
    rewriteEntries(server, (entry) => {
      entry.symbols = (entry.symbols ?? []).map(symbolName).map((name, i) => `${(forms[i % forms.length] as (n: string) => string)(name)}: Said of ${name}.`);
      // And one the file does not have: dropped, the rest kept.
      entry.symbols.push('Nowhere.toBeFound: Invented.');
    });
    const index = await run(provider());
    expect(server.stats.requests).toBeLessThan(index.file_summaries.length); // nothing asked again alone
    for (const file of index.file_summaries) {
      expect(file.status).toBe('ok');
      expect(file.profile_source).toBe('llm');
    }
    const cache = index.file_summaries.find((f) => f.file_path === 'src/cache/lruCache.ts');
    const scoped = cache?.symbols.filter((s) => s.ast_path.includes('-')) ?? [];
    expect(scoped.length).toBeGreaterThan(0);
    const described = scoped.filter((s) => s.description === `Said of ${s.ast_path}.`);
    expect(described.length).toBeGreaterThan(0);
    expect(index.file_summaries.flatMap((f) => f.symbols).some((s) => s.description === 'Invented.')).toBe(false);
  });

  it('reads answers written in the long shape: paths, long keys, symbols as objects', async () => {
    rewriteEntries(server, (entry, path) => {
      const { file: _file, type, symbols, summary, concepts, related } = entry as AnswerEntry & { type: string; summary: string; concepts: string[]; related: Array<Record<string, unknown>> };
      for (const key of Object.keys(entry)) delete entry[key];
      Object.assign(entry, {
        path: `./${path}`, file_type: type, summary, key_concepts: concepts,
        symbols: (symbols ?? []).map((line) => ({ name: symbolName(line), description: line.slice(line.indexOf(':') + 1).trim() })),
        relationships: related.map((r) => ({ target_file_path: r.to, relationship_type: r.type, confidence_score: r.confidence, helpful_aspects: r.aspects, potential_contributions: r.contributions, usage_suggestions: r.usage })),
      });
    });
    const index = await run(provider());
    expect(server.stats.requests).toBeLessThan(index.file_summaries.length); // nothing asked again alone
    for (const file of index.file_summaries) expect(file.profile_source).toBe('llm');
    expect(index.file_summaries.flatMap((f) => f.symbols).some((s) => s.description?.startsWith('Handles '))).toBe(true);
    expect(index.relationships.length).toBeGreaterThan(0);
  });

  it('keeps relationships into the target structure, under its paths, and drops and counts the others', async () => {
    const targets = ['Node.js', './option.js', 'tsconfig.js.json', './src/cache/ttl_cache.ts', 'new-service/src/http/router.TS', 'src/store/kv.py'];
    rewriteEntries(server, (entry) => {
      entry.related = targets.map((to) => ({ to, type: 'reference', confidence: 0.8, aspects: ['a'], contributions: ['b'], usage: 'c' }));
    });
    const index = await run(provider());
    const files = index.file_summaries.length;
    expect(new Set(index.relationships.map((r) => r.target_file_path))).toEqual(new Set(['src/cache/ttl_cache.ts', 'src/http/router.ts', 'src/store/kv.py']));
    expect(index.relationships).toHaveLength(3 * files);
    expect(index.analysis_metadata.relationships_outside_target).toBe(3 * files);
  });
});

describe('an entry that stays unusable', () => {
  it('leaves the static profile, not failed, with the reason and the count', async () => {
    const broken = 'lib/tax.rb';
    rewriteEntries(server, (entry, path) => {
      if (path === broken) delete entry.summary;
    });
    const index = await run(openai(), config({ llm: { max_retries: 2 } }));
    const tax = index.file_summaries.find((f) => f.file_path === broken);
    expect(tax).toMatchObject({ status: 'ok', profile_source: 'static' });
    expect(tax?.reason).toMatch(/^llm_unusable: answer has the wrong shape/);
    expect(tax?.summary.length).toBeGreaterThan(0);
    expect(index.analysis_metadata.files_by_status.failed).toBe(0);
    expect(index.analysis_metadata.llm_unusable_files).toBe(1);
    for (const file of index.file_summaries.filter((f) => f.file_path !== broken)) expect(file.profile_source).toBe('llm');
  });

  it('is not kept, reason and all, by a later run without a model, even when its imports resolve again', async () => {
    const broken = 'lib/billing.rb';
    rewriteEntries(server, (entry, path) => {
      if (path === broken) delete entry.summary;
    });
    const repo = path.join(makeTempDir(), 'poly');
    cpSync(fixture, repo, { recursive: true });
    const out = makeTempDir();
    const cfg = config({ llm: { max_retries: 0 } });
    await runIndex([repo], { config: cfg, outDir: out, llm: createLlmSession({ provider: openai(), config: cfg, targetStructure: TARGET }) });
    // billing.rb requires tax.rb: without it, billing.rb's imports resolve otherwise.
    rmSync(path.join(repo, 'lib/tax.rb'));

    const plain = config();
    const again = await runIndex([repo], { config: plain, outDir: out });
    const full = await runIndex([repo], { config: plain, outDir: makeTempDir(), reuse: false });
    const billing = (written: typeof again) => (JSON.parse(readFileSync(written.written[0]?.outputPath as string, 'utf8')) as RepoIndex).file_summaries.find((f) => f.file_path === broken);
    expect(billing(full)?.reason).toBeUndefined();
    expect(billing(again)).toEqual(billing(full));
  });
});
