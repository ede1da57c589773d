/**
 * Anthropic's Messages API. Structured output through a single tool whose input schema is the answer's
 * schema, with tool_choice forcing it. The current API takes no temperature, so `llm.temperature` applies to
 * OpenAI-compatible servers only. Message Batches take the same bodies as `params`.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { BatchApi, LlmProvider, ProviderOptions, StructuredRequest, StructuredResponse } from './provider.js';
import { parseJsonLoose } from './provider.js';
import { AnthropicBatch } from './anthropicBatch.js';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';

export class AnthropicProvider implements LlmProvider {
  readonly name = 'anthropic' as const;
  readonly model: string;
  readonly batch: BatchApi;
  private readonly client: Anthropic;

  constructor(options: ProviderOptions) {
    this.model = options.model;
    this.client = new Anthropic({ apiKey: options.apiKey, baseURL: options.baseURL ?? null, maxRetries: 0, timeout: options.timeoutMs });
    this.batch = new AnthropicBatch(this.client);
  }

  requestBody(request: StructuredRequest): Record<string, unknown> {
    return { ...messageBody(this.model, request) };
  }

  async complete(request: StructuredRequest): Promise<StructuredResponse> {
    const message = await this.client.messages.create(messageBody(this.model, request), request.signal ? { signal: request.signal } : undefined);
    return fromMessage(message);
  }
}

/** The Messages body for a structured request: one tool carrying the answer's schema, forced. */
export function messageBody(model: string, request: StructuredRequest): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model,
    max_tokens: request.maxTokens,
    system: request.system,
    messages: [{ role: 'user', content: request.prompt }],
    tools: [{ name: request.schemaName, description: 'Record the analysis.', input_schema: request.schema as Anthropic.Tool.InputSchema }],
    tool_choice: { type: 'tool', name: request.schemaName },
  };
}

/** A message, live or from a batch's results, as a structured response. */
export function fromMessage(message: Anthropic.Message): StructuredResponse {
  const tool = message.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
  const text = tool
    ? JSON.stringify(tool.input)
    : message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  return {
    text,
    value: tool ? tool.input : parseJsonLoose(text),
    finishReason: message.stop_reason === 'max_tokens' ? 'length' : message.stop_reason === 'tool_use' || message.stop_reason === 'end_turn' ? 'stop' : 'other',
    usage: { prompt_tokens: message.usage.input_tokens, completion_tokens: message.usage.output_tokens },
  };
}
