/**
 * The batch endpoints of the fake LLM server, mounted by fakeLlmServer.ts. They speak the wire formats the
 * real SDKs use:
 *   OpenAI     POST /v1/files (multipart, purpose=batch), GET /v1/files/:id/content,
 *              POST /v1/batches, GET /v1/batches/:id, POST /v1/batches/:id/cancel
 *   Anthropic  POST /v1/messages/batches, GET /v1/messages/batches/:id,
 *              GET /v1/messages/batches/:id/results, POST /v1/messages/batches/:id/cancel
 * A batch stays in progress for `pollsUntilEnded` status checks, then ends: completed, or expired with only
 * its first `answeredBeforeExpiry` requests answered. `failWhen` picks requests answered with an error.
 * Output lines come in reverse order of the input, as real providers do not keep it. An unknown id is a 404.
 */
import type http from 'node:http';

export interface FakeBatchOptions {
  /** Status checks that see the batch in progress before it ends (default 1). */
  pollsUntilEnded?: number;
  /** How batches end (default 'completed'). */
  end?: 'completed' | 'expired';
  /** In an expired batch, how many requests were answered before it expired (default: half, rounded down). */
  answeredBeforeExpiry?: number;
  /** Requests the provider answers with an error (a 400 for OpenAI, an invalid_request_error for Anthropic). */
  failWhen?: (customId: string, index: number) => boolean;
}

/** A synthetic answer to one request body, as the live endpoints would give it. */
export interface SyntheticAnswer {
  text: string;
  /** The tool input (Anthropic) or parsed JSON; undefined when the text is not JSON. */
  value: unknown;
  promptTokens: number;
  completionTokens: number;
}

export interface FakeBatchStats {
  /** Every batch submitted: its API, id, and the bodies of its requests by custom_id. */
  submitted: Array<{ api: 'openai' | 'anthropic'; id: string; requests: Array<{ customId: string; body: any }> }>;
  statusChecks: number;
}

interface Batch {
  api: 'openai' | 'anthropic';
  id: string;
  requests: Array<{ customId: string; body: any }>;
  polls: number;
  created: number;
  cancelled: boolean;
  /** Decided when the batch ends. */
  outcome: Array<{ customId: string; kind: 'succeeded' | 'errored' | 'expired' | 'canceled'; answer?: SyntheticAnswer }> | null;
  outputFileId: string | null;
  errorFileId: string | null;
}

export interface FakeBatchApi {
  stats: FakeBatchStats;
  /** True when this module answers the route. */
  handles(method: string, path: string): boolean;
  handle(method: string, path: string, headers: http.IncomingHttpHeaders, raw: string, res: http.ServerResponse): Promise<void>;
  /** Forgets every batch and file, as a provider does after its retention period. */
  forget(): void;
  reset(): void;
}

const ROUTES: Array<[string, RegExp]> = [
  ['POST', /^(?:\/v1)?\/files$/],
  ['GET', /^(?:\/v1)?\/files\/[^/]+(?:\/content)?$/],
  ['POST', /^(?:\/v1)?\/batches$/],
  ['GET', /^(?:\/v1)?\/batches\/[^/]+$/],
  ['POST', /^(?:\/v1)?\/batches\/[^/]+\/cancel$/],
  ['POST', /^\/v1\/messages\/batches$/],
  ['GET', /^\/v1\/messages\/batches\/[^/]+(?:\/results)?$/],
  ['POST', /^\/v1\/messages\/batches\/[^/]+\/cancel$/],
];

export function createFakeBatchApi(deps: {
  baseUrl: () => string;
  options: () => FakeBatchOptions;
  answer: (api: 'openai' | 'anthropic', body: any) => SyntheticAnswer;
}): FakeBatchApi {
  const files = new Map<string, { filename: string; purpose: string; content: string; created: number }>();
  const batches = new Map<string, Batch>();
  const stats: FakeBatchStats = { submitted: [], statusChecks: 0 };
  let counter = 0;
  const now = () => Math.floor(Date.now() / 1000);

  const send = (res: http.ServerResponse, status: number, payload: unknown, type = 'application/json'): void => {
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
    res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
  };
  const notFound = (res: http.ServerResponse, api: 'openai' | 'anthropic', what: string): void =>
    send(
      res,
      404,
      api === 'openai'
        ? { error: { message: `No such ${what} (fake server).`, type: 'invalid_request_error', param: null, code: null } }
        : { type: 'error', error: { type: 'not_found_error', message: `No such ${what} (fake server).` } },
    );
  const badRequest = (res: http.ServerResponse, api: 'openai' | 'anthropic', message: string): void =>
    send(
      res,
      400,
      api === 'openai'
        ? { error: { message, type: 'invalid_request_error', param: null, code: null } }
        : { type: 'error', error: { type: 'invalid_request_error', message } },
    );

  /** Ends the batch on its Nth status check, deciding every request's outcome once. */
  const advance = (batch: Batch): void => {
    if (batch.outcome) return;
    const opts = deps.options();
    if (!batch.cancelled && batch.polls <= (opts.pollsUntilEnded ?? 1)) return;
    const expired = !batch.cancelled && opts.end === 'expired';
    const answered = batch.cancelled ? 0 : expired ? (opts.answeredBeforeExpiry ?? Math.floor(batch.requests.length / 2)) : batch.requests.length;
    batch.outcome = batch.requests.map(({ customId, body }, index) => {
      if (index >= answered) return { customId, kind: batch.cancelled ? 'canceled' : 'expired' };
      if (opts.failWhen?.(customId, index)) return { customId, kind: 'errored' };
      return { customId, kind: 'succeeded', answer: deps.answer(batch.api, body) };
    });
    if (batch.api === 'openai') writeOpenAiFiles(batch);
  };

  const openAiStatus = (batch: Batch): string => {
    if (!batch.outcome) return batch.polls <= 1 ? 'validating' : 'in_progress';
    if (batch.cancelled) return 'cancelled';
    return deps.options().end === 'expired' ? 'expired' : 'completed';
  };

  const writeOpenAiFiles = (batch: Batch): void => {
    const output: string[] = [];
    const errors: string[] = [];
    // Reverse order: callers must match lines on custom_id.
    for (const item of [...(batch.outcome ?? [])].reverse()) {
      const id = `batch_req_${++counter}`;
      if (item.kind === 'succeeded' && item.answer) {
        const a = item.answer;
        output.push(JSON.stringify({
          id,
          custom_id: item.customId,
          response: {
            status_code: 200,
            request_id: `req_${counter}`,
            body: {
              id: `chatcmpl-batch-${counter}`,
              object: 'chat.completion',
              created: now(),
              model: batch.requests.find((r) => r.customId === item.customId)?.body?.model ?? 'fake-model',
              choices: [{ index: 0, message: { role: 'assistant', content: a.text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
              usage: { prompt_tokens: a.promptTokens, completion_tokens: a.completionTokens, total_tokens: a.promptTokens + a.completionTokens },
            },
          },
          error: null,
        }));
      } else if (item.kind === 'errored') {
        output.push(JSON.stringify({
          id,
          custom_id: item.customId,
          response: { status_code: 400, request_id: `req_${counter}`, body: { error: { message: 'Invalid request (fake batch failure).', type: 'invalid_request_error', param: null, code: null } } },
          error: null,
        }));
      } else {
        const code = item.kind === 'expired' ? 'batch_expired' : 'batch_cancelled';
        errors.push(JSON.stringify({ id, custom_id: item.customId, response: null, error: { code, message: `This request could not be executed before the batch ${item.kind === 'expired' ? 'expired' : 'was cancelled'}.` } }));
      }
    }
    const store = (lines: string[]): string | null => {
      if (lines.length === 0) return null;
      const fileId = `file-out-${++counter}`;
      files.set(fileId, { filename: `${batch.id}_output.jsonl`, purpose: 'batch_output', content: `${lines.join('\n')}\n`, created: now() });
      return fileId;
    };
    batch.outputFileId = store(output);
    batch.errorFileId = store(errors);
  };

  const openAiBatchObject = (batch: Batch) => {
    const outcome = batch.outcome ?? [];
    return {
      id: batch.id,
      object: 'batch',
      endpoint: '/v1/chat/completions',
      errors: null,
      input_file_id: `file-in-${batch.id}`,
      completion_window: '24h',
      status: openAiStatus(batch),
      output_file_id: batch.outputFileId,
      error_file_id: batch.errorFileId,
      created_at: batch.created,
      in_progress_at: batch.created,
      expires_at: batch.created + 86_400,
      completed_at: batch.outcome ? now() : null,
      request_counts: {
        total: batch.requests.length,
        completed: outcome.filter((o) => o.kind === 'succeeded').length,
        failed: outcome.filter((o) => o.kind !== 'succeeded').length,
      },
      metadata: null,
    };
  };

  const anthropicBatchObject = (batch: Batch) => {
    const outcome = batch.outcome;
    const count = (kind: string) => (outcome ?? []).filter((o) => o.kind === kind).length;
    return {
      id: batch.id,
      type: 'message_batch',
      processing_status: outcome ? 'ended' : batch.cancelled ? 'canceling' : 'in_progress',
      request_counts: {
        processing: outcome ? 0 : batch.requests.length,
        succeeded: count('succeeded'),
        errored: count('errored'),
        canceled: count('canceled'),
        expired: count('expired'),
      },
      ended_at: outcome ? new Date().toISOString() : null,
      created_at: new Date(batch.created * 1000).toISOString(),
      expires_at: new Date((batch.created + 86_400) * 1000).toISOString(),
      archived_at: null,
      cancel_initiated_at: batch.cancelled ? new Date().toISOString() : null,
      results_url: outcome ? `${deps.baseUrl()}/v1/messages/batches/${batch.id}/results` : null,
    };
  };

  const anthropicResults = (batch: Batch): string =>
    [...(batch.outcome ?? [])]
      .reverse()
      .map((item) => {
        let result: unknown;
        if (item.kind === 'succeeded' && item.answer) {
          const a = item.answer;
          const body = batch.requests.find((r) => r.customId === item.customId)?.body;
          const tool = Array.isArray(body?.tools) ? body.tools[0] : undefined;
          result = {
            type: 'succeeded',
            message: {
              id: `msg_batch_${++counter}`,
              type: 'message',
              role: 'assistant',
              model: body?.model ?? 'fake-model',
              content: tool ? [{ type: 'tool_use', id: `toolu_batch_${counter}`, name: tool.name, input: a.value ?? {} }] : [{ type: 'text', text: a.text, citations: null }],
              stop_reason: tool ? 'tool_use' : 'end_turn',
              stop_sequence: null,
              usage: { input_tokens: a.promptTokens, output_tokens: a.completionTokens, cache_creation_input_tokens: null, cache_read_input_tokens: null },
            },
          };
        } else if (item.kind === 'errored') {
          result = { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error', message: 'Invalid request (fake batch failure).' } } };
        } else {
          result = { type: item.kind };
        }
        return `${JSON.stringify({ custom_id: item.customId, result })}\n`;
      })
      .join('');

  const handle = async (method: string, path: string, headers: http.IncomingHttpHeaders, raw: string, res: http.ServerResponse): Promise<void> => {
    const parts = path.replace(/^\/v1/, '').split('/').filter(Boolean);
    if (parts[0] === 'files') {
      if (method === 'POST') {
        const form = await new Request('http://fake/files', { method: 'POST', headers: { 'content-type': String(headers['content-type'] ?? '') }, body: raw }).formData();
        const file = form.get('file');
        if (!file || typeof file === 'string') return badRequest(res, 'openai', "'file' is required");
        const id = `file-${++counter}`;
        const entry = { filename: file.name, purpose: String(form.get('purpose') ?? ''), content: await file.text(), created: now() };
        files.set(id, entry);
        return send(res, 200, { id, object: 'file', bytes: Buffer.byteLength(entry.content), created_at: entry.created, filename: entry.filename, purpose: entry.purpose, status: 'processed', status_details: null });
      }
      const file = files.get(parts[1] ?? '');
      if (!file) return notFound(res, 'openai', `file ${parts[1]}`);
      if (parts[2] === 'content') return send(res, 200, file.content, 'application/octet-stream');
      return send(res, 200, { id: parts[1], object: 'file', bytes: Buffer.byteLength(file.content), created_at: file.created, filename: file.filename, purpose: file.purpose, status: 'processed' });
    }

    if (parts[0] === 'batches') {
      if (method === 'POST' && parts.length === 1) {
        const body = JSON.parse(raw) as { input_file_id?: string; endpoint?: string };
        const input = files.get(body.input_file_id ?? '');
        if (!input) return notFound(res, 'openai', `file ${body.input_file_id}`);
        if (body.endpoint !== '/v1/chat/completions') return badRequest(res, 'openai', `unsupported endpoint ${body.endpoint}`);
        const requests = input.content
          .split('\n')
          .filter((line) => line.trim())
          .map((line) => JSON.parse(line) as { custom_id: string; method: string; url: string; body: unknown })
          .map((line) => ({ customId: line.custom_id, body: line.body }));
        if (new Set(requests.map((r) => r.customId)).size !== requests.length) return badRequest(res, 'openai', 'custom_id values must be unique');
        const batch: Batch = { api: 'openai', id: `batch_${++counter}`, requests, polls: 0, created: now(), cancelled: false, outcome: null, outputFileId: null, errorFileId: null };
        batches.set(batch.id, batch);
        stats.submitted.push({ api: 'openai', id: batch.id, requests });
        return send(res, 200, openAiBatchObject(batch));
      }
      const batch = batches.get(parts[1] ?? '');
      if (!batch || batch.api !== 'openai') return notFound(res, 'openai', `batch ${parts[1]}`);
      if (parts[2] === 'cancel') batch.cancelled = true;
      else {
        stats.statusChecks++;
        batch.polls++;
      }
      advance(batch);
      return send(res, 200, openAiBatchObject(batch));
    }

    // Anthropic: /messages/batches[/id[/results|/cancel]]
    if (method === 'POST' && parts.length === 2) {
      const body = JSON.parse(raw) as { requests?: Array<{ custom_id: string; params: unknown }> };
      if (!Array.isArray(body.requests) || body.requests.length === 0) return badRequest(res, 'anthropic', 'requests: at least one request is required');
      const bad = body.requests.find((r) => !/^[a-zA-Z0-9_-]{1,64}$/.test(r.custom_id));
      if (bad) return badRequest(res, 'anthropic', `requests: custom_id ${JSON.stringify(bad.custom_id)} does not match ^[a-zA-Z0-9_-]{1,64}$`);
      const requests = body.requests.map((r) => ({ customId: r.custom_id, body: r.params }));
      const batch: Batch = { api: 'anthropic', id: `msgbatch_${++counter}`, requests, polls: 0, created: now(), cancelled: false, outcome: null, outputFileId: null, errorFileId: null };
      batches.set(batch.id, batch);
      stats.submitted.push({ api: 'anthropic', id: batch.id, requests });
      return send(res, 200, anthropicBatchObject(batch));
    }
    const batch = batches.get(parts[2] ?? '');
    if (!batch || batch.api !== 'anthropic') return notFound(res, 'anthropic', `message batch ${parts[2]}`);
    if (parts[3] === 'results') {
      if (!batch.outcome) return badRequest(res, 'anthropic', 'the batch is still processing');
      return send(res, 200, anthropicResults(batch), 'application/binary');
    }
    if (parts[3] === 'cancel') batch.cancelled = true;
    else {
      stats.statusChecks++;
      batch.polls++;
    }
    advance(batch);
    return send(res, 200, anthropicBatchObject(batch));
  };

  return {
    stats,
    handles: (method, path) => ROUTES.some(([m, pattern]) => m === method && pattern.test(path)),
    handle,
    forget() {
      files.clear();
      batches.clear();
    },
    reset() {
      stats.submitted.length = 0;
      stats.statusChecks = 0;
    },
  };
}
