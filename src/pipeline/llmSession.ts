/**
 * Everything a run shares for model calls: the provider, prompts, the persistent cache, the retry policy
 * and the request gate. Created once per run by the caller; per-repository statistics are kept apart.
 */
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { ProfileCache } from '../cache/profileCache.js';
import type { FileRelationship, FileSummary } from '../index/types.js';
import { writeFileAtomic } from '../index/serialize.js';
import { ProfileAnswerFormat, type ProfileAnswer } from '../llm/answers.js';
import { loadPromptSet, type PromptSet } from '../llm/prompts.js';
import type { LlmProvider } from '../llm/provider.js';
import { RequestGate, type RetryPolicy } from '../llm/retry.js';
import type { LlmContext, LlmStats } from './llmProfile.js';

export interface LlmSessionOptions {
  provider: LlmProvider;
  config: Config;
  /** Target structure text (a tree or a plan); null means no relationship inference. */
  targetStructure?: string | null;
  /** A concern every profile should address (`--focus`). */
  focus?: string | null;
  /** Use `llm.enable_pre_filtering`'s pre-filter (needs a target structure). */
  prefilter?: boolean;
  promptsDir?: string;
}

export interface LlmSession {
  provider: LlmProvider;
  prompts: PromptSet;
  cache: ProfileCache<ProfileAnswer>;
  answerFormat: ProfileAnswerFormat;
  retry: RetryPolicy;
  gate: RequestGate;
  targetStructure: string | null;
  focus: string | null;
  prefilter: boolean;
}

export function createLlmSession(options: LlmSessionOptions): LlmSession {
  const { config } = options;
  const targetStructure = options.targetStructure?.trim() || null;
  return {
    provider: options.provider,
    prompts: loadPromptSet(options.promptsDir),
    cache: new ProfileCache<ProfileAnswer>(config.performance.enable_content_caching ? config.paths.cache_dir : null, config.performance.max_cache_size),
    retry: {
      retries: config.llm.max_retries,
      baseDelayMs: config.llm.retry_delay * 1000,
      maxDelayMs: config.llm.max_retry_after * 1000,
    },
    answerFormat: new ProfileAnswerFormat(
      targetStructure ? Object.keys(config.relationships.relationship_types) : null,
      config.relationships.min_confidence_score,
    ),
    gate: new RequestGate(config.llm.request_delay * 1000),
    targetStructure,
    focus: options.focus?.trim() || null,
    prefilter: options.prefilter ?? config.file_analysis.enable_pre_filtering,
  };
}

export function llmContext(session: LlmSession, config: Config, stats: LlmStats, signal: AbortSignal, repoName: string): LlmContext {
  const context: LlmContext = { ...session, config, stats, signal };
  if (config.debug.save_raw_responses) {
    const dir = path.join(config.debug.raw_responses_dir, repoName.replace(/[^\w.-]+/g, '_'));
    context.saveRaw = (filePath, raw) => writeFileAtomic(path.join(dir, `${filePath.replace(/[\\/]/g, '__')}.json`), raw);
  }
  return context;
}

/** A model's meaning over the parser's facts: file type, summary and concepts change; functions and imports stay. */
export function applyAnswer(summary: FileSummary, answer: ProfileAnswer): FileRelationship[] {
  summary.file_type = answer.file_type;
  summary.summary = answer.summary;
  delete summary.summary_source;
  summary.key_concepts = answer.key_concepts;
  summary.profile_source = 'llm';
  return answer.relationships.map((r) => ({ repo_file_path: summary.file_path, ...r }));
}
