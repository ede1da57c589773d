/**
 * Anthropic's Messages API. Structured output through a single tool whose input schema is the answer's
 * schema, with tool_choice forcing it. The current API takes no temperature, so `llm.temperature` applies to
 * OpenAI-compatible servers only.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { LlmProvider, ProviderOptions, StructuredRequest, StructuredResponse } from './provider.js';
import { parseJsonLoose } from './provider.js';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';

export class AnthropicProvider implements LlmProvider {
  readonly name = 'anthropic' as const;
  readonly model: string;
  private readonly client: Anthropic;

  constructor(options: ProviderOptions) {
    this.model = options.model;
    this.client = new Anthropic({ apiKey: options.apiKey, baseURL: options.baseURL ?? null, maxRetries: 0, timeout: options.timeoutMs });
  }

  async complete(request: StructuredRequest): Promise<StructuredResponse> {
    const message = await this.client.messages.create(
      {
        model: this.model,
        max_tokens: request.maxTokens,
        system: request.system,
        messages: [{ role: 'user', content: request.prompt }],
        tools: [{ name: request.schemaName, description: 'Record the analysis.', input_schema: request.schema as Anthropic.Tool.InputSchema }],
        tool_choice: { type: 'tool', name: request.schemaName },
      },
      request.signal ? { signal: request.signal } : undefined,
    );
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
}
