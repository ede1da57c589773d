/**
 * A fake OpenAI / Anthropic HTTP server for tests and benchmarks.
 *
 * Real HTTP on 127.0.0.1 (node:http only). Speaks the wire formats the
 * official `openai` and `@anthropic-ai/sdk` clients use:
 *   - POST /v1/chat/completions   (OpenAI, non-streaming)
 *   - POST /v1/messages           (Anthropic, non-streaming)
 *   - GET  /v1/models             (either provider's model list)
 *   - the batch APIs of both providers (fakeBatchApi.ts)
 * Answers are synthesised from the request's JSON schema (see schemaSample.ts),
 * with configurable latency and seeded, reproducible fault injection.
 *
 * Standalone:
 *   node --import tsx tests/support/fakeLlmServer.ts --port 8787 --latency 200 \
 *     [--faults rate_limit=0.2,server_error=0.05] [--seed 42] [--hang-ms 30000] \
 *     [--retry-after 1] [--reject-json-schema]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { sampleFromSchema } from './schemaSample.js';
import { createFakeBatchApi, type FakeBatchApi, type FakeBatchOptions, type SyntheticAnswer } from './fakeBatchApi.js';

export type FaultKind =
  | 'rate_limit'
  | 'server_error'
  | 'overloaded'
  | 'hang'
  | 'malformed_json'
  | 'truncated'
  | 'unauthorized'
  | 'bad_request';

export interface FakeLlmOptions {
  /** Added before every answer (default 0). */
  latencyMs?: number;
  /** Probability per request of each fault, e.g. { rate_limit: 0.2, server_error: 0.05 }. */
  faults?: Partial<Record<FaultKind, number>>;
  /** Seed of the PRNG that draws faults, so fault sequences are reproducible. */
  seed?: number;
  /** Retry-After header on 429 (default 1); retry-after-ms is sent too. */
  retryAfterSeconds?: number;
  /** How long a 'hang' waits before dropping the connection (default 30000); ended early by close(). */
  hangMs?: number;
  /** Answer 400 to OpenAI requests whose response_format is json_schema. */
  rejectJsonSchema?: boolean;
  /** Custom answer object; undefined -> synthesise from the schema. */
  respond?: (req: FakeRequest) => unknown | undefined;
  /** How submitted batches progress and end (fakeBatchApi.ts). */
  batch?: FakeBatchOptions;
}

export interface FakeRequest {
  api: 'openai' | 'anthropic';
  model: string;
  body: any;
  prompt: string;
  schema: unknown | undefined;
}

export interface FakeLlmStats {
  requests: number;
  inFlight: number;
  maxInFlight: number;
  byOutcome: Record<string, number>;
  bodies: string[];
}

export interface FakeLlmServer {
  url: string;
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  stats: FakeLlmStats;
  /** The batch endpoints: what was submitted, and `forget()` to lose every batch. */
  batch: FakeBatchApi;
  configure(opts: Partial<FakeLlmOptions>): void;
  resetStats(): void;
  close(): Promise<void>;
}

const FAULT_ORDER: readonly FaultKind[] = [
  'rate_limit',
  'server_error',
  'overloaded',
  'hang',
  'malformed_json',
  'truncated',
  'unauthorized',
  'bad_request',
];

const HOST = '127.0.0.1';
const MAX_BODY_BYTES = 64 * 1024 * 1024;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

// ---------------------------------------------------------------------------
// Prompt / schema extraction

function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') parts.push(part);
    else if (part && typeof part === 'object') {
      const p = part as Record<string, unknown>;
      if (typeof p['text'] === 'string') parts.push(p['text']);
      else if (p['type'] === 'tool_result') parts.push(textOfContent(p['content']));
      else if (p['type'] === 'tool_use' && p['input'] !== undefined) parts.push(JSON.stringify(p['input']));
    }
  }
  return parts.join('\n');
}

interface Extracted {
  prompt: string;
  lastUser: string;
}

function extractOpenAi(body: any): Extracted {
  const messages: unknown[] = Array.isArray(body?.messages) ? body.messages : [];
  const texts: string[] = [];
  let lastUser = '';
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const msg = m as Record<string, unknown>;
    const text = textOfContent(msg['content']);
    texts.push(text);
    if (msg['role'] === 'user') lastUser = text;
  }
  return { prompt: texts.join('\n'), lastUser };
}

function extractAnthropic(body: any): Extracted {
  const texts: string[] = [];
  if (body?.system !== undefined) texts.push(textOfContent(body.system));
  const messages: unknown[] = Array.isArray(body?.messages) ? body.messages : [];
  let lastUser = '';
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    const msg = m as Record<string, unknown>;
    const text = textOfContent(msg['content']);
    texts.push(text);
    if (msg['role'] === 'user') lastUser = text;
  }
  return { prompt: texts.join('\n'), lastUser };
}

function looksLikeSchema(v: unknown): boolean {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o['type'] === 'string' ||
    Array.isArray(o['type']) ||
    (o['properties'] !== undefined && typeof o['properties'] === 'object') ||
    o['$schema'] !== undefined ||
    Array.isArray(o['anyOf']) ||
    Array.isArray(o['oneOf'])
  );
}

/** A JSON schema in a fenced ```json block of the text, if any. */
function embeddedSchema(text: string): unknown | undefined {
  for (const match of text.matchAll(/```json[^\n]*\n([\s\S]*?)```/g)) {
    try {
      const parsed: unknown = JSON.parse(match[1] ?? '');
      if (looksLikeSchema(parsed)) return parsed;
    } catch {
      // not JSON; keep looking
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Error bodies

interface ErrorSpec {
  status: number;
  openaiType: string;
  openaiCode: string | null;
  anthropicType: string;
  message: string;
}

function errorSpec(kind: string, api: 'openai' | 'anthropic', message?: string): ErrorSpec {
  switch (kind) {
    case 'rate_limit':
      return {
        status: 429,
        openaiType: 'requests',
        openaiCode: 'rate_limit_exceeded',
        anthropicType: 'rate_limit_error',
        message: message ?? 'Rate limit reached for requests (fake server).',
      };
    case 'server_error':
      return {
        status: 500,
        openaiType: 'server_error',
        openaiCode: null,
        anthropicType: 'api_error',
        message: message ?? 'The server had an error while processing your request (fake server).',
      };
    case 'overloaded':
      return {
        status: api === 'anthropic' ? 529 : 503,
        openaiType: 'server_error',
        openaiCode: 'overloaded',
        anthropicType: 'overloaded_error',
        message: message ?? 'Overloaded',
      };
    case 'unauthorized':
      return {
        status: 401,
        openaiType: 'invalid_request_error',
        openaiCode: 'invalid_api_key',
        anthropicType: 'authentication_error',
        message: message ?? 'Incorrect API key provided (fake server): invalid x-api-key.',
      };
    case 'not_found':
      return {
        status: 404,
        openaiType: 'invalid_request_error',
        openaiCode: 'unknown_url',
        anthropicType: 'not_found_error',
        message: message ?? 'Not found.',
      };
    case 'bad_request':
    default:
      return {
        status: 400,
        openaiType: 'invalid_request_error',
        openaiCode: null,
        anthropicType: 'invalid_request_error',
        message: message ?? 'Invalid request (fake server).',
      };
  }
}

// ---------------------------------------------------------------------------
// Server

interface State {
  opts: FakeLlmOptions;
  rand: () => number;
  counter: number;
  closing: boolean;
  timers: Set<NodeJS.Timeout>;
  live: Set<http.ServerResponse>;
}

function resolvedOptions(opts: FakeLlmOptions | undefined): FakeLlmOptions {
  return { ...(opts ?? {}) };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    req.on('aborted', () => reject(new Error('aborted')));
  });
}

async function startServer(initial: FakeLlmOptions | undefined, port: number): Promise<FakeLlmServer> {
  const state: State = {
    opts: resolvedOptions(initial),
    rand: mulberry32(initial?.seed ?? 1),
    counter: 0,
    closing: false,
    timers: new Set(),
    live: new Set(),
  };

  const stats: FakeLlmStats = { requests: 0, inFlight: 0, maxInFlight: 0, byOutcome: {}, bodies: [] };
  const count = (outcome: string): void => {
    stats.byOutcome[outcome] = (stats.byOutcome[outcome] ?? 0) + 1;
  };

  /** Wait `ms`, resolving early (false) if the response is closed meanwhile. */
  const wait = (ms: number, res: http.ServerResponse): Promise<boolean> =>
    new Promise((resolve) => {
      if (res.destroyed || state.closing) return resolve(false);
      if (ms <= 0) return resolve(true);
      const onClose = (): void => {
        clearTimeout(timer);
        state.timers.delete(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        state.timers.delete(timer);
        res.off('close', onClose);
        resolve(!res.destroyed && !state.closing);
      }, ms);
      state.timers.add(timer);
      res.once('close', onClose);
    });

  const send = (res: http.ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void => {
    if (res.destroyed || res.headersSent) return;
    const text = JSON.stringify(payload);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    });
    res.end(text);
  };

  const sendError = (
    res: http.ServerResponse,
    api: 'openai' | 'anthropic',
    kind: string,
    requestId: string,
    message?: string,
    extraHeaders: Record<string, string> = {},
  ): void => {
    const spec = errorSpec(kind, api, message);
    const idHeader: Record<string, string> = api === 'openai' ? { 'x-request-id': requestId } : { 'request-id': requestId };
    const payload =
      api === 'openai'
        ? { error: { message: spec.message, type: spec.openaiType, param: null, code: spec.openaiCode } }
        : { type: 'error', error: { type: spec.anthropicType, message: spec.message }, request_id: requestId };
    send(res, spec.status, payload, { ...idHeader, ...extraHeaders });
  };

  const drawFault = (): FaultKind | undefined => {
    const faults = state.opts.faults ?? {};
    const r = state.rand(); // always draw once per request so sequences stay reproducible
    let acc = 0;
    for (const kind of FAULT_ORDER) {
      const p = faults[kind];
      if (typeof p !== 'number' || !(p > 0)) continue;
      acc += p;
      if (r < acc) return kind;
    }
    return undefined;
  };

  /** A batch request's answer, synthesised as the live endpoints would (respond(), else from the schema). */
  const syntheticAnswer = (api: 'openai' | 'anthropic', body: any): SyntheticAnswer => {
    const { prompt, lastUser } = api === 'openai' ? extractOpenAi(body) : extractAnthropic(body);
    const tool = api === 'anthropic' && Array.isArray(body?.tools) ? body.tools[0] : undefined;
    const schema: unknown =
      api === 'openai'
        ? body?.response_format?.type === 'json_schema'
          ? (body.response_format.json_schema?.schema ?? {})
          : embeddedSchema(lastUser)
        : (tool?.input_schema ?? embeddedSchema(lastUser));
    const model = typeof body?.model === 'string' && body.model !== '' ? body.model : 'fake-model';
    let answer = state.opts.respond?.({ api, model, body, prompt, schema });
    if (answer === undefined) answer = schema !== undefined ? sampleFromSchema(schema, prompt) : {};
    const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
    return { text, value: typeof answer === 'string' ? undefined : answer, promptTokens: estimateTokens(prompt), completionTokens: estimateTokens(text) };
  };
  let baseUrl = '';
  const batchApi = createFakeBatchApi({ baseUrl: () => baseUrl, options: () => state.opts.batch ?? {}, answer: syntheticAnswer });

  const handleModels = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const anthropic = req.headers['anthropic-version'] !== undefined || req.headers['x-api-key'] !== undefined;
    if (anthropic) {
      const data = [
        { type: 'model', id: 'claude-fake-1', display_name: 'Claude Fake 1', created_at: '2024-01-01T00:00:00Z' },
      ];
      send(res, 200, { data, has_more: false, first_id: 'claude-fake-1', last_id: 'claude-fake-1' });
    } else {
      const created = 1_700_000_000;
      send(res, 200, {
        object: 'list',
        data: [
          { id: 'gpt-fake-1', object: 'model', created, owned_by: 'fake' },
          { id: 'gpt-fake-mini', object: 'model', created, owned_by: 'fake' },
        ],
      });
    }
    count('models');
  };

  const handleCompletion = async (
    api: 'openai' | 'anthropic',
    raw: string,
    res: http.ServerResponse,
  ): Promise<void> => {
    const n = ++state.counter;
    const requestId = `req_fake_${n}`;

    if (!(await wait(state.opts.latencyMs ?? 0, res))) {
      count('client_closed');
      return;
    }

    const fault = drawFault();

    if (fault === 'rate_limit') {
      count(fault);
      const secs = state.opts.retryAfterSeconds ?? 1;
      sendError(res, api, fault, requestId, undefined, {
        'retry-after': String(secs),
        'retry-after-ms': String(Math.round(secs * 1000)),
      });
      return;
    }
    if (fault === 'server_error' || fault === 'overloaded' || fault === 'unauthorized' || fault === 'bad_request') {
      count(fault);
      sendError(res, api, fault, requestId);
      return;
    }
    if (fault === 'hang') {
      count(fault);
      if (await wait(state.opts.hangMs ?? 30_000, res)) res.destroy();
      return;
    }

    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      count('invalid_json');
      sendError(res, api, 'bad_request', requestId, 'Request body is not valid JSON.');
      return;
    }
    if (!body || typeof body !== 'object' || !Array.isArray(body.messages)) {
      count('invalid_request');
      sendError(res, api, 'bad_request', requestId, '`messages` is required.');
      return;
    }
    if (body.stream === true) {
      count('stream_unsupported');
      sendError(res, api, 'bad_request', requestId, 'Streaming is not supported by the fake server.');
      return;
    }

    const model = typeof body.model === 'string' && body.model !== '' ? body.model : 'fake-model';
    const { prompt, lastUser } = api === 'openai' ? extractOpenAi(body) : extractAnthropic(body);

    // Decide where the schema comes from.
    let schema: unknown | undefined;
    let tool: { name: string; schema: unknown } | undefined;
    let jsonMode = false;
    if (api === 'openai') {
      const rf = body.response_format;
      if (rf && typeof rf === 'object' && rf.type === 'json_schema') {
        if (state.opts.rejectJsonSchema) {
          count('rejected_json_schema');
          sendError(
            res,
            api,
            'bad_request',
            requestId,
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
          );
          return;
        }
        schema = rf.json_schema?.schema ?? {};
        jsonMode = true;
      } else {
        jsonMode = !!rf && typeof rf === 'object' && rf.type === 'json_object';
        schema = embeddedSchema(lastUser);
      }
    } else {
      const tools: any[] = Array.isArray(body.tools) ? body.tools.filter((t: any) => t && typeof t === 'object') : [];
      const choice = body.tool_choice;
      if (tools.length > 0 && choice?.type !== 'none') {
        const wanted = choice?.type === 'tool' && typeof choice.name === 'string' ? choice.name : undefined;
        const chosen = (wanted !== undefined ? tools.find((t) => t.name === wanted) : undefined) ?? tools[0];
        tool = { name: String(chosen.name ?? 'tool'), schema: chosen.input_schema ?? { type: 'object' } };
        schema = tool.schema;
      } else if (body.output_config?.format?.type === 'json_schema') {
        schema = body.output_config.format.schema ?? {};
        jsonMode = true;
      } else {
        schema = embeddedSchema(lastUser);
      }
    }

    const fakeReq: FakeRequest = { api, model, body, prompt, schema };
    let answer: unknown;
    try {
      answer = state.opts.respond?.(fakeReq);
    } catch (err) {
      count('respond_error');
      sendError(res, api, 'server_error', requestId, `respond() threw: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    if (answer === undefined) {
      if (schema !== undefined) answer = sampleFromSchema(schema, prompt);
      else if (jsonMode || tool) answer = {};
      else answer = 'OK';
    }
    const answerText = typeof answer === 'string' ? answer : JSON.stringify(answer);

    let outcome = 'ok';
    let text = answerText;
    if (fault === 'malformed_json') {
      outcome = fault;
      text = `${answerText.slice(0, Math.max(1, answerText.length - 1))}, "unterminated: }`;
    } else if (fault === 'truncated') {
      outcome = fault;
      text = answerText.slice(0, Math.floor(answerText.length / 2));
    }

    const promptTokens = estimateTokens(prompt);
    const completionTokens = estimateTokens(text);

    if (api === 'openai') {
      send(
        res,
        200,
        {
          id: `chatcmpl-fake-${n}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: text, refusal: null },
              logprobs: null,
              finish_reason: fault === 'truncated' ? 'length' : 'stop',
            },
          ],
          usage: {
            prompt_tokens: promptTokens,
            completion_tokens: completionTokens,
            total_tokens: promptTokens + completionTokens,
          },
        },
        { 'x-request-id': requestId },
      );
    } else {
      let content: unknown[];
      let stopReason: string;
      if (tool && fault === undefined) {
        let input: unknown = answer;
        if (typeof input === 'string') {
          try {
            input = JSON.parse(input);
          } catch {
            input = { text: input };
          }
        }
        content = [{ type: 'tool_use', id: `toolu_fake_${n}`, name: tool.name, input }];
        stopReason = 'tool_use';
      } else {
        content = [{ type: 'text', text, citations: null }];
        stopReason = fault === 'truncated' ? 'max_tokens' : 'end_turn';
      }
      send(
        res,
        200,
        {
          id: `msg_fake_${n}`,
          type: 'message',
          role: 'assistant',
          model,
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage: {
            input_tokens: promptTokens,
            output_tokens: completionTokens,
            cache_creation_input_tokens: null,
            cache_read_input_tokens: null,
          },
        },
        { 'request-id': requestId },
      );
    }
    count(outcome);
  };

  const server = http.createServer((req, res) => {
    stats.requests++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    state.live.add(res);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      stats.inFlight--;
      state.live.delete(res);
    };
    res.once('close', finish);
    res.once('finish', finish);

    const url = new URL(req.url ?? '/', `http://${HOST}`);
    const path = url.pathname.replace(/\/+$/, '');
    const method = req.method ?? 'GET';

    if (batchApi.handles(method, path)) {
      readBody(req)
        .then((raw) => {
          stats.bodies.push(raw);
          return batchApi.handle(method, path, req.headers, raw, res);
        })
        .catch((err: unknown) => {
          count('internal_error');
          if (!res.headersSent && !res.destroyed) sendError(res, 'openai', 'server_error', 'req_fake_batch', err instanceof Error ? err.message : String(err));
        });
      return;
    }

    if (method === 'GET' && (path === '/v1/models' || path === '/models')) {
      req.resume();
      handleModels(req, res);
      return;
    }

    let api: 'openai' | 'anthropic' | undefined;
    if (method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions')) api = 'openai';
    else if (method === 'POST' && path === '/v1/messages') api = 'anthropic';

    readBody(req).then(
      (raw) => {
        stats.bodies.push(raw);
        if (api === undefined) {
          count('not_found');
          const guess = req.headers['anthropic-version'] !== undefined ? 'anthropic' : 'openai';
          sendError(res, guess, 'not_found', `req_fake_nf_${stats.requests}`, `No route for ${method} ${url.pathname}.`);
          return;
        }
        return handleCompletion(api, raw, res);
      },
      () => {
        count('client_closed');
        if (!res.destroyed) res.destroy();
      },
    ).catch((err: unknown) => {
      count('internal_error');
      if (!res.headersSent && !res.destroyed) {
        sendError(res, api ?? 'openai', 'server_error', 'req_fake_err', err instanceof Error ? err.message : String(err));
      } else if (!res.destroyed) res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://${HOST}:${address.port}`;
  baseUrl = url;

  let closed: Promise<void> | undefined;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    stats,
    batch: batchApi,
    configure(opts: Partial<FakeLlmOptions>): void {
      state.opts = { ...state.opts, ...opts };
      if ('seed' in opts) state.rand = mulberry32(opts.seed ?? 1);
    },
    resetStats(): void {
      stats.requests = 0;
      stats.maxInFlight = stats.inFlight;
      for (const key of Object.keys(stats.byOutcome)) delete stats.byOutcome[key];
      stats.bodies.length = 0;
    },
    close(): Promise<void> {
      if (closed) return closed;
      state.closing = true;
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Everything still live will emit 'close' once destroyed; wait for it so stats settle.
      const responsesClosed = [...state.live].map((res) => new Promise<void>((resolve) => res.once('close', () => resolve())));
      for (const timer of state.timers) clearTimeout(timer);
      state.timers.clear();
      for (const res of state.live) res.destroy();
      server.closeAllConnections();
      closed = Promise.all([serverClosed, ...responsesClosed]).then(() => undefined);
      return closed;
    },
  };
}

/** Start a fake LLM server on 127.0.0.1 with an ephemeral port. */
export function startFakeLlmServer(opts?: FakeLlmOptions): Promise<FakeLlmServer> {
  return startServer(opts, 0);
}

// ---------------------------------------------------------------------------
// Standalone mode

function parseCli(argv: string[]): { port: number; opts: FakeLlmOptions } {
  const opts: FakeLlmOptions = {};
  let port = 8787;
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined) throw new Error(`missing value for ${flag}`);
    return v;
  };
  const number = (raw: string, flag: string): number => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`invalid number for ${flag}: ${raw}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const take = (): string => {
      if (inline !== undefined) return inline;
      const v = value(i, flag);
      i++;
      return v;
    };
    switch (flag) {
      case '--port':
        port = number(take(), flag);
        break;
      case '--latency':
        opts.latencyMs = number(take(), flag);
        break;
      case '--seed':
        opts.seed = number(take(), flag);
        break;
      case '--hang-ms':
        opts.hangMs = number(take(), flag);
        break;
      case '--retry-after':
        opts.retryAfterSeconds = number(take(), flag);
        break;
      case '--reject-json-schema':
        opts.rejectJsonSchema = true;
        break;
      case '--faults': {
        const faults: Partial<Record<FaultKind, number>> = {};
        for (const pair of take().split(',').filter((s) => s.trim() !== '')) {
          const [k, v] = pair.split('=');
          const kind = (k ?? '').trim() as FaultKind;
          if (!FAULT_ORDER.includes(kind)) throw new Error(`unknown fault kind: ${k}`);
          faults[kind] = number((v ?? '').trim(), `--faults ${kind}`);
        }
        opts.faults = faults;
        break;
      }
      case '--help':
      case '-h':
        process.stdout.write(
          'usage: node --import tsx tests/support/fakeLlmServer.ts [--port 8787] [--latency ms] ' +
            '[--faults kind=p,...] [--seed n] [--hang-ms ms] [--retry-after s] [--reject-json-schema]\n' +
            `fault kinds: ${FAULT_ORDER.join(', ')}\n`,
        );
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument: ${arg}`);
    }
  }
  return { port, opts };
}

async function main(): Promise<void> {
  let parsed: { port: number; opts: FakeLlmOptions };
  try {
    parsed = parseCli(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`fakeLlmServer: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  const server = await startServer(parsed.opts, parsed.port);
  process.stdout.write(`${server.url}\n`);
  const stop = (): void => {
    void server.close().then(() => {
      process.stderr.write(`fakeLlmServer: stopped after ${server.stats.requests} requests ${JSON.stringify(server.stats.byOutcome)}\n`);
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`fakeLlmServer: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
