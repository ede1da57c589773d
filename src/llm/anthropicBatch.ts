/**
 * Anthropic's Message Batches through the SDK: `messages.batches.create({requests: [{custom_id, params}]})`,
 * `retrieve` until `processing_status` is `ended`, then `results()` streams one
 * `{custom_id, result: {type: succeeded | errored | canceled | expired}}` per request, in any order.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { BatchApi, BatchItem, BatchOutcome, BatchStatus } from './provider.js';
import { fromMessage } from './anthropicMessage.js';

export class AnthropicBatch implements BatchApi {
  /** The SDK's client, loaded when the batch is first used. */
  constructor(private readonly sdk: () => Promise<Anthropic>) {}

  async submit(items: readonly BatchItem[], signal?: AbortSignal): Promise<{ id: string }> {
    const batch = await (await this.sdk()).messages.batches.create(
      { requests: items.map((item) => ({ custom_id: item.customId, params: item.body as unknown as Anthropic.MessageCreateParamsNonStreaming })) },
      options(signal),
    );
    return { id: batch.id };
  }

  async status(id: string, signal?: AbortSignal): Promise<BatchStatus> {
    const batch = await (await this.sdk()).messages.batches.retrieve(id, {}, options(signal));
    const c = batch.request_counts;
    const done = c.succeeded + c.errored + c.canceled + c.expired;
    return { id, state: batch.processing_status === 'ended' ? 'ended' : 'in_progress', providerStatus: batch.processing_status, total: done + c.processing, done };
  }

  async results(id: string, signal?: AbortSignal): Promise<BatchOutcome[]> {
    const outcomes: BatchOutcome[] = [];
    for await (const line of await (await this.sdk()).messages.batches.results(id, {}, options(signal))) {
      const { custom_id: customId, result } = line;
      if (result.type === 'succeeded') outcomes.push({ customId, type: 'succeeded', response: fromMessage(result.message) });
      else if (result.type === 'errored') outcomes.push({ customId, type: 'errored', error: `${result.error.error.type}: ${result.error.error.message}` });
      else outcomes.push({ customId, type: result.type, error: `request ${result.type === 'expired' ? 'expired' : 'canceled'} before it was processed` });
    }
    return outcomes;
  }
}

function options(signal: AbortSignal | undefined) {
  return signal ? { signal } : undefined;
}
