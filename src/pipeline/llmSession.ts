/**
 * Everything a run shares for model calls: the provider, prompts, the persistent cache, the retry policy,
 * the request scheduler (rate control) and the shared prefix of profile requests. Created once per run by
 * the caller; per-repository statistics and the packer are kept apart.
 */
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { ProfileCache } from '../cache/profileCache.js';
import type { FileRelationship, FileSummary } from '../index/types.js';
import { writeFileAtomic } from '../shared/atomicFile.js';
import { ProfileAnswerFormat, type ProfileAnswer } from '../llm/answers.js';
import { Packer, type PackLimits } from '../llm/packer.js';
import { sharedPrefix, type SharedPrefix } from '../llm/profileRequest.js';
import { loadPromptSet, type PromptSet } from '../llm/prompts.js';
import type { LlmProvider } from '../llm/provider.js';
import type { RunBudget } from '../llm/budget.js';
import { RequestScheduler } from '../llm/rateControl.js';
import { SymbolMatcher } from '../llm/symbolNames.js';
import { targetFiles, type TargetFiles } from '../llm/targetPaths.js';
import type { RetryPolicy } from '../llm/retry.js';
import type { LlmStats } from '../llm/ask.js';
import { sendPack, type LlmContext, type PendingFile } from './llmProfile.js';

/** A pack not yet full leaves once no file has joined it for this long, or its first file has waited the longest. */
const PACK_IDLE_MS = 100;
const PACK_MAX_LINGER_MS = 1500;
/**
 * Files in flight beyond those waiting on the model, so parsing never starves; few enough that an aborted
 * run (a refused key, Ctrl+C) is not kept waiting for many parses already started.
 */
const PARSE_QUEUE = 8;

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
  /** Spending limits for the run (`--max-cost`, `--max-calls`). */
  budget?: RunBudget | null;
}

export interface LlmSession {
  provider: LlmProvider;
  prompts: PromptSet;
  cache: ProfileCache<ProfileAnswer>;
  answerFormat: ProfileAnswerFormat;
  retry: RetryPolicy;
  scheduler: RequestScheduler;
  shared: SharedPrefix;
  targetStructure: string | null;
  /** The files of the target structure, which relationships must point at; null without one. */
  targetFiles: TargetFiles | null;
  focus: string | null;
  prefilter: boolean;
  budget: RunBudget | null;
  /** Files the orchestrator should keep in flight: a pack for every request slot and one more filling, plus a parse queue. */
  filesInFlight: number;
}

export function createLlmSession(options: LlmSessionOptions): LlmSession {
  const { config } = options;
  const targetStructure = options.targetStructure?.trim() || null;
  const { llm, performance } = config;
  const concurrency = performance.enable_concurrent_analysis ? performance.max_concurrent_files : 1;
  const maxConcurrency = performance.enable_concurrent_analysis ? Math.max(concurrency, llm.adaptive_concurrency_max ?? concurrency) : 1;
  const prompts = loadPromptSet(options.promptsDir);
  const answerFormat = new ProfileAnswerFormat(
    targetStructure ? Object.keys(config.relationships.relationship_types) : null,
    config.relationships.min_confidence_score,
  );
  const focus = options.focus?.trim() || null;
  return {
    provider: options.provider,
    prompts,
    cache: new ProfileCache<ProfileAnswer>(config.performance.enable_content_caching ? config.paths.cache_dir : null, config.performance.max_cache_size),
    retry: {
      retries: config.llm.max_retries,
      baseDelayMs: config.llm.retry_delay * 1000,
      maxDelayMs: config.llm.max_retry_after * 1000,
    },
    answerFormat,
    scheduler: new RequestScheduler({
      concurrency,
      maxConcurrency,
      pauseMs: llm.request_delay * 1000,
      requestsPerMinute: llm.requests_per_minute,
      tokensPerMinute: llm.tokens_per_minute,
      fallbackPauseMs: Math.max(llm.retry_delay * 1000, 100),
    }),
    shared: sharedPrefix({ prompts, config, targetStructure, focus, answerFormat }),
    targetStructure,
    targetFiles: targetStructure ? targetFiles(targetStructure) : null,
    focus,
    prefilter: options.prefilter ?? config.file_analysis.enable_pre_filtering,
    budget: options.budget ?? null,
    filesInFlight: (maxConcurrency + 1) * llm.pack_max_files + PARSE_QUEUE,
  };
}

/** How many files go into one request: the packer's limits, and the dry run's when it groups files as a live run would. */
export function packLimits(config: Config): PackLimits {
  const { llm } = config;
  return { tokenBudget: llm.pack_token_budget, answerBudget: Math.floor(llm.max_tokens * 0.6), maxItems: llm.pack_max_files };
}

export function llmContext(session: LlmSession, config: Config, stats: LlmStats, signal: AbortSignal, repoName: string): LlmContext {
  const { llm } = config;
  const packer = new Packer<PendingFile>({
    ...packLimits(config),
    idleMs: llm.pack_max_files > 1 ? PACK_IDLE_MS : 0,
    maxLingerMs: llm.pack_max_files > 1 ? PACK_MAX_LINGER_MS : 0,
    capacity: () => session.scheduler.capacity,
    sizeOf: (p) => ({ tokens: p.part.tokens, answerTokens: p.part.answerTokens }),
    send: (pack) => sendPack(context, pack),
    signal,
  });
  const context: LlmContext = { ...session, config, stats, signal, packer };
  if (config.debug.save_raw_responses) {
    const dir = path.join(config.debug.raw_responses_dir, repoName.replace(/[^\w.-]+/g, '_'));
    context.saveRaw = (filePath, raw) => writeFileAtomic(path.join(dir, `${filePath.replace(/[\\/]/g, '__')}.json`), raw);
  }
  return context;
}

/** The relationships an answer gives a file, and how many were dropped for pointing outside the target structure. */
export interface AppliedAnswer {
  relationships: FileRelationship[];
  outside: number;
}

/**
 * A model's meaning over the parser's facts: file type, summary and concepts change; functions and imports
 * stay. Descriptions go to the symbols they name, however the model wrote the name. A relationship is kept
 * only when its target is a file of the target structure (`targets`), under the path the structure gives it.
 */
export function applyAnswer(summary: FileSummary, answer: ProfileAnswer, targets: TargetFiles | null = null): AppliedAnswer {
  summary.file_type = answer.file_type;
  summary.summary = answer.summary;
  delete summary.summary_source;
  delete summary.title;
  summary.key_concepts = answer.key_concepts;
  summary.profile_source = 'llm';
  const matcher = new SymbolMatcher(summary.symbols);
  const described = new Map<string, string>();
  for (const d of answer.descriptions) {
    for (const astPath of matcher.match(d.name)) if (!described.has(astPath)) described.set(astPath, d.description);
  }
  for (const symbol of summary.symbols) {
    const description = described.get(symbol.ast_path);
    if (description) symbol.description = description;
  }
  const relationships: FileRelationship[] = [];
  let outside = 0;
  for (const r of answer.relationships) {
    const target = targets ? targets.resolve(r.target_file_path) : r.target_file_path;
    if (target === null) outside++;
    else relationships.push({ repo_file_path: summary.file_path, ...r, target_file_path: target });
  }
  return { relationships, outside };
}
