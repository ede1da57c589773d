import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ProfileAnswerFormat } from '../../src/llm/answers.js';
import { ENTRY_LONG, RELATIONSHIP_LONG, longNamed, startFakeLlmServer, type FakeLlmServer } from './fakeLlmServer.js';
import { sampleFromSchema } from './schemaSample.js';

const FileProfile = z.object({
  summary: z.string().min(10),
  path: z.string(),
  symbols: z.array(z.string()).min(2).max(5),
  kind: z.enum(['library', 'cli', 'test', 'config']),
  complexity: z.number().int().min(1).max(5),
  confidence: z.number().min(0).max(1),
  deprecated: z.boolean(),
  owner: z.string().nullable(),
});

const PROMPT_A =
  'Profile the file src/index/loadIndex.ts:\n```ts\nexport function loadIndex(rootDir: string) { return readManifest(rootDir); }\n```';
const PROMPT_B =
  'Profile the file src/cli/runQuery.ts:\n```ts\nexport async function runQuery(queryText: string) { return searchProfiles(queryText); }\n```';

let server: FakeLlmServer;

function openai(opts: { timeout?: number } = {}): OpenAI {
  return new OpenAI({ apiKey: 'test-key', baseURL: server.openaiBaseUrl, maxRetries: 0, timeout: opts.timeout ?? 2000 });
}

function anthropic(opts: { timeout?: number } = {}): Anthropic {
  return new Anthropic({ apiKey: 'test-key', baseURL: server.anthropicBaseUrl, maxRetries: 0, timeout: opts.timeout ?? 2000 });
}

function schemaRequest(prompt: string) {
  return {
    model: 'gpt-fake-1',
    messages: [
      { role: 'system' as const, content: 'You profile source files.' },
      { role: 'user' as const, content: prompt },
    ],
    response_format: zodResponseFormat(FileProfile, 'file_profile'),
  };
}

const toolSchema = z.toJSONSchema(FileProfile) as Anthropic.Tool.InputSchema;

function toolRequest(prompt: string): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: 'claude-fake-1',
    max_tokens: 1024,
    system: 'You profile source files.',
    messages: [{ role: 'user', content: prompt }],
    tools: [{ name: 'record_profile', description: 'Record the file profile.', input_schema: toolSchema }],
    tool_choice: { type: 'tool', name: 'record_profile' },
  };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the request to fail');
}

beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 7 });
});

afterEach(() => {
  server.configure({ latencyMs: 0, faults: {}, rejectJsonSchema: false, respond: undefined, hangMs: 30_000, seed: 7, latencyPerTokenMs: 0, rateLimit: null, bareRateLimit: false });
  server.resetStats();
});

afterAll(async () => {
  await server.close();
});

describe('fake LLM server', () => {
  it('listens on 127.0.0.1 and exposes base URLs for both SDKs', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.openaiBaseUrl).toBe(`${server.url}/v1`);
    expect(server.anthropicBaseUrl).toBe(server.url);
  });

  it('answers an OpenAI json_schema request with a schema-valid parsed answer and usage', async () => {
    const completion = await openai().chat.completions.parse(schemaRequest(PROMPT_A));
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('stop');
    expect(choice.message.parsed).not.toBeNull();
    const profile = FileProfile.parse(choice.message.parsed);
    expect(profile.path).toBe('src/index/loadIndex.ts');
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-fake-1');
    const usage = completion.usage!;
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBe(Math.ceil((choice.message.content ?? '').length / 4));
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(server.stats.byOutcome['ok']).toBe(1);
  });

  it('derives answers from the prompt so different files get different answers', async () => {
    const client = openai();
    const a1 = await client.chat.completions.parse(schemaRequest(PROMPT_A));
    const a2 = await client.chat.completions.parse(schemaRequest(PROMPT_A));
    const b = await client.chat.completions.parse(schemaRequest(PROMPT_B));
    expect(a1.choices[0]!.message.content).toBe(a2.choices[0]!.message.content);
    expect(b.choices[0]!.message.content).not.toBe(a1.choices[0]!.message.content);
    const pb = FileProfile.parse(b.choices[0]!.message.parsed);
    const bWords = new Set(PROMPT_B.match(/[A-Za-z_]\w+/g));
    for (const symbol of pb.symbols) expect(bWords.has(symbol)).toBe(true);
  });

  it('answers an Anthropic tool request with a tool_use block whose input has the required properties', async () => {
    const message = await anthropic().messages.create(toolRequest(PROMPT_A));
    expect(message.type).toBe('message');
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toHaveLength(1);
    const block = message.content[0]!;
    expect(block.type).toBe('tool_use');
    if (block.type !== 'tool_use') return;
    expect(block.name).toBe('record_profile');
    for (const key of toolSchema.required ?? []) expect(block.input).toHaveProperty(key);
    expect(() => FileProfile.parse(block.input)).not.toThrow();
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('answers requests without a schema with plain text', async () => {
    const message = await anthropic().messages.create({
      model: 'claude-fake-1',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Say hello.' }],
    });
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'OK' });

    const completion = await openai().chat.completions.create({
      model: 'gpt-fake-1',
      messages: [{ role: 'user', content: 'Say hello.' }],
    });
    expect(completion.choices[0]!.message.content).toBe('OK');
  });

  it('fills a json_object answer from a schema embedded in a fenced json block of the last user message', async () => {
    const embedded = { type: 'object', properties: { title: { type: 'string' }, score: { type: 'integer', minimum: 3, maximum: 4 } }, required: ['title', 'score'] };
    const completion = await openai().chat.completions.create({
      model: 'gpt-fake-1',
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: `Answer with JSON matching:\n\`\`\`json\n${JSON.stringify(embedded)}\n\`\`\`` }],
    });
    const answer = JSON.parse(completion.choices[0]!.message.content ?? '') as { title: unknown; score: number };
    expect(typeof answer.title).toBe('string');
    expect([3, 4]).toContain(answer.score);

    const bare = await openai().chat.completions.create({
      model: 'gpt-fake-1',
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: 'Answer with JSON.' }],
    });
    expect(JSON.parse(bare.choices[0]!.message.content ?? '')).toEqual({});
  });

  it('uses the answer returned by respond() and passes it the parsed request', async () => {
    const seen: string[] = [];
    server.configure({
      respond: (req) => {
        seen.push(`${req.api}:${req.model}:${req.schema === undefined ? 'none' : 'schema'}`);
        return req.api === 'openai' ? { custom: req.prompt.length } : { summary: 'custom' };
      },
    });
    const completion = await openai().chat.completions.create({
      model: 'gpt-fake-1',
      messages: [{ role: 'user', content: 'abc' }],
    });
    expect(JSON.parse(completion.choices[0]!.message.content ?? '')).toEqual({ custom: 3 });
    const message = await anthropic().messages.create(toolRequest(PROMPT_A));
    expect(message.content[0]).toMatchObject({ type: 'tool_use', input: { summary: 'custom' } });
    expect(seen).toEqual(['openai:gpt-fake-1:none', 'anthropic:claude-fake-1:schema']);
  });

  it('surfaces a 429 as the SDK RateLimitError with retry-after headers', async () => {
    server.configure({ faults: { rate_limit: 1 }, retryAfterSeconds: 2 });
    const err = await caught(openai().chat.completions.create(schemaRequest(PROMPT_A)));
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const rl = err as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rl.status).toBe(429);
    expect(rl.headers?.get('retry-after')).toBe('2');
    expect(rl.headers?.get('retry-after-ms')).toBe('2000');
    expect(rl.code).toBe('rate_limit_exceeded');

    const aerr = await caught(anthropic().messages.create(toolRequest(PROMPT_A)));
    expect(aerr).toBeInstanceOf(Anthropic.RateLimitError);
    const arl = aerr as InstanceType<typeof Anthropic.RateLimitError>;
    expect(arl.headers?.get('retry-after')).toBe('2');
    expect(arl.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(server.stats.byOutcome['rate_limit']).toBe(2);
    server.configure({ retryAfterSeconds: 1 });
  });

  it('surfaces a 401 as the SDK AuthenticationError', async () => {
    server.configure({ faults: { unauthorized: 1 } });
    const err = await caught(openai().chat.completions.create(schemaRequest(PROMPT_A)));
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('invalid_api_key');
    const aerr = await caught(anthropic().messages.create(toolRequest(PROMPT_A)));
    expect(aerr).toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it('reports overload as Anthropic 529 overloaded_error and OpenAI 503, and server errors as 500', async () => {
    server.configure({ faults: { overloaded: 1 } });
    const aerr = await caught(anthropic().messages.create(toolRequest(PROMPT_A)));
    expect(aerr).toBeInstanceOf(Anthropic.InternalServerError);
    expect((aerr as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((aerr as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { type: 'overloaded_error' } });
    const oerr = await caught(openai().chat.completions.create(schemaRequest(PROMPT_A)));
    expect((oerr as InstanceType<typeof OpenAI.APIError>).status).toBe(503);

    server.configure({ faults: { server_error: 1 } });
    const serr = await caught(openai().chat.completions.create(schemaRequest(PROMPT_A)));
    expect(serr).toBeInstanceOf(OpenAI.InternalServerError);
    expect((serr as InstanceType<typeof OpenAI.APIError>).status).toBe(500);

    server.configure({ faults: { bad_request: 1 } });
    const berr = await caught(openai().chat.completions.create(schemaRequest(PROMPT_A)));
    expect(berr).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('marks a truncated answer with finish_reason length and Anthropic stop_reason max_tokens', async () => {
    server.configure({ faults: { truncated: 1 } });
    const completion = await openai().chat.completions.create(schemaRequest(PROMPT_A));
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('length');
    expect(() => JSON.parse(choice.message.content ?? '')).toThrow();

    const message = await anthropic().messages.create(toolRequest(PROMPT_A));
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.content[0]?.type).toBe('text');
    expect(server.stats.byOutcome['truncated']).toBe(2);
  });

  it('returns unparsable content for malformed_json', async () => {
    server.configure({ faults: { malformed_json: 1 } });
    const completion = await openai().chat.completions.create(schemaRequest(PROMPT_A));
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(() => JSON.parse(completion.choices[0]!.message.content ?? '')).toThrow();

    const message = await anthropic().messages.create(toolRequest(PROMPT_A));
    const block = message.content[0]!;
    expect(block.type).toBe('text');
    expect(() => JSON.parse(block.type === 'text' ? block.text : '')).toThrow();
  });

  it('lets the client timeout cut a hanging request and releases it', async () => {
    server.configure({ faults: { hang: 1 }, hangMs: 5000 });
    const started = Date.now();
    const err = await caught(openai({ timeout: 300 }).chat.completions.create(schemaRequest(PROMPT_A)));
    expect(err).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect(Date.now() - started).toBeLessThan(1500);
    const aerr = await caught(anthropic({ timeout: 300 }).messages.create(toolRequest(PROMPT_A)));
    expect(aerr).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    await vi.waitFor(() => expect(server.stats.inFlight).toBe(0), { timeout: 1000 });
    expect(server.stats.byOutcome['hang']).toBe(2);
  });

  it('drops a hanging request after hangMs', async () => {
    server.configure({ faults: { hang: 1 }, hangMs: 100 });
    const started = Date.now();
    const err = await caught(openai().chat.completions.create(schemaRequest(PROMPT_A)));
    expect(err).toBeInstanceOf(OpenAI.APIConnectionError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('ends hanging requests when closed', async () => {
    const own = await startFakeLlmServer({ faults: { hang: 1 }, hangMs: 60_000 });
    const pending = fetch(`${own.openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    }).then(
      () => 'answered',
      () => 'failed',
    );
    await vi.waitFor(() => expect(own.stats.byOutcome['hang']).toBe(1), { timeout: 1000 });
    const started = Date.now();
    await own.close();
    expect(await pending).toBe('failed');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(own.stats.inFlight).toBe(0);
  });

  it('records concurrency in maxInFlight', async () => {
    server.configure({ latencyMs: 400 });
    const client = openai();
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => client.chat.completions.parse(schemaRequest(`${PROMPT_A}\n// variant ${i}`))),
    );
    expect(results.every((r) => r.choices[0]!.message.parsed !== null)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(server.stats.requests).toBe(8);
    expect(server.stats.maxInFlight).toBe(8);
    expect(server.stats.inFlight).toBe(0);
  });

  it('rejects json_schema with 400 but accepts json_object when rejectJsonSchema is set', async () => {
    server.configure({ rejectJsonSchema: true });
    const err = await caught(openai().chat.completions.create(schemaRequest(PROMPT_A)));
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    const completion = await openai().chat.completions.create({
      model: 'gpt-fake-1',
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: 'Answer with JSON.' }],
    });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(server.stats.byOutcome).toMatchObject({ rejected_json_schema: 1, ok: 1 });
  });

  it('draws the same fault sequence for the same seed', async () => {
    const outcomes = async (s: FakeLlmServer): Promise<number[]> => {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const res = await fetch(`${s.openaiBaseUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `request ${i}` }] }),
        });
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      return statuses;
    };
    const faults = { rate_limit: 0.3, server_error: 0.2 };
    const s1 = await startFakeLlmServer({ seed: 42, faults });
    const s2 = await startFakeLlmServer({ seed: 42, faults });
    try {
      const first = await outcomes(s1);
      expect(await outcomes(s2)).toEqual(first);
      expect(first).toContain(200);
      expect(first).toContain(429);
      expect(first).toContain(500);
      s1.configure({ seed: 42 });
      expect(await outcomes(s1)).toEqual(first);
      expect(s2.stats.byOutcome['ok']! + s2.stats.byOutcome['rate_limit']! + s2.stats.byOutcome['server_error']!).toBe(30);
    } finally {
      await Promise.all([s1.close(), s2.close()]);
    }
  });

  it('keeps every raw request body and the API key never appears in them', async () => {
    await openai().chat.completions.create(schemaRequest(PROMPT_A));
    await anthropic().messages.create(toolRequest(PROMPT_B));
    expect(server.stats.bodies).toHaveLength(2);
    expect(server.stats.bodies[0]).toContain('loadIndex');
    expect(server.stats.bodies[1]).toContain('runQuery');
    for (const body of server.stats.bodies) expect(body).not.toContain('test-key');
    server.resetStats();
    expect(server.stats).toMatchObject({ requests: 0, bodies: [], byOutcome: {} });
  });

  it('answers the model list and 404 for unknown routes', async () => {
    const models = await openai().models.list();
    expect(models.data.map((m) => m.id)).toContain('gpt-fake-1');
    const res = await fetch(`${server.url}/v1/unknown`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });
});

describe('fake LLM server: packs, pacing and caching', () => {
  const packSchema = {
    type: 'object', required: ['files'], additionalProperties: false,
    properties: { files: { type: 'array', items: { type: 'object', required: ['path', 'summary', 'symbols'], additionalProperties: false, properties: {
      path: { type: 'string' }, summary: { type: 'string' },
      symbols: { type: 'array', items: { type: 'object', required: ['name', 'description'], properties: { name: { type: 'string' }, description: { type: 'string' } } } },
    } } } },
  };
  const packPrompt = ['a.ts', 'b.ts'].map((p) => `<file path="${p}">\nSymbols:\n- function run${p[0]} (1-3)\n</file>`).join('\n');
  const packRequest = (content = packPrompt) => ({
    model: 'gpt-fake-1',
    messages: [{ role: 'user' as const, content }],
    response_format: { type: 'json_schema' as const, json_schema: { name: 'pack', schema: packSchema, strict: true } },
  });

  it('answers a packed request with one entry per file tag, describing its listed symbols', async () => {
    const completion = await openai().chat.completions.create(packRequest());
    const answer = JSON.parse(completion.choices[0]?.message.content ?? '{}') as { files: Array<{ path: string; symbols: Array<{ name: string }> }> };
    expect(answer.files.map((f) => f.path)).toEqual(['a.ts', 'b.ts']);
    expect(answer.files[0]?.symbols.map((s) => s.name)).toEqual(['runa']);
  });

  it('says the same in CodeRAG\'s short answer shape as in the long one, in fewer tokens of a real tokenizer', async () => {
    const format = new ProfileAnswerFormat(['direct_match', 'reference'], 0.3);
    const short = format.schema as any;
    // The long shape: the same field schemas under the long names, files named by path.
    const item = short.properties.files.items;
    const relationship = longNamed(item.properties.related.items, RELATIONSHIP_LONG);
    const longItem = longNamed(item, { ...ENTRY_LONG, file: 'path' });
    longItem.properties = {
      ...longItem.properties,
      path: { type: 'string' },
      symbols: { type: 'array', items: { type: 'object', required: ['name', 'description'], properties: { name: { type: 'string' }, description: { type: 'string' } } } },
      relationships: { type: 'array', items: relationship },
    };
    const long = { ...short, properties: { files: { type: 'array', items: longItem } } };
    const prompt = `Target:\nsrc/cache/lru.ts\nsrc/http/client.ts\n\n${['a.ts', 'b.ts'].map((p, i) => `<file n="${i + 1}" path="${p}">\nSymbols:\n- class Cache${i} (1-9)\n- method Cache${i}-get (2-4)\n</file>`).join('\n')}`;
    const ask = (schema: unknown) => openai().chat.completions.create({ model: 'gpt-fake-1', messages: [{ role: 'user', content: prompt }], response_format: { type: 'json_schema', json_schema: { name: 'file_profiles', schema: schema as Record<string, unknown>, strict: true } } });
    const [shortAnswer, longAnswer] = await Promise.all([ask(short), ask(long)]);
    const paths = ['a.ts', 'b.ts'];
    const entries = (completion: OpenAI.ChatCompletion) => format.entries(JSON.parse(completion.choices[0]?.message.content ?? '{}'), paths) as Map<string, unknown>;
    const [s, l] = [entries(shortAnswer), entries(longAnswer)];
    let relationships = 0;
    for (const path of paths) {
      const said = format.parse(s.get(path));
      if (typeof said !== 'string') relationships += said.relationships.length;
      expect(said).toMatchObject({ summary: expect.any(String), descriptions: [{ name: expect.stringMatching(/^Cache/) }, expect.anything()] });
      expect(format.parse(l.get(path))).toEqual(said);
    }
    expect(relationships).toBeGreaterThan(0);
    // Counted by a real model's tokenizer (o200k_base), not the fake's estimate: the same content, fewer tokens to write.
    const tokens = (completion: OpenAI.ChatCompletion) => new Tiktoken(o200k).encode(completion.choices[0]?.message.content ?? '').length;
    expect(tokens(shortAnswer)).toBeLessThan(0.85 * tokens(longAnswer));
  });

  it('takes longer the longer the answer is, with a delay per answer token', async () => {
    server.configure({ latencyPerTokenMs: 2 });
    const started = performance.now();
    const completion = await openai().chat.completions.create(packRequest());
    expect(performance.now() - started).toBeGreaterThanOrEqual(2 * (completion.usage?.completion_tokens ?? 0) - 5);
  });

  it('enforces a rolling request window with the real headers, and a 429 with retry-after past it', async () => {
    server.configure({ rateLimit: { requestsPerMinute: 2, windowMs: 1000 } });
    const first = await openai().chat.completions.create(packRequest()).withResponse();
    expect(first.response.headers.get('x-ratelimit-limit-requests')).toBe('120');
    expect(first.response.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect(first.response.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+\.\d{3}s$/);
    await openai().chat.completions.create(packRequest());
    const err = await caught(openai().chat.completions.create(packRequest()));
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('1');
    const answer = await caught(anthropic().messages.create(toolRequest(PROMPT_A)));
    expect((answer as InstanceType<typeof Anthropic.RateLimitError>).headers?.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(server.stats.byOutcome['rate_limited_window']).toBe(2);
  });

  it('sends a 429 with no headers at all when bareRateLimit is set', async () => {
    server.configure({ faults: { rate_limit: 1 }, bareRateLimit: true });
    const err = await caught(openai().chat.completions.create(schemaRequest(PROMPT_A)));
    const headers = (err as InstanceType<typeof OpenAI.RateLimitError>).headers;
    expect(headers?.get('retry-after')).toBeNull();
    expect(headers?.get('x-request-id')).toBeNull();
  });

  it('reports a repeated prefix of 1,024 tokens or more as cached, as OpenAI and Anthropic do', async () => {
    const prefix = 'Shared instructions for every request. '.repeat(120);
    await openai().chat.completions.create(packRequest(`${prefix}${packPrompt}`));
    const again = await openai().chat.completions.create(packRequest(`${prefix}<file path="c.ts">\n- function c (1-2)\n</file>`));
    expect(again.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThanOrEqual(1024);
    expect((again.usage?.prompt_tokens_details?.cached_tokens ?? 0) % 128).toBe(0);

    const message = (suffix: string): Anthropic.MessageCreateParamsNonStreaming => ({
      ...toolRequest(PROMPT_A),
      messages: [{ role: 'user', content: [{ type: 'text', text: prefix, cache_control: { type: 'ephemeral' } }, { type: 'text', text: suffix }] }],
    });
    const first = await anthropic().messages.create(message('one'));
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(1000);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    const second = await anthropic().messages.create(message('two'));
    expect(second.usage.cache_read_input_tokens).toBeGreaterThan(1000);
  });
});

describe('schema sample synthesis', () => {
  it('produces values that satisfy bounds, enums, nullable, anyOf and references', () => {
    const Item = z.object({ name: z.string(), weight: z.number().gt(0).lt(1) });
    const Schema = z.object({
      id: z.string().uuid(),
      title: z.string().min(40).max(60),
      count: z.number().int().min(10).max(12),
      step: z.number().int().multipleOf(5).min(1).max(20),
      tags: z.array(z.string()).min(3).max(3),
      level: z.enum(['low', 'medium', 'high']),
      maybe: z.string().nullable(),
      either: z.union([z.number().int().min(100), z.literal('none')]),
      nested: z.array(Item).min(1),
      created: z.iso.datetime(),
    });
    const json = z.toJSONSchema(Schema);
    for (const prompt of ['', 'parseConfig loadIndex', PROMPT_A, PROMPT_B]) {
      const value = sampleFromSchema(json, prompt);
      expect(() => Schema.parse(value), `prompt: ${prompt}`).not.toThrow();
    }
    const refSchema = {
      $defs: { node: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] } },
      type: 'object',
      properties: { root: { $ref: '#/$defs/node' }, flag: { type: ['boolean', 'null'] } },
      required: ['root', 'flag'],
    };
    const value = sampleFromSchema(refSchema, PROMPT_A) as { root: { label: unknown }; flag: unknown };
    expect(typeof value.root.label).toBe('string');
    expect(typeof value.flag).toBe('boolean');
  });

  it('chooses enum members deterministically from the prompt', () => {
    const schema = { type: 'string', enum: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] };
    expect(sampleFromSchema(schema, PROMPT_A)).toBe(sampleFromSchema(schema, PROMPT_A));
    const picks = new Set(Array.from({ length: 20 }, (_, i) => sampleFromSchema(schema, `file ${i}`)));
    expect(picks.size).toBeGreaterThan(1);
  });
});
