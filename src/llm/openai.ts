/**
 * OpenAI and every OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio) through a base URL.
 * Structured output uses `response_format: json_schema`; a server that rejects it gets plain JSON
 * instructions instead, for the rest of the run. The shared prefix leads the user message so OpenAI's
 * automatic prompt cache serves it, and `prompt_cache_key` routes the run's requests to the same cache.
 * The Batch API takes the same bodies as a JSONL file.
 */
import type OpenAI from 'openai';
import type { BatchApi, LlmProvider, ProviderOptions, StructuredRequest, StructuredResponse } from './provider.js';
import { userText } from './provider.js';
import { OpenAiBatch } from './openaiBatch.js';
import { fromChatCompletion } from './openaiCompletion.js';
import { readRateLimits } from './rateControl.js';

export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';

/**
 * The Chat Completions body of one request, exactly as sent (also what a Batch API line carries).
 * `jsonSchema: false` is for servers without structured output: the schema goes into the prompt instead.
 */
export function chatCompletionBody(model: string, request: StructuredRequest, jsonSchema = true): OpenAI.ChatCompletionCreateParamsNonStreaming {
  const prompt = jsonSchema
    ? request.prompt
    : `${request.prompt}\n\nAnswer with one JSON object only, no prose, matching this JSON schema:\n\`\`\`json\n${JSON.stringify(request.schema)}\n\`\`\``;
  return {
    model,
    messages: [
      { role: 'system', content: request.system },
      { role: 'user', content: userText({ prefix: request.prefix, prompt }) },
    ],
    max_tokens: request.maxTokens,
    temperature: request.temperature,
    response_format: jsonSchema
      ? { type: 'json_schema', json_schema: { name: request.schemaName, schema: request.schema, strict: true } }
      : { type: 'json_object' },
    ...(request.cacheKey ? { prompt_cache_key: request.cacheKey } : {}),
  };
}

export class OpenAiProvider implements LlmProvider {
  readonly name = 'openai' as const;
  readonly model: string;
  readonly batch: BatchApi;
  private readonly options: ProviderOptions;
  private sdkClient: Promise<OpenAI> | null = null;
  private jsonSchemaSupported = true;

  constructor(options: ProviderOptions) {
    this.model = options.model;
    this.options = options;
    this.batch = new OpenAiBatch(() => this.client());
  }

  /** The SDK's client, loaded on the first request: an offline run never pays for loading the SDK. */
  private client(): Promise<OpenAI> {
    const { apiKey, baseURL, timeoutMs } = this.options;
    this.sdkClient ??= import('openai').then(({ default: Sdk }) => new Sdk({ apiKey, baseURL, maxRetries: 0, timeout: timeoutMs }));
    return this.sdkClient;
  }

  requestBody(request: StructuredRequest): Record<string, unknown> {
    return { ...chatCompletionBody(this.model, request, this.jsonSchemaSupported) };
  }

  async complete(request: StructuredRequest): Promise<StructuredResponse> {
    if (this.jsonSchemaSupported) {
      try {
        return await this.call(request, true);
      } catch (error) {
        if (!(await rejectsJsonSchema(error))) throw error;
        this.jsonSchemaSupported = false;
      }
    }
    return this.call(request, false);
  }

  private async call(request: StructuredRequest, jsonSchema: boolean): Promise<StructuredResponse> {
    const { data: completion, response } = await (await this.client()).chat.completions
      .create(chatCompletionBody(this.model, request, jsonSchema), request.signal ? { signal: request.signal } : undefined)
      .withResponse();
    return { ...fromChatCompletion(completion), rateLimits: readRateLimits(response.headers) };
  }
}

/** A 400 that names response_format or json_schema: the server does not do structured output. */
async function rejectsJsonSchema(error: unknown): Promise<boolean> {
  const { APIError } = await import('openai');
  return error instanceof APIError && error.status === 400 && /response_format|json_schema|structured/i.test(error.message);
}
