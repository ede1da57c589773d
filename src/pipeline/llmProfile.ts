/**
 * Profile (LLM): one call per file gives the meaning (file type, summary, key concepts) and, when a target
 * structure is given, the file's relationships to it in the same answer. The prompt carries the parser's
 * skeleton and a secret-screened excerpt bounded by `max_content_length`; the facts in the index stay the
 * parser's. Answers are cached by content, provider, model and prompt version.
 */
import type { Config } from '../config/schema.js';
import { cacheKey, type ProfileCache } from '../cache/profileCache.js';
import type { StaticFacts } from '../extract/staticProfile.js';
import { SCHEMA_VERSION } from '../index/types.js';
import type { ProfileAnswer, ProfileAnswerFormat } from '../llm/answers.js';
import { renderPrompt, type PromptSet } from '../llm/prompts.js';
import type { JsonSchema, LlmProvider } from '../llm/provider.js';
import { InvalidAnswerError, statusOf, withRetries, type RequestGate, type RetryPolicy } from '../llm/retry.js';
import { redactSecrets } from '../shared/secrets.js';
import { ProviderError, errorMessage } from '../shared/errors.js';
import { contentHash } from '../shared/hash.js';

export interface LlmStats {
  calls: number;
  retries: number;
  prompt_tokens: number;
  completion_tokens: number;
  cache_hits: number;
  secrets_redacted: number;
}

export function emptyLlmStats(): LlmStats {
  return { calls: 0, retries: 0, prompt_tokens: 0, completion_tokens: 0, cache_hits: 0, secrets_redacted: 0 };
}

export interface LlmContext {
  provider: LlmProvider;
  prompts: PromptSet;
  config: Config;
  targetStructure: string | null;
  focus: string | null;
  cache: ProfileCache<ProfileAnswer>;
  answerFormat: ProfileAnswerFormat;
  retry: RetryPolicy;
  gate: RequestGate;
  stats: LlmStats;
  signal: AbortSignal;
  /** Saves a raw answer when `debug.save_raw_responses` is on. */
  saveRaw?: (filePath: string, raw: string) => Promise<void>;
}

export type LlmProfileResult =
  | { ok: true; answer: ProfileAnswer; cached: boolean; secretsRedacted: number }
  | { ok: false; error: string; secretsRedacted: number };

/** Statuses that mean the provider cannot serve this run at all: stop, do not mark every file failed. */
const FATAL_STATUS = new Set([401, 403, 404]);

/** Everything besides the file's content that shapes the answer, for the cache key. */
export function answerContext(ctx: Pick<LlmContext, 'config' | 'targetStructure' | 'focus'>): string {
  const { llm, file_analysis, relationships } = ctx.config;
  return JSON.stringify({
    system: llm.system_prompt,
    max_content_length: file_analysis.max_content_length,
    focus: ctx.focus,
    target: ctx.targetStructure ? contentHash(ctx.targetStructure) : null,
    types: ctx.targetStructure ? relationships.relationship_types : null,
    min_confidence: relationships.min_confidence_score,
  });
}

export async function profileWithLlm(
  file: { path: string },
  facts: StaticFacts,
  content: string,
  hash: string,
  ctx: LlmContext,
): Promise<LlmProfileResult> {
  const key = cacheKey({
    contentHash: hash,
    provider: ctx.provider.name,
    model: ctx.provider.model,
    promptVersion: ctx.prompts.version,
    schemaVersion: SCHEMA_VERSION,
    context: answerContext(ctx),
  });
  const cached = await ctx.cache.get(key, isProfileAnswer);
  if (cached) {
    ctx.stats.cache_hits++;
    return { ok: true, answer: cached, cached: true, secretsRedacted: 0 };
  }

  const { prompt, secretsRedacted } = buildProfilePrompt(file.path, facts, content, ctx);
  ctx.stats.secrets_redacted += secretsRedacted;
  const format = ctx.answerFormat;
  try {
    const answer = await askModel(ctx, { prompt, schema: format.schema, schemaName: 'file_profile' }, (value) => format.parse(value), (raw) =>
      ctx.saveRaw?.(file.path, raw),
    );
    await ctx.cache.set(key, answer);
    return { ok: true, answer, cached: false, secretsRedacted };
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    const status = statusOf(error);
    if (status !== undefined && FATAL_STATUS.has(status)) {
      throw new ProviderError(`${ctx.provider.name} refused the request (${status}): ${firstLine(errorMessage(error))}`, {
        cause: error,
        hint: status === 404 ? 'check llm.model' : 'check the API key in the environment',
      });
    }
    return { ok: false, error: describeFailure(error), secretsRedacted };
  }
}

export type AskContext = Pick<LlmContext, 'provider' | 'config' | 'retry' | 'gate' | 'stats' | 'signal'>;

/**
 * One structured question, with the run's gate, retry policy and statistics: an answer cut off at
 * max_tokens, not JSON, or of the wrong shape (`parse` returns a string saying why) is retried like a 503.
 */
export async function askModel<T>(
  ctx: AskContext,
  question: { prompt: string; schema: JsonSchema; schemaName: string },
  parse: (value: unknown) => T | string,
  onRaw?: (raw: string) => Promise<void> | undefined,
): Promise<T> {
  return withRetries(
    async () => {
      await ctx.gate.wait(ctx.signal);
      ctx.stats.calls++;
      const response = await ctx.provider.complete({
        system: ctx.config.llm.system_prompt,
        ...question,
        maxTokens: ctx.config.llm.max_tokens,
        temperature: ctx.config.llm.temperature,
        signal: ctx.signal,
      });
      ctx.stats.prompt_tokens += response.usage.prompt_tokens;
      ctx.stats.completion_tokens += response.usage.completion_tokens;
      await onRaw?.(response.text);
      if (response.finishReason === 'length') throw new InvalidAnswerError('answer cut off at llm.max_tokens', response.text);
      if (response.value === undefined) throw new InvalidAnswerError('answer is not JSON', response.text);
      const parsed = parse(response.value);
      if (typeof parsed === 'string') throw new InvalidAnswerError(`answer has the wrong shape (${parsed})`, response.text);
      return parsed;
    },
    ctx.retry,
    ctx.signal,
    { onRetry: () => ctx.stats.retries++ },
  );
}

function firstLine(text: string): string {
  return text.split('\n')[0]?.slice(0, 200) ?? '';
}

function describeFailure(error: unknown): string {
  const status = statusOf(error);
  return `llm_error: ${status ? `${status} ` : ''}${firstLine(errorMessage(error))}`;
}

const MAX_SKELETON_LINES = 60;

/** The prompt for one file: skeleton from the parser, a screened head of the content, optional focus and target. */
export function buildProfilePrompt(
  filePath: string,
  facts: StaticFacts,
  content: string,
  ctx: Pick<LlmContext, 'prompts' | 'config' | 'targetStructure' | 'focus'>,
): { prompt: string; secretsRedacted: number } {
  const limit = ctx.config.file_analysis.max_content_length;
  const head = content.length > limit ? content.slice(0, limit) : content;
  const excerpt = redactSecrets(head);
  const skeletonText = facts.symbols
    .slice(0, MAX_SKELETON_LINES)
    .map((s) => `- ${s.kind} ${s.ast_path} (${s.start_line}-${s.end_line})${s.doc ? `: ${s.doc}` : ''}`)
    .join('\n');
  const skeleton = redactSecrets(skeletonText || '(none found)');
  const more = facts.symbols.length > MAX_SKELETON_LINES ? `\n- … and ${facts.symbols.length - MAX_SKELETON_LINES} more` : '';
  const { relationship_types, min_confidence_score } = ctx.config.relationships;
  const prompt = renderPrompt(ctx.prompts.profile, {
    file_path: filePath,
    language: facts.language,
    role: facts.role.replace('_', ' '),
    lines_of_code: String(facts.lines_of_code),
    skeleton: `${skeleton.text}${more}`,
    imports: facts.dependencies.slice(0, 30).join(', ') || '(none)',
    focus: ctx.focus ? renderPrompt(ctx.prompts.focus, { focus: ctx.focus }) : '',
    excerpt_note: content.length > limit ? ` (first ${limit} of ${content.length} characters)` : '',
    excerpt: excerpt.text,
    relationships: ctx.targetStructure
      ? renderPrompt(ctx.prompts.relationships, {
          target_structure: ctx.targetStructure,
          relationship_types: Object.entries(relationship_types).map(([t, w]) => `${t} (weight ${w})`).join(', '),
          min_confidence: String(min_confidence_score),
        })
      : '',
  });
  return { prompt, secretsRedacted: excerpt.count + skeleton.count };
}

function isProfileAnswer(value: unknown): value is ProfileAnswer {
  const v = value as Partial<ProfileAnswer> | null;
  return (
    typeof v === 'object' && v !== null &&
    typeof v.file_type === 'string' && typeof v.summary === 'string' &&
    Array.isArray(v.key_concepts) && Array.isArray(v.relationships)
  );
}
