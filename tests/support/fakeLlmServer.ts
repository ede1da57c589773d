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
 * with configurable latency and seeded, reproducible fault injection. A schema
 * with a `files` array of entries naming their file gets one entry per
 * `<file n="..." path="...">` block of the prompt (CodeRAG's packed profile requests).
 * Optionally: latency per answer (and prompt) token, a rolling rate-limit window
 * answered with the providers' real rate-limit headers, headers that lie,
 * connections dropped above a number in flight, and a prompt cache that reports
 * cached prefix tokens as OpenAI and Anthropic do.
 *
 * Standalone:
 *   node --import tsx tests/support/fakeLlmServer.ts --port 8787 --latency 200 \
 *     [--faults rate_limit=0.2,server_error=0.05] [--seed 42] [--hang-ms 30000] \
 *     [--retry-after 1] [--reject-json-schema] [--ms-per-token 10] [--ms-per-prompt-token 0.05]
 *     [--rpm 120] [--tpm 200000] [--drop-above 16]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { hashString, sampleFromSchema } from './schemaSample.js';
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
  /** Added per completion token of the answer, after latencyMs (answers take longer the longer they are). */
  latencyPerTokenMs?: number;
  /**
   * A rolling window the server enforces, counted at arrival: requests, and tokens (prompt estimate plus
   * max_tokens, as OpenAI counts them). Every answer carries x-ratelimit-* (OpenAI) or anthropic-ratelimit-*
   * headers; a request over the limit gets a 429 with them and retry-after. `reset` is the time until the
   * oldest request in the window leaves it. Limits are announced per minute (scaled from `windowMs`).
   */
  rateLimit?: { requestsPerMinute?: number; tokensPerMinute?: number; windowMs?: number } | null;
  /** Send 429 faults with no headers at all (no retry-after, no rate-limit headers). */
  bareRateLimit?: boolean;
  /** Simulate prompt caching (default true): a prefix of >= 1024 tokens seen before is reported as cached. */
  promptCache?: boolean;
  /** Added per prompt token (after latencyMs): reading the prompt takes time too. */
  latencyPerPromptTokenMs?: number;
  /**
   * Headers sent with every completion answer and 429, over the rate window's own: a server whose headers
   * lie (`x-ratelimit-remaining-requests: lots`, remaining above the limit, negative counts).
   */
  extraHeaders?: Record<string, string> | null;
  /** A completion request arriving while more than this many are in flight loses its connection. */
  dropAboveInFlight?: number | null;
}

export interface FakeRequest {
  api: 'openai' | 'anthropic';
  model: string;
  body: any;
  prompt: string;
  schema: unknown | undefined;
  /** The answer the server would synthesise (for respond() functions that alter it). */
  sample(): unknown;
}

export interface FakeLlmStats {
  requests: number;
  inFlight: number;
  maxInFlight: number;
  byOutcome: Record<string, number>;
  bodies: string[];
  promptTokens: number;
  cachedPromptTokens: number;
  completionTokens: number;
  /** Arrival times (ms) of requests the rate window accepted. */
  accepted: number[];
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
  /** Forgets the requests the rate window counted, as a minute's wait would (between benchmark runs). */
  resetRateWindow(): void;
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

/** Prompt caching: prefixes seen before, hashed at 128-token (512-character) boundaries. */
const CACHE_BLOCK_CHARS = 512;
const CACHE_MIN_CHARS = 4096;

function prefixHashes(text: string, seed: string): number[] {
  const hashes: number[] = [];
  let h = hashString(seed);
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
    if ((i + 1) % CACHE_BLOCK_CHARS === 0) hashes.push(h);
  }
  return hashes;
}

/** Characters of `text` served from the cache (0 below the minimum); records its prefixes for later requests. */
function cachedChars(seen: Set<number>, text: string, seed: string): number {
  const hashes = prefixHashes(text, seed);
  let hit = 0;
  for (const [i, h] of hashes.entries()) {
    if (!seen.has(h)) break;
    hit = (i + 1) * CACHE_BLOCK_CHARS;
  }
  for (const h of hashes) seen.add(h);
  return hit >= CACHE_MIN_CHARS ? hit : 0;
}

/** Anthropic: the text up to the last block marked cache_control, in system-then-messages order. */
function anthropicCachePrefix(body: any): string | null {
  const blocks: Array<{ text: string; mark: boolean }> = [];
  const push = (content: unknown) => {
    if (typeof content === 'string') blocks.push({ text: content, mark: false });
    else if (Array.isArray(content)) for (const b of content) blocks.push({ text: typeof b?.text === 'string' ? b.text : '', mark: !!b?.cache_control });
  };
  push(body?.system);
  for (const m of Array.isArray(body?.messages) ? body.messages : []) push(m?.content);
  const last = blocks.map((b) => b.mark).lastIndexOf(true);
  return last < 0 ? null : blocks.slice(0, last + 1).map((b) => b.text).join('\n');
}

/** A `files` array whose items name their file (`file`, or `path` in the older shape): CodeRAG's packed profile answer. */
function packItemSchema(schema: unknown): unknown | undefined {
  const files = (schema as any)?.properties?.files;
  const props = files?.items?.properties;
  return files?.type === 'array' && (props?.file || props?.path) ? files.items : undefined;
}

/**
 * The paths of the `<file n="..." path="...">` parts of a prompt or a raw request body (JSON-escaped quotes
 * too), in their order: `paths[n - 1]` is the file an answer's entry `file: n` names.
 */
export function taggedPaths(text: string): string[] {
  return [...text.matchAll(/<file (?:n=\\?"\d+\\?" )?path=\\?"([^"\\]+)\\?">/g)].map((m) => m[1] as string);
}

/** An entry of a profile answer in the requested (short) shape. */
export type AnswerEntry = Record<string, unknown> & { file: number; symbols?: string[] };

/** Makes `server` rewrite every entry of every profile answer it samples; `path` is the file the entry is about. */
export function rewriteEntries(server: FakeLlmServer, edit: (entry: AnswerEntry, path: string) => void): void {
  server.configure({
    respond: (req) => {
      const answer = req.sample() as { files?: AnswerEntry[] };
      if (!Array.isArray(answer.files)) return answer;
      const paths = taggedPaths(req.prompt);
      for (const entry of answer.files) edit(entry, paths[Number(entry.file) - 1] ?? '');
      return answer;
    },
  });
}

/** A symbol line's name: `"name: what it does"`. */
export const symbolName = (line: string): string => line.slice(0, line.indexOf(':'));

/** Requested key -> the long name the information is sampled under (entry level, then a relationship's). */
export const ENTRY_LONG: Record<string, string> = { type: 'file_type', concepts: 'key_concepts', related: 'relationships' };
export const RELATIONSHIP_LONG: Record<string, string> = {
  to: 'target_file_path', type: 'relationship_type', confidence: 'confidence_score',
  aspects: 'helpful_aspects', contributions: 'potential_contributions', usage: 'usage_suggestions',
};

/** The schema's object with its properties under their long names (`names`: requested -> long). */
export function longNamed(schema: any, names: Record<string, string>): any {
  const props = Object.fromEntries(Object.entries(schema?.properties ?? {}).map(([k, v]) => [names[k] ?? k, v]));
  return { ...schema, properties: props, required: Object.keys(props) };
}

/**
 * One entry per `<file n="..." path="...">` block, each synthesised from its own block, describing its
 * listed symbols; its relationships point at paths of the target structure (the text before the first
 * block), as a model told to write them as given there does. What an entry says is sampled under the long
 * field names whatever shape is asked (`file_type`, `{name, description}` symbols, `target_file_path`, …),
 * then written in the requested shape: a shorter shape shortens the answer by its keys and echoes only, as
 * it would a real model's, never by saying less.
 */
function packAnswer(itemSchema: any, prompt: string): unknown {
  const files: unknown[] = [];
  const firstBlock = prompt.search(/<file (?:n="\d+" )?path="/);
  const targets = [...new Set([...(firstBlock < 0 ? '' : prompt.slice(0, firstBlock)).matchAll(/(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{1,6}\b/g)].map((m) => m[0]))];
  const props = itemSchema?.properties ?? {};
  const relationsKey = 'related' in props ? 'related' : 'relationships' in props ? 'relationships' : null;
  const relationItem = relationsKey ? props[relationsKey]?.items : null;
  const relationLong = relationItem ? longNamed(relationItem, RELATIONSHIP_LONG) : null;
  const { file: _file, path: _path, ...content } = longNamed(itemSchema, ENTRY_LONG).properties;
  if (relationLong) content.relationships = { ...content.relationships, items: relationLong };
  const long = { type: 'object', properties: content, required: Object.keys(content) };
  const symbolsAsText = props.symbols?.items?.type === 'string';
  for (const m of prompt.matchAll(/<file (?:n="(\d+)" )?path="([^"]+)">\n([\s\S]*?)\n<\/file>/g)) {
    const block = m[3] ?? '';
    const info = sampleFromSchema(long, block) as Record<string, any>;
    const names = [...block.matchAll(/^- \w+ (\S+) \(\d+-\d+\)/gm)].map((s) => s[1] as string).slice(0, 12);
    const symbols = names.map((name) => ({ name, description: `Handles ${name.split('-').pop()} for this module.` }));
    const relationships = ((info.relationships ?? []) as Array<Record<string, unknown>>).map((r, i): Record<string, unknown> => ({
      ...r,
      ...(targets.length > 0 ? { target_file_path: targets[hashString(`${m[2]}#${i}`) % targets.length] } : {}),
    }));
    const entry: Record<string, unknown> = {};
    for (const key of Object.keys(props)) {
      if (key === 'file') entry.file = Number(m[1] ?? 1);
      else if (key === 'path') entry.path = m[2];
      else if (key === 'symbols') entry.symbols = symbolsAsText ? symbols.map((s) => `${s.name}: ${s.description}`) : symbols;
      else if (key === relationsKey) {
        const keys = Object.keys(relationItem?.properties ?? {});
        entry[key] = relationships.map((r) => Object.fromEntries(keys.map((k) => [k, r[RELATIONSHIP_LONG[k] ?? k]])));
      } else entry[key] = info[ENTRY_LONG[key] ?? key];
    }
    files.push(entry);
  }
  return { files };
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
  /** The rate window: arrival time and counted tokens of each accepted request. */
  window: Array<{ at: number; tokens: number }>;
  cacheSeen: Set<number>;
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
    window: [],
    cacheSeen: new Set(),
  };

  /** Completion requests read and not yet answered (what dropAboveInFlight counts). */
  let completionsInFlight = 0;
  const stats: FakeLlmStats = { requests: 0, inFlight: 0, maxInFlight: 0, byOutcome: {}, bodies: [], promptTokens: 0, cachedPromptTokens: 0, completionTokens: 0, accepted: [] };

  /**
   * Counts a request into the rolling window, or refuses it. Returns the rate-limit headers to send
   * (with retry-after when refused), or null when no limit is configured.
   */
  const admit = (api: 'openai' | 'anthropic', raw: string): { ok: boolean; headers: Record<string, string> } | null => {
    const limit = state.opts.rateLimit;
    if (!limit || (!limit.requestsPerMinute && !limit.tokensPerMinute)) return null;
    const windowMs = limit.windowMs ?? 60_000;
    const now = Date.now();
    while (state.window.length > 0 && (state.window[0]?.at ?? 0) <= now - windowMs) state.window.shift();
    let tokens = 0;
    try {
      const body = JSON.parse(raw);
      tokens = estimateTokens((api === 'openai' ? extractOpenAi(body) : extractAnthropic(body)).prompt) + (Number(body?.max_tokens) || 0);
    } catch {
      // an unparsable body is refused later as a bad request
    }
    const used = state.window.reduce((sum, e) => sum + e.tokens, 0);
    const rpm = limit.requestsPerMinute;
    const tpm = limit.tokensPerMinute;
    const ok = (!rpm || state.window.length < rpm) && (!tpm || used + tokens <= tpm);
    if (ok) {
      state.window.push({ at: now, tokens });
      stats.accepted.push(now);
    }
    const remainingRequests = rpm ? Math.max(0, rpm - state.window.length) : undefined;
    const remainingTokens = tpm ? Math.max(0, tpm - used - (ok ? tokens : 0)) : undefined;
    const oldest = state.window[0]?.at ?? now;
    const resetMs = state.window.length > 0 ? Math.max(1, oldest + windowMs - now) : 0;
    // Limits are announced per minute, as providers do, whatever window the test scales them to.
    const perMinute = (n: number) => String(Math.round((n * 60_000) / windowMs));
    const headers: Record<string, string> = {};
    const resetText = `${(resetMs / 1000).toFixed(3)}s`;
    const resetAt = new Date(now + resetMs).toISOString();
    if (api === 'openai') {
      if (rpm) Object.assign(headers, { 'x-ratelimit-limit-requests': perMinute(rpm), 'x-ratelimit-remaining-requests': String(remainingRequests), 'x-ratelimit-reset-requests': resetText });
      if (tpm) Object.assign(headers, { 'x-ratelimit-limit-tokens': perMinute(tpm), 'x-ratelimit-remaining-tokens': String(remainingTokens), 'x-ratelimit-reset-tokens': resetText });
    } else {
      if (rpm) Object.assign(headers, { 'anthropic-ratelimit-requests-limit': perMinute(rpm), 'anthropic-ratelimit-requests-remaining': String(remainingRequests), 'anthropic-ratelimit-requests-reset': resetAt });
      if (tpm) Object.assign(headers, { 'anthropic-ratelimit-tokens-limit': perMinute(tpm), 'anthropic-ratelimit-tokens-remaining': String(remainingTokens), 'anthropic-ratelimit-tokens-reset': resetAt });
    }
    if (!ok) Object.assign(headers, { 'retry-after': String(Math.ceil(resetMs / 1000)), 'retry-after-ms': String(resetMs) });
    return { ok, headers };
  };
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

  /** A 429 with a body and nothing else: no retry-after, no rate-limit headers, no request id. */
  const sendErrorBare = (res: http.ServerResponse, api: 'openai' | 'anthropic', requestId: string): void => {
    const spec = errorSpec('rate_limit', api);
    const payload =
      api === 'openai'
        ? { error: { message: spec.message, type: spec.openaiType, param: null, code: spec.openaiCode } }
        : { type: 'error', error: { type: spec.anthropicType, message: spec.message }, request_id: requestId };
    send(res, 429, payload);
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
    const itemSchema = packItemSchema(schema);
    const sample = (): unknown => (itemSchema !== undefined ? packAnswer(itemSchema, prompt) : schema !== undefined ? sampleFromSchema(schema, prompt) : {});
    let answer = state.opts.respond?.({ api, model, body, prompt, schema, sample });
    if (answer === undefined) answer = sample();
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
    const dropAbove = state.opts.dropAboveInFlight;
    if (dropAbove != null && completionsInFlight > dropAbove) {
      count('dropped');
      res.destroy();
      return;
    }
    const admitted = admit(api, raw);
    const limitHeaders = { ...(admitted?.headers ?? {}), ...(state.opts.extraHeaders ?? {}) };
    if (admitted && !admitted.ok) {
      count('rate_limited_window');
      sendError(res, api, 'rate_limit', requestId, 'Rate limit reached for requests (fake server window).', limitHeaders);
      return;
    }

    if (!(await wait(state.opts.latencyMs ?? 0, res))) {
      count('client_closed');
      return;
    }

    const fault = drawFault();

    if (fault === 'rate_limit') {
      count(fault);
      const secs = state.opts.retryAfterSeconds ?? 1;
      if (state.opts.bareRateLimit) {
        sendErrorBare(res, api, requestId);
        return;
      }
      sendError(res, api, fault, requestId, undefined, {
        ...limitHeaders,
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

    const itemSchema = packItemSchema(schema);
    const synthesise = (): unknown =>
      itemSchema !== undefined ? packAnswer(itemSchema, prompt) : schema !== undefined ? sampleFromSchema(schema, prompt) : jsonMode || tool ? {} : 'OK';
    const fakeReq: FakeRequest = { api, model, body, prompt, schema, sample: synthesise };
    let answer: unknown;
    try {
      answer = state.opts.respond?.(fakeReq);
    } catch (err) {
      count('respond_error');
      sendError(res, api, 'server_error', requestId, `respond() threw: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    if (answer === undefined) answer = synthesise();
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
    const caching = state.opts.promptCache !== false;
    const cachePrefix = api === 'anthropic' ? anthropicCachePrefix(body) : prompt;
    const cached = caching && cachePrefix !== null ? estimateTokens(cachePrefix.slice(0, cachedChars(state.cacheSeen, cachePrefix, `${api}:${model}`))) : 0;
    const anthropicPrefixTokens = api === 'anthropic' && cachePrefix !== null && caching && cachePrefix.length >= CACHE_MIN_CHARS ? estimateTokens(cachePrefix) : 0;
    stats.promptTokens += promptTokens;
    stats.cachedPromptTokens += cached;
    stats.completionTokens += completionTokens;
    const tokenLatency = completionTokens * (state.opts.latencyPerTokenMs ?? 0) + promptTokens * (state.opts.latencyPerPromptTokenMs ?? 0);
    if (!(await wait(tokenLatency, res))) {
      count('client_closed');
      return;
    }

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
            prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
          },
        },
        { 'x-request-id': requestId, ...limitHeaders },
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
            // Anthropic's input_tokens leave out what was read from or written to the cache.
            input_tokens: promptTokens - anthropicPrefixTokens,
            output_tokens: completionTokens,
            cache_creation_input_tokens: anthropicPrefixTokens - cached,
            cache_read_input_tokens: cached,
          },
        },
        { 'request-id': requestId, ...limitHeaders },
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
        completionsInFlight++;
        res.once('close', () => completionsInFlight--);
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
    resetRateWindow(): void {
      state.window.length = 0;
    },
    resetStats(): void {
      stats.requests = 0;
      stats.maxInFlight = stats.inFlight;
      for (const key of Object.keys(stats.byOutcome)) delete stats.byOutcome[key];
      stats.bodies.length = 0;
      stats.promptTokens = 0;
      stats.cachedPromptTokens = 0;
      stats.completionTokens = 0;
      stats.accepted.length = 0;
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
      case '--ms-per-token':
        opts.latencyPerTokenMs = number(take(), flag);
        break;
      case '--rpm':
        opts.rateLimit = { ...opts.rateLimit, requestsPerMinute: number(take(), flag) };
        break;
      case '--tpm':
        opts.rateLimit = { ...opts.rateLimit, tokensPerMinute: number(take(), flag) };
        break;
      case '--ms-per-prompt-token':
        opts.latencyPerPromptTokenMs = number(take(), flag);
        break;
      case '--drop-above':
        opts.dropAboveInFlight = number(take(), flag);
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
            '[--faults kind=p,...] [--seed n] [--hang-ms ms] [--retry-after s] [--reject-json-schema] [--ms-per-token ms] [--ms-per-prompt-token ms] [--rpm n] [--tpm n] [--drop-above n]\n' +
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
