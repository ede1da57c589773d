import type Anthropic from '@anthropic-ai/sdk';
import type { StructuredResponse } from './provider.js';
import { parseJsonLoose } from './provider.js';

/** A message, live or from a batch's results, as a structured response. */
export function fromMessage(message: Anthropic.Message): StructuredResponse {
  const tool = message.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
  const text = tool
    ? JSON.stringify(tool.input)
    : message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  // Anthropic's input_tokens leaves out the tokens written to and read from the cache; ours counts them all.
  const cacheRead = message.usage.cache_read_input_tokens ?? 0;
  const cacheWrite = message.usage.cache_creation_input_tokens ?? 0;
  return {
    text,
    value: tool ? tool.input : parseJsonLoose(text),
    finishReason: message.stop_reason === 'max_tokens' ? 'length' : message.stop_reason === 'tool_use' || message.stop_reason === 'end_turn' ? 'stop' : 'other',
    usage: { prompt_tokens: message.usage.input_tokens + cacheRead + cacheWrite, completion_tokens: message.usage.output_tokens, cached_prompt_tokens: cacheRead },
  };
}
