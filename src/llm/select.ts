/**
 * Which profiler a run uses. `auto`: Anthropic when ANTHROPIC_API_KEY is set, else OpenAI when
 * OPENAI_API_KEY or OPENAI_BASE_URL is set (a local server needs no key), else the offline static profiler.
 * Keys come from the environment only and go nowhere but the SDK client.
 */
import type { Config } from '../config/schema.js';
import { ProviderError } from '../shared/errors.js';
import { AnthropicProvider, DEFAULT_ANTHROPIC_MODEL } from './anthropic.js';
import { DEFAULT_OPENAI_MODEL, OpenAiProvider } from './openai.js';
import type { LlmProvider } from './provider.js';

export interface ProviderChoice {
  provider: LlmProvider | null;
  /** What to tell the user: which profiler, and why. */
  description: string;
}

export function selectProvider(config: Config, env: NodeJS.ProcessEnv = process.env): ProviderChoice {
  const wanted = config.llm.model_provider;
  const timeoutMs = config.llm.request_timeout * 1000;
  const anthropicKey = env.ANTHROPIC_API_KEY?.trim();
  const openaiKey = env.OPENAI_API_KEY?.trim();
  const openaiBase = env.OPENAI_BASE_URL?.trim();

  const anthropic = (): ProviderChoice => {
    if (!anthropicKey) throw new ProviderError('llm.model_provider is anthropic but ANTHROPIC_API_KEY is not set');
    const model = config.llm.model ?? DEFAULT_ANTHROPIC_MODEL;
    return {
      provider: new AnthropicProvider({ apiKey: anthropicKey, baseURL: env.ANTHROPIC_BASE_URL?.trim() || undefined, model, timeoutMs }),
      description: `profiles: anthropic ${model}${wanted === 'auto' ? ' (auto: ANTHROPIC_API_KEY is set)' : ''}`,
    };
  };
  const openai = (): ProviderChoice => {
    if (!openaiKey && !openaiBase) throw new ProviderError('llm.model_provider is openai but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set');
    const model = config.llm.model ?? DEFAULT_OPENAI_MODEL;
    const where = openaiBase ? ` at ${safeUrl(openaiBase)}` : '';
    return {
      // A local OpenAI-compatible server needs no key, but the SDK insists on one.
      provider: new OpenAiProvider({ apiKey: openaiKey || 'no-key', baseURL: openaiBase || undefined, model, timeoutMs }),
      description: `profiles: openai ${model}${where}${wanted === 'auto' ? ` (auto: ${openaiKey ? 'OPENAI_API_KEY' : 'OPENAI_BASE_URL'} is set)` : ''}`,
    };
  };
  const offline: ProviderChoice = {
    provider: null,
    description:
      wanted === 'static'
        ? 'profiles: static (tree-sitter, offline), as configured'
        : 'profiles: static (tree-sitter, offline): no ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL is set',
  };

  switch (wanted) {
    case 'anthropic':
      return anthropic();
    case 'openai':
      return openai();
    case 'static':
      return offline;
    case 'auto':
      if (anthropicKey) return anthropic();
      if (openaiKey || openaiBase) return openai();
      return offline;
  }
}

/** A base URL without credentials, for messages. */
function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}
