/**
 * CodeRAG's library API. The CLI is a thin shell over these.
 */
import { validateConfig, deepMerge } from './config/load.js';
import type { Config } from './config/schema.js';
import type { RepoIndex } from './index/types.js';
import type { LlmSession } from './pipeline/llmSession.js';
import { indexRepository, type IndexRepositoryOptions } from './pipeline/runIndex.js';
import { SearchCorpus, search as searchCorpus } from './search/search.js';
import { readRepositoryFile } from './search/sourceFiles.js';
import type { SearchRequest, SearchResponse } from './search/types.js';

export type * from './index/types.js';
export { SCHEMA_VERSION } from './index/types.js';
export type { Config, ConfigInput } from './config/schema.js';
export { defaultConfig } from './config/schema.js';
export { loadConfig, validateConfig } from './config/load.js';
export { runIndex, indexRepository } from './pipeline/runIndex.js';
export type { HistorySource } from './pipeline/history.js';
export { createLlmSession, type LlmSession, type LlmSessionOptions } from './pipeline/llmSession.js';
export { selectProvider } from './llm/select.js';
export type { LlmProvider, ProviderOptions } from './llm/provider.js';
export { OpenAiProvider } from './llm/openai.js';
export { AnthropicProvider } from './llm/anthropic.js';
export type { IndexEvent, EventSink } from './pipeline/events.js';
export { loadIndexes } from './search/load.js';
export { SearchCorpus } from './search/search.js';
export { readRepositoryFile, type RepositoryFileReader } from './search/sourceFiles.js';
export type { LoadedIndex, SearchRequest, SearchResponse, Reference, Snippet } from './search/types.js';
export { formatMarkdown, searchResultJson, overviewJson } from './search/format.js';
export { plan, isApproval, type PlanOptions, type PlanResult, type PlanEvent, type PlanEnding } from './plan/plan.js';
export { listAnswers, terminalAnswers, type AnswerSource } from './plan/answers.js';
export { fileStateStore, statePathFor, type PlanState, type PlanStateStore, type PlanTurn } from './plan/state.js';
export type { ModelTurn, PlannedFile } from './plan/turn.js';
export { addSnippets, type SnippetOptions } from './search/snippets.js';
export { fileOutline, findSymbol, SYMBOL_KINDS, type FileOutline, type OutlineSymbol, type SymbolMatch, type SymbolSearch, type FindSymbolOptions } from './search/symbols.js';
export { checkFreshness, type RepoFreshness } from './search/freshness.js';
export { makeScope, scopedSearch, scopedFindSymbol, scopedOutline, type Scope, type ScopeInput, type ScopeJson } from './search/scope.js';
export { normalizeRemote } from './shared/gitRemote.js';
export { mergeShards, readShard, MergeError, type ShardPart } from './pipeline/modes/merge.js';
export { parseShard, inShard, type Shard } from './pipeline/shard.js';
export { CodeRagError, UsageError, ConfigError, ProviderError, AbortedError } from './shared/errors.js';

/** indexRepository's options a library caller gives; the configuration may be partial. */
export interface IndexRepoOptions extends Pick<IndexRepositoryOptions, 'onEvent' | 'signal' | 'historySource' | 'targetStructure'> {
  /** A partial configuration, merged over the defaults and validated. */
  config?: Record<string, unknown> | Config;
  /** Model profiles (see createLlmSession and selectProvider); without one, profiles are static. */
  llm?: LlmSession | null;
}

/** Profiles a repository and returns its index, writing nothing. */
export async function indexRepo(repoPath: string, options: IndexRepoOptions = {}): Promise<RepoIndex> {
  const config = validateConfig(deepMerge({}, (options.config ?? {}) as Record<string, unknown>));
  const { onEvent, signal, llm, historySource, targetStructure } = options;
  return indexRepository(repoPath, { config, ...(onEvent ? { onEvent } : {}), ...(signal ? { signal } : {}), ...(historySource ? { historySource } : {}), ...(targetStructure ? { targetStructure } : {}), llm: llm ?? null });
}

/**
 * Ranks the files of in-memory indexes (or a prepared corpus) for a request. A task text's first files are
 * reordered by their passages, read from the repositories the indexes record, as `coderag search` does.
 */
export function search(indexes: readonly RepoIndex[] | SearchCorpus, request: SearchRequest): SearchResponse {
  const corpus = indexes instanceof SearchCorpus ? indexes : new SearchCorpus(indexes.map((index) => ({ key: index.repo_name, file: '', index })), { readFile: readRepositoryFile });
  return searchCorpus(corpus, request);
}
