/**
 * The planning loop through the library API, against the fake server behind the real SDKs: answers come from
 * an injected source, the checkpoint from an injected store that records every save.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, type Config } from '../../src/config/schema.js';
import { AnthropicProvider } from '../../src/llm/anthropic.js';
import { OpenAiProvider } from '../../src/llm/openai.js';
import type { LlmProvider } from '../../src/llm/provider.js';
import { listAnswers, type AnswerSource } from '../../src/plan/answers.js';
import { isApproval, plan, type PlanEvent, type PlanOptions } from '../../src/plan/plan.js';
import type { PlanState, PlanStateStore } from '../../src/plan/state.js';
import { indexRepo } from '../../src/lib.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir } from '../support/tempRepo.js';
import { CACHE_PLAN, isPlanRequest, planScript, proposal, question } from './planScript.js';

let server: FakeLlmServer;

beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 5 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.configure({ latencyMs: 0, faults: {}, respond: undefined });
  server.resetStats();
});

function config(): Config {
  const c = defaultConfig();
  c.llm.request_delay = 0;
  c.llm.retry_delay = 0;
  return c;
}

function openai(): LlmProvider {
  return new OpenAiProvider({ apiKey: 'sk-test-plan-0123456789abcdefghij', baseURL: server.openaiBaseUrl, model: 'gpt-fake-1', timeoutMs: 10_000 });
}

/** A checkpoint in memory that keeps a copy of every save. */
function memoryStore(initial: PlanState | null = null) {
  let current = initial ? structuredClone(initial) : null;
  const saves: PlanState[] = [];
  const store: PlanStateStore & { saves: PlanState[]; current: () => PlanState | null; removed: boolean } = {
    location: '/memory/plan.json',
    saves,
    removed: false,
    current: () => current,
    load: async () => (current ? structuredClone(current) : null),
    save: async (state) => {
      current = structuredClone(state);
      saves.push(structuredClone(state));
    },
    remove: async () => {
      current = null;
      store.removed = true;
    },
  };
  return store;
}

function run(overrides: Partial<PlanOptions> & { answers: AnswerSource }) {
  const written: Record<string, string> = {};
  const events: PlanEvent[] = [];
  const store = (overrides.store as ReturnType<typeof memoryStore> | undefined) ?? memoryStore();
  const result = plan({
    query: 'a caching HTTP service with a TTL',
    provider: openai(),
    config: config(),
    out: '/memory/target_structure.md',
    store,
    writeOutput: async (file, text) => {
      written[file] = text;
    },
    onEvent: (e) => events.push(e),
    ...overrides,
  });
  return { result, written, events, store };
}

describe('plan()', () => {
  it('asks a question, takes the answer, proposes, and writes the approved structure', async () => {
    server.configure({ respond: planScript([question('Should entries expire individually or all at once?'), CACHE_PLAN]) });
    const { result, written, events, store } = run({ answers: listAnswers(['individually, after a TTL per entry', 'approve']) });
    const done = await result;
    expect(done.ending).toBe('approved');
    expect(done.files.map((f) => f.path)).toEqual(['src/cache/clock.ts', 'src/cache/ttlCache.ts', 'src/http/server.ts']);
    const text = written['/memory/target_structure.md'];
    expect(text).toContain('src/cache/ttlCache.ts');
    expect(text).toMatch(/^src\/cache\/ttlCache\.ts\s+# An LRU cache whose entries expire after a time to live$/m);
    expect(events.filter((e) => e.type === 'turn').map((e) => (e.type === 'turn' ? e.turn.kind : ''))).toEqual(['question', 'proposal']);
    // The second request carried the first answer.
    expect(server.stats.bodies[1]).toContain('individually, after a TTL per entry');
    expect(store.removed).toBe(true);
  });

  it('checkpoints after every model answer and every author answer', async () => {
    server.configure({ respond: planScript([question('Which storage?'), question('Which protocol?'), CACHE_PLAN]) });
    const { result, store } = run({ answers: listAnswers(['memory', 'http', 'done']) });
    await result;
    const shapes = store.saves.map((s) => s.turns.map((t) => (t.answer === null ? `${t.model.kind}?` : `${t.model.kind}:${t.answer}`)).join(' '));
    expect(shapes).toEqual([
      '',
      'question?',
      'question:memory',
      'question:memory question?',
      'question:memory question:http',
      'question:memory question:http proposal?',
    ]);
  });

  it('resumes at the turn that was awaiting an answer, without asking the model again', async () => {
    server.configure({ respond: planScript([question('Which storage?'), CACHE_PLAN]) });
    const store = memoryStore({
      format: 'coderag-plan-state',
      version: 1,
      query: 'a caching HTTP service with a TTL',
      context: '',
      turns: [{ model: { kind: 'question', message: 'Which storage?' }, answer: null }],
      started_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    const { result, events } = run({ store, resume: true, query: undefined, answers: listAnswers(['memory', 'approve']) });
    const done = await result;
    expect(done.ending).toBe('approved');
    expect(events[0]).toEqual({ type: 'resumed', turns: 0, location: '/memory/plan.json' });
    expect(events[1]).toMatchObject({ type: 'turn', number: 1, turn: { kind: 'question', message: 'Which storage?' } });
    expect(server.stats.requests).toBe(1);
    expect(server.stats.bodies[0]).toContain('The author answered: memory');
  });

  it('refuses to start over a saved conversation, and to resume when none is saved', async () => {
    const saved = memoryStore({
      format: 'coderag-plan-state', version: 1, query: 'q', context: '', turns: [],
      started_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
    });
    await expect(run({ store: saved, answers: listAnswers([]) }).result).rejects.toThrow('a conversation is already saved in /memory/plan.json');
    await expect(run({ resume: true, answers: listAnswers([]) }).result).rejects.toThrow('no saved conversation to resume');
    await expect(run({ store: saved, resume: true, query: 'something else', answers: listAnswers([]) }).result).rejects.toThrow('holds a conversation about another query');
    expect(server.stats.requests).toBe(0);
  });

  it('takes the end of input after a proposal as approval, and reports it before any proposal', async () => {
    server.configure({ respond: planScript([CACHE_PLAN]) });
    const approved = run({ answers: listAnswers([]) });
    expect((await approved.result).ending).toBe('approved');
    expect(approved.events).toContainEqual({ type: 'note', message: 'input ended after a proposal: taking it as approved' });

    server.configure({ respond: planScript([question('Which storage?'), CACHE_PLAN]) });
    const early = run({ answers: listAnswers([]) });
    await expect(early.result).rejects.toThrow('the input ended before the model proposed a structure');
    expect(early.store.current()?.turns).toHaveLength(1);
    expect(early.store.removed).toBe(false);
  });

  it('asks for a final structure when the author approves before any proposal', async () => {
    server.configure({ respond: planScript([question('Which storage?'), question('Anything else?'), CACHE_PLAN]) });
    const { result, events } = run({ answers: listAnswers(['SOLUTION APPROVED']) });
    const done = await result;
    expect(done.ending).toBe('approved');
    expect(done.files).toHaveLength(3);
    expect(server.stats.bodies[1]).toContain('This is the last turn');
    expect(events).toContainEqual({ type: 'note', message: 'approved before any proposal: asking the model for its final structure' });
  });

  it('resumes an approval whose final structure never came by asking for it again', async () => {
    server.configure({ respond: (req) => (isPlanRequest(req) ? { kind: 'question', message: 'One more thing?', files: [] } : undefined) });
    const c = config();
    c.llm.max_retries = 0;
    const first = run({ config: c, answers: listAnswers(['done']) });
    await expect(first.result).rejects.toThrow('a question where a final structure was required');
    expect(first.store.current()?.turns.map((t) => t.answer)).toEqual(['done']);

    server.configure({ respond: planScript([CACHE_PLAN]) });
    server.resetStats();
    const resumed = run({ store: first.store, resume: true, answers: listAnswers([]) });
    expect((await resumed.result).ending).toBe('approved');
    expect(server.stats.bodies[0]).toContain('This is the last turn');
  });

  it('ends at the turn limit with a last proposal, and says so', async () => {
    server.configure({ respond: planScript([question('One?'), question('Two?'), question('Three?'), CACHE_PLAN]) });
    const { result, events } = run({ maxTurns: 2, answers: listAnswers(['a', 'b', 'c']) });
    const done = await result;
    expect(done.ending).toBe('turn_limit');
    expect(done.turns).toBe(2);
    expect(server.stats.requests).toBe(2);
    expect(server.stats.bodies[1]).toContain('This is the last turn');
    expect(events).toContainEqual({ type: 'note', message: 'turn limit reached (2 turns): writing the last proposal without approval' });
  });

  it('retries an answer that is neither a question nor a structure, then reports it and keeps the conversation', async () => {
    server.configure({ respond: (req) => (isPlanRequest(req) ? { kind: 'musing', message: 'hmm', files: [] } : undefined) });
    const c = config();
    c.llm.max_retries = 2;
    const { result, store } = run({ config: c, answers: listAnswers(['approve']) });
    await expect(result).rejects.toThrow('the model answered with neither a question nor a structure, 3 times: answer has the wrong shape (neither a question nor a structure: kind "musing")');
    expect(server.stats.requests).toBe(3);
    expect(store.current()).not.toBeNull();
  });

  it('rejects a proposal whose paths leave the project, as an unusable answer', async () => {
    const bad = proposal({ '../outside.ts': 'escapes the project' });
    server.configure({ respond: planScript([bad]) });
    const c = config();
    c.llm.max_retries = 0;
    await expect(run({ config: c, answers: listAnswers([]) }).result).rejects.toThrow('files[0].path: "../outside.ts" is not a relative file path inside the project');
  });

  it('speaks the Anthropic wire format too', async () => {
    server.configure({ respond: planScript([question('Which storage?'), CACHE_PLAN]) });
    const provider = new AnthropicProvider({ apiKey: 'sk-ant-test-0123456789abcdefghij', baseURL: server.anthropicBaseUrl, model: 'claude-fake-1', timeoutMs: 10_000 });
    const { result, written } = run({ provider, answers: listAnswers(['memory', 'approve']) });
    expect((await result).ending).toBe('approved');
    expect(written['/memory/target_structure.md']).toContain('src/http/server.ts');
    expect(JSON.parse(server.stats.bodies[0] ?? '{}').tool_choice).toEqual({ type: 'tool', name: 'plan_turn' });
  });

  it('sends the input documents screened, and names the files it skipped', async () => {
    const inputs = makeTempDir();
    writeFileSync(path.join(inputs, 'spec.md'), '# Cache\nEntries expire. api_key = "Zx9Qw8Er7Ty6Ui5Op4As3Df2"\n');
    mkdirSync(path.join(inputs, 'notes'));
    writeFileSync(path.join(inputs, 'notes', 'scan.txt'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    writeFileSync(path.join(inputs, 'notes', 'dump.txt'), 'x'.repeat(2000));
    writeFileSync(path.join(inputs, 'diagram.png'), 'not read');
    server.configure({ respond: planScript([CACHE_PLAN]) });
    const c = config();
    c.plan.max_input_file_size = 1000;
    const { result, events } = run({ config: c, inputsDir: inputs, answers: listAnswers(['approve']) });
    await result;
    const sent = server.stats.bodies[0] ?? '';
    expect(sent).toContain('Entries expire.');
    expect(sent).not.toContain('Zx9Qw8Er7Ty6Ui5Op4As3Df2');
    expect(sent).not.toContain('not read');
    const notes = events.flatMap((e) => (e.type === 'note' ? [e.message] : []));
    expect(notes).toContain('input notes/scan.txt skipped (binary: contains NUL bytes)');
    expect(notes).toContain('input notes/dump.txt skipped (too large: size 2000 bytes exceeds the 1000 byte limit)');
    expect(notes).toContain('1 secret redacted from the inputs');
  });
});

describe('plan() with --indexes', () => {
  it('shows the model the indexed files, so a proposal can say what each planned file draws on', async () => {
    const indexes = makeTempDir();
    const index = await indexRepo(path.resolve(import.meta.dirname, '../fixtures/polyglot'), { config: { performance: { parse_workers: 0 } } });
    writeFileSync(path.join(indexes, 'polyglot_index.json'), JSON.stringify(index));
    server.configure({ respond: planScript([CACHE_PLAN]) });
    const { result } = run({ indexesDir: indexes, answers: listAnswers(['approve']) });
    await result;
    const sent = JSON.parse(server.stats.bodies[0] ?? '{}').messages[1].content as string;
    expect(sent).toContain('Repository polyglot (');
    expect(sent).toMatch(/- polyglot\/src\/cache\/lruCache\.ts: \S/);
    expect(sent).not.toContain('polyglot/src/cache/lruCache.test.ts');
  });

  it('is an error when the indexes folder holds no index', async () => {
    await expect(run({ indexesDir: makeTempDir(), answers: listAnswers([]) }).result).rejects.toThrow('no index files found in');
    await expect(run({ indexesDir: '/nonexistent/indexes', answers: listAnswers([]) }).result).rejects.toThrow('indexes folder not found: /nonexistent/indexes');
    expect(server.stats.requests).toBe(0);
  });
});

describe('isApproval', () => {
  it.each([
    ['approve', true],
    ['Approved.', true],
    ['done', true],
    ['DONE!', true],
    ['SOLUTION APPROVED', true],
    ['  solution approved  ', true],
    ['not done yet', false],
    ['approve, but rename the cache', false],
    ['', false],
  ])('%j -> %s', (answer, expected) => {
    expect(isApproval(answer)).toBe(expected);
  });
});

describe('the written structure', () => {
  it('lists one file per line with its purpose, in path order', async () => {
    server.configure({ respond: planScript([CACHE_PLAN]) });
    const { result, written } = run({ answers: listAnswers(['done']) });
    await result;
    const text = written['/memory/target_structure.md'] ?? '';
    const lines = text.split('\n').filter((l) => l.includes(' # '));
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(['src/cache/clock.ts', 'src/cache/ttlCache.ts', 'src/http/server.ts']);
    expect(text).toContain('Request: a caching HTTP service with a TTL');
  });
});
