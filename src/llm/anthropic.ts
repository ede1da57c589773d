/**
 * Anthropic's Messages API. Structured output through a single tool whose input schema is the answer's
 * schema, with tool_choice forcing it. The current API takes no temperature, so `llm.temperature` applies to
 * OpenAI-compatible servers only. The shared prefix is its own content block with a cache breakpoint
 * (`cache_control: ephemeral`), so the tool, the system prompt and the prefix are read from the prompt cache.
 * Message Batches take the same bodies as `params`.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { BatchApi, LlmProvider, ProviderOptions, StructuredRequest, StructuredResponse } from './provider.js';
import { AnthropicBatch } from './anthropicBatch.js';
import { fromMessage } from './anthropicMessage.js';
import { readRateLimits } from './rateControl.js';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';

/** The Messages body of one request, exactly as sent (also what a Message Batches item carries). */
export function messagesBody(model: string, request: StructuredRequest): Anthropic.MessageCreateParamsNonStreaming {
  const content: Anthropic.TextBlockParam[] = request.prefix
    ? [
        { type: 'text', text: request.prefix, cache_control: { type: 'ephemeral' } },
        { type: 'text', text: request.prompt },
      ]
    : [{ type: 'text', text: request.prompt }];
  return {
    model,
    max_tokens: request.maxTokens,
    system: request.system,
    messages: [{ role: 'user', content }],
    tools: [{ name: request.schemaName, description: 'Record the analysis.', input_schema: request.schema as Anthropic.Tool.InputSchema }],
    tool_choice: { type: 'tool', name: request.schemaName },
  };
}

export class AnthropicProvider implements LlmProvider {
  readonly name = 'anthropic' as const;
  readonly model: string;
  readonly batch: BatchApi;
  private readonly options: ProviderOptions;
  private sdkClient: Promise<Anthropic> | null = null;

  constructor(options: ProviderOptions) {
    this.model = options.model;
    this.options = options;
    this.batch = new AnthropicBatch(() => this.client());
  }

  /** The SDK's client, loaded on the first request: an offline run never pays for loading the SDK. */
  private client(): Promise<Anthropic> {
    const { apiKey, baseURL, timeoutMs } = this.options;
    this.sdkClient ??= import('@anthropic-ai/sdk').then(({ default: Sdk }) => new Sdk({ apiKey, baseURL: baseURL ?? null, maxRetries: 0, timeout: timeoutMs }));
    return this.sdkClient;
  }

  requestBody(request: StructuredRequest): Record<string, unknown> {
    return { ...messagesBody(this.model, request) };
  }

  async complete(request: StructuredRequest): Promise<StructuredResponse> {
    const { data: message, response } = await (await this.client()).messages
      .create(messagesBody(this.model, request), request.signal ? { signal: request.signal } : undefined)
      .withResponse();
    return { ...fromMessage(message), rateLimits: readRateLimits(response.headers) };
  }
}
