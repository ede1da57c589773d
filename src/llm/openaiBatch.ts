/**
 * OpenAI's Batch API through the SDK: the bodies go up as a JSONL file of `{custom_id, method, url, body}`
 * (`files.create({purpose: 'batch'})`), `batches.create` starts the batch, `batches.retrieve` reports on it,
 * and `files.content` brings back the output and error files. Their lines come in any order: each carries
 * its `custom_id`.
 */
import type OpenAI from 'openai';
import type { BatchApi, BatchItem, BatchOutcome, BatchStatus } from './provider.js';
import { fromChatCompletion } from './openaiCompletion.js';

const ENDPOINT = '/v1/chat/completions';
/** Statuses after which the batch answers nothing more. */
const ENDED = new Set(['completed', 'expired', 'cancelled', 'failed']);

interface OutputLine {
  custom_id?: string;
  response?: { status_code?: number; body?: unknown } | null;
  error?: { code?: string | null; message?: string | null } | null;
}

export class OpenAiBatch implements BatchApi {
  /** The SDK's client, loaded when the batch is first used. */
  constructor(private readonly sdk: () => Promise<OpenAI>) {}

  async submit(items: readonly BatchItem[], signal?: AbortSignal): Promise<{ id: string }> {
    const jsonl = items.map((item) => JSON.stringify({ custom_id: item.customId, method: 'POST', url: ENDPOINT, body: item.body })).join('\n');
    const [sdk, { toFile }] = await Promise.all([this.sdk(), import('openai')]);
    const file = await sdk.files.create(
      { file: await toFile(Buffer.from(`${jsonl}\n`), 'coderag-batch.jsonl', { type: 'application/jsonl' }), purpose: 'batch' },
      options(signal),
    );
    const batch = await sdk.batches.create(
      { input_file_id: file.id, endpoint: ENDPOINT, completion_window: '24h', metadata: { tool: 'coderag' } },
      options(signal),
    );
    return { id: batch.id };
  }

  async status(id: string, signal?: AbortSignal): Promise<BatchStatus> {
    const batch = await (await this.sdk()).batches.retrieve(id, options(signal));
    const counts = batch.request_counts ?? { total: 0, completed: 0, failed: 0 };
    return {
      id,
      state: ENDED.has(batch.status) ? 'ended' : 'in_progress',
      providerStatus: batch.status,
      total: counts.total,
      done: counts.completed + counts.failed,
    };
  }

  async results(id: string, signal?: AbortSignal): Promise<BatchOutcome[]> {
    const batch = await (await this.sdk()).batches.retrieve(id, options(signal));
    if (!ENDED.has(batch.status)) throw new Error(`batch ${id} has not ended (${batch.status})`);
    const outcomes: BatchOutcome[] = [];
    for (const fileId of [batch.output_file_id, batch.error_file_id]) {
      if (!fileId) continue;
      const text = await (await (await this.sdk()).files.content(fileId, options(signal))).text();
      for (const line of text.split('\n')) {
        if (line.trim()) outcomes.push(outcomeOf(JSON.parse(line) as OutputLine));
      }
    }
    return outcomes;
  }
}

function outcomeOf(line: OutputLine): BatchOutcome {
  const customId = String(line.custom_id ?? '');
  const status = line.response?.status_code;
  if (line.response && status === 200) return { customId, type: 'succeeded', response: fromChatCompletion(line.response.body as OpenAI.ChatCompletion) };
  const code = line.error?.code ?? '';
  const type = code === 'batch_expired' ? 'expired' : code === 'batch_cancelled' ? 'canceled' : 'errored';
  const bodyError = (line.response?.body as { error?: { message?: string } } | undefined)?.error?.message;
  const message = line.error?.message ?? bodyError ?? 'no answer';
  return { customId, type, error: `${status ? `${status} ` : ''}${code ? `${code}: ` : ''}${message}` };
}

function options(signal: AbortSignal | undefined) {
  return signal ? { signal } : undefined;
}
