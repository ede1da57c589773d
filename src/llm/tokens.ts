/**
 * Prompt tokens of a request body, before it is sent. OpenAI models that js-tiktoken knows are counted
 * exactly: every message's content in the model's encoding, plus OpenAI's documented framing (3 tokens a
 * message, 3 to prime the answer), plus the answer schema as its JSON text (OpenAI publishes no exact
 * framing for it). Every other model gets the documented estimate of one token per 4 characters of
 * everything the body sends as text (system prompt, messages, tool or schema JSON), labelled as such.
 */
import type { Tiktoken } from 'js-tiktoken/lite';

export interface PromptTokenCounter {
  /** True when counted with the model's own tokenizer. */
  readonly exact: boolean;
  /** How it counts, for people: `o200k_base` or `estimate: 4 characters a token`. */
  readonly method: string;
  count(body: Record<string, unknown>): number;
}

export const CHARS_PER_TOKEN = 4;
const TOKENS_PER_MESSAGE = 3;
const TOKENS_TO_PRIME_ANSWER = 3;

/** A counter for the provider's model: exact where its tokenizer is known, an estimate otherwise. */
export async function promptTokenCounter(provider: 'openai' | 'anthropic', model: string): Promise<PromptTokenCounter> {
  if (provider === 'openai') {
    const encoding = await openAiEncoding(model);
    if (encoding) return exactCounter(encoding.name, encoding.tokenizer);
  }
  return { exact: false, method: `estimate: ${CHARS_PER_TOKEN} characters a token`, count: (body) => Math.ceil(bodyText(body).length / CHARS_PER_TOKEN) };
}

function exactCounter(name: string, tokenizer: Tiktoken): PromptTokenCounter {
  const tokens = (text: string) => tokenizer.encode(text, 'all').length;
  return {
    exact: true,
    method: name,
    count(body) {
      const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown; content?: unknown }>) : [];
      let total = TOKENS_TO_PRIME_ANSWER;
      for (const message of messages) total += TOKENS_PER_MESSAGE + tokens(String(message.role ?? '')) + tokens(contentText(message.content));
      const format = body.response_format as { json_schema?: { schema?: unknown } } | undefined;
      if (format?.json_schema?.schema) total += tokens(JSON.stringify(format.json_schema.schema));
      return total;
    },
  };
}

/** Everything a body sends as text, as the estimate counts it. */
export function bodyText(body: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof body.system === 'string') parts.push(body.system);
  for (const message of Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>) : []) parts.push(contentText(message.content));
  if (Array.isArray(body.tools)) parts.push(JSON.stringify(body.tools));
  const format = body.response_format as { json_schema?: { schema?: unknown } } | undefined;
  if (format?.json_schema?.schema) parts.push(JSON.stringify(format.json_schema.schema));
  return parts.join('\n');
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part === 'object' && part && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '')).join('');
}

/**
 * The model's encoding (only the ranks it needs), or null for a model tiktoken does not know. Made for each
 * counter and kept by nothing else: a run makes one counter, and an encoding is tens of megabytes.
 */
async function openAiEncoding(model: string): Promise<{ name: string; tokenizer: Tiktoken } | null> {
  const { Tiktoken, getEncodingNameForModel } = await import('js-tiktoken/lite');
  let name: string;
  try {
    name = getEncodingNameForModel(model as Parameters<typeof getEncodingNameForModel>[0]);
  } catch {
    return null;
  }
  return { name, tokenizer: new Tiktoken(await loadRanks(name)) };
}

async function loadRanks(name: string) {
  switch (name) {
    case 'o200k_base':
      return (await import('js-tiktoken/ranks/o200k_base')).default;
    case 'cl100k_base':
      return (await import('js-tiktoken/ranks/cl100k_base')).default;
    case 'p50k_base':
      return (await import('js-tiktoken/ranks/p50k_base')).default;
    default:
      return (await import('js-tiktoken/ranks/r50k_base')).default;
  }
}
