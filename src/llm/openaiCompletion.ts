import type OpenAI from 'openai';
import type { StructuredResponse } from './provider.js';
import { parseJsonLoose } from './provider.js';

/** A chat completion, live or from a batch's output file, as a structured response. */
export function fromChatCompletion(completion: OpenAI.ChatCompletion): StructuredResponse {
  const choice = completion.choices?.[0];
  const text = choice?.message.content ?? '';
  const cached = completion.usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    text,
    value: parseJsonLoose(text),
    finishReason: choice?.finish_reason === 'length' ? 'length' : choice?.finish_reason === 'stop' ? 'stop' : 'other',
    usage: { prompt_tokens: completion.usage?.prompt_tokens ?? 0, completion_tokens: completion.usage?.completion_tokens ?? 0, cached_prompt_tokens: cached },
  };
}
