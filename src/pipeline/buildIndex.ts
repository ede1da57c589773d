/**
 * Assembles a RepoIndex in a deterministic order (files by path, relationships by file, target, type), with
 * DeepCode's metadata keys and ours beside them.
 */
import type { Config } from '../config/schema.js';
import type { AnalysisMetadata, FileRelationship, FileSummary, RepoIndex, ShardInfo, TokenUsage } from '../index/types.js';
import { SCHEMA_VERSION } from '../index/types.js';
import { VERSION } from '../shared/version.js';
import { compareCodeUnits } from '../shared/text.js';

/** A time as the index writes it: ISO 8601 in UTC. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString();
}

export interface RunFacts {
  provider: string;
  model: string | null;
  promptVersion: string | null;
  focus: string | null;
  targetStructure: string | null;
  prefilter: { enabled: boolean; before: number; after: number };
  tokenUsage: TokenUsage;
  llmCalls: number;
  retries: number;
  cacheHits: number;
  secretsRedacted: number;
  /** Files a model answered in this run, and relationships dropped for a target outside the structure. */
  answeredFiles?: number;
  relationshipsOutside?: number;
}

export const STATIC_RUN: RunFacts = {
  provider: 'static',
  model: null,
  promptVersion: null,
  focus: null,
  targetStructure: null,
  prefilter: { enabled: false, before: 0, after: 0 },
  tokenUsage: { prompt_tokens: 0, completion_tokens: 0 },
  llmCalls: 0,
  retries: 0,
  cacheHits: 0,
  secretsRedacted: 0,
};

export interface BuildIndexInput {
  repoName: string;
  repoPath: string;
  summaries: FileSummary[];
  relationships: FileRelationship[];
  config: Config;
  configFile: string | null;
  gitCommit: string | null;
  gitDirty?: boolean | null;
  excludedByRule?: Record<string, number>;
  /** CodeRAG's own files and folders the walk left out (walk.ts). */
  ownOutput?: readonly string[];
  /** Folders the walk could not list (walk.ts). */
  unreadableFolders?: readonly string[];
  /** The work tree was a shallow clone: its history is cut short. */
  historyShallow?: boolean;
  /** The normalised `origin` remote that names the repository (repository.ts). */
  remote?: string | null;
  /** Folders skipped by name, with the files each held (walk.ts `skippedFolders`). */
  skippedFolders?: Record<string, number>;
  shard?: ShardInfo;
  startedAt: number;
  finishedAt: number;
  run?: RunFacts;
}

export function buildRepoIndex(input: BuildIndexInput): RepoIndex {
  const summaries = [...input.summaries].sort((a, b) => compareCodeUnits(a.file_path, b.file_path));
  const relationships = sortRelationships(input.relationships);
  return {
    repo_name: input.repoName,
    total_files: summaries.length,
    file_summaries: summaries,
    relationships,
    analysis_metadata: buildMetadata({ ...input, relationships }, summaries),
  };
}

/** Relationships in the index's order: by file, target, type. */
export function sortRelationships(relationships: readonly FileRelationship[]): FileRelationship[] {
  return [...relationships].sort(
    (a, b) => compareCodeUnits(a.repo_file_path, b.repo_file_path) || compareCodeUnits(a.target_file_path, b.target_file_path) || compareCodeUnits(a.relationship_type, b.relationship_type),
  );
}

/** The index's metadata, from the run's facts and each entry's status and reason (`relationships` sorted). */
export function buildMetadata(input: Omit<BuildIndexInput, 'summaries'>, entries: Iterable<Pick<FileSummary, 'status' | 'reason'>>): AnalysisMetadata {
  const { config, relationships } = input;
  const run = input.run ?? STATIC_RUN;
  const filesByStatus = { ok: 0, skipped: 0, failed: 0 };
  const skippedByReason: Record<string, number> = {};
  let unusable = 0;
  for (const entry of entries) {
    filesByStatus[entry.status]++;
    if (entry.status === 'ok' && entry.reason?.startsWith('llm_unusable')) unusable++;
    if (entry.status !== 'ok' && entry.reason) {
      const code = entry.reason.split(':')[0] ?? entry.reason;
      skippedByReason[code] = (skippedByReason[code] ?? 0) + 1;
    }
  }
  const highThreshold = config.relationships.high_confidence_threshold;
  const before = run.prefilter.before;
  const after = run.prefilter.after;
  const metadata: AnalysisMetadata = {
    analysis_date: new Date(input.finishedAt).toISOString(),
    target_structure_analyzed: run.targetStructure ? `${run.targetStructure.slice(0, 200)}...` : '',
    total_relationships_found: relationships.length,
    high_confidence_relationships: relationships.filter((r) => r.confidence_score > highThreshold).length,
    analyzer_version: VERSION,
    pre_filtering_enabled: run.prefilter.enabled,
    files_before_filtering: before,
    files_after_filtering: after,
    filtering_efficiency: before > 0 ? Math.round((1 - after / before) * 10000) / 100 : 0,
    config_file_used: input.configFile,
    min_confidence_score: config.relationships.min_confidence_score,
    high_confidence_threshold: highThreshold,
    concurrent_analysis_used: config.performance.enable_concurrent_analysis,
    content_caching_enabled: config.performance.enable_content_caching,
    cache_hits: run.cacheHits,
    schema_version: SCHEMA_VERSION,
    tool: 'coderag',
    repo_path: input.repoPath,
    git_commit: input.gitCommit,
    provider: run.provider,
    model: run.model,
    prompt_version: run.promptVersion,
    focus: run.focus,
    token_usage: run.tokenUsage,
    llm_calls: run.llmCalls,
    retries: run.retries,
    secrets_redacted: run.secretsRedacted,
    files_by_status: filesByStatus,
    skipped_by_reason: skippedByReason,
    duration_ms: input.finishedAt - input.startedAt,
    git_dirty: input.gitDirty ?? null,
    excluded_by_rule: input.excludedByRule ?? {},
  };
  if (input.ownOutput?.length) metadata.own_output_excluded = [...input.ownOutput];
  if (input.unreadableFolders?.length) metadata.unreadable_folders = [...input.unreadableFolders];
  if (input.historyShallow) metadata.history_shallow = true;
  if (input.remote) metadata.repo_remote = input.remote;
  if (input.skippedFolders && Object.keys(input.skippedFolders).length) metadata.skipped_folders = { ...input.skippedFolders };
  if (input.shard) metadata.shard = input.shard;
  // A run without a model records a target structure only when it related the files to it (relate.ts).
  if (run.provider === 'static' && run.targetStructure) metadata.relationships_source = 'static';
  if (run.provider !== 'static') {
    metadata.llm_answered_files = run.answeredFiles ?? 0;
    metadata.llm_unusable_files = unusable;
    metadata.relationships_outside_target = run.relationshipsOutside ?? 0;
  }
  return metadata;
}

