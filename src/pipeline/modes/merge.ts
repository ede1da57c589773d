/**
 * Merge: partial indexes written by `coderag index --shard i/n` become the index a single run writes. Shards
 * are grouped by repository; a group is merged only when it is complete (shards 1..n, once each) and its
 * shards agree on the commit, the walked file list and every setting that shapes a profile; otherwise the
 * merge is refused with the first difference named.
 *
 * Per-file facts (symbols, imports resolved against the whole tree, model answers, relationships) are already
 * final in each shard. What depends on the whole repository is recomputed: static key concepts are weighted
 * by document frequency across every file, so they are chosen again from the stored profiles
 * (`chooseConcepts`, the same step a single run ends with). `writeMergedRepositories` writes each merged index
 * with the reuse state a single run leaves beside its own (mergeReuse.ts), so the next run updates it.
 */
import { readFile } from 'node:fs/promises';
import type { Config } from '../../config/schema.js';
import { chooseConcepts } from '../../extract/staticProfile.js';
import { normalizeRepoIndex, repoIndexProblem } from '../../index/serialize.js';
import type { AnalysisMetadata, FileSummary, RepoIndex, ShardInfo } from '../../index/types.js';
import { CodeRagError } from '../../shared/errors.js';
import { buildRepoIndex, type BuildIndexInput } from '../buildIndex.js';
import { ignoreEvents, type EventSink } from '../events.js';
import { writeSearchPacks } from '../searchPacks.js';
import { writeMergedIndex } from './mergeReuse.js';
import { describeIndex, prepareOutputDir, writeRepoIndex, writeRunReports, type WrittenRepo } from '../writeIndex.js';

/** One partial index and the file it came from (named in refusals). */
export interface ShardPart {
  file: string;
  index: RepoIndex;
}

/** A set of shards that cannot be merged: exit code 1, the difference in the message. */
export class MergeError extends CodeRagError {}

export async function readShard(file: string): Promise<ShardPart> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (cause) {
    throw new MergeError(`cannot read ${file}: ${cause instanceof SyntaxError ? 'not valid JSON' : (cause as Error).message}`, { cause });
  }
  const problem = repoIndexProblem(parsed);
  if (problem) throw new MergeError(`${file} is not a repository index (${problem})`);
  const index = normalizeRepoIndex(parsed as Record<string, unknown>, file);
  const meta = index.analysis_metadata as AnalysisMetadata | undefined;
  if (!meta) throw new MergeError(`${file} has no analysis_metadata, so its shard cannot be checked`, { hint: 'index the shards with output.include_metadata on' });
  if (!meta.shard) throw new MergeError(`${file} is a complete index, not a shard`, { hint: 'merge the files written by `coderag index --shard i/n`' });
  return { file, index };
}

/** Merges every repository's shards; the answer is in repository-name order. */
export function mergeShards(parts: readonly ShardPart[], config: Config): RepoIndex[] {
  return mergeRepositories(parts, config).map(({ input }) => buildRepoIndex(input));
}

/** A repository's merged index, not yet built, and the shards it came from (in shard order). */
export interface MergedRepository {
  input: BuildIndexInput;
  parts: ShardPart[];
}

/** Every repository's shards, checked and combined; in repository-name order. */
export function mergeRepositories(parts: readonly ShardPart[], config: Config): MergedRepository[] {
  if (parts.length === 0) throw new MergeError('no shards to merge');
  const byRepo = new Map<string, ShardPart[]>();
  for (const part of parts) {
    const list = byRepo.get(part.index.repo_name) ?? [];
    list.push(part);
    byRepo.set(part.index.repo_name, list);
  }
  return [...byRepo.keys()].sort().map((repo) => mergeRepository(repo, byRepo.get(repo) as ShardPart[], config));
}

function mergeRepository(repo: string, parts: ShardPart[], config: Config): MergedRepository {
  const ordered = checkComplete(repo, parts);
  checkAgreement(repo, ordered);
  const first = ordered[0] as ShardPart;
  const meta = first.index.analysis_metadata;

  const summaries: FileSummary[] = [];
  const owner = new Map<string, string>();
  for (const part of ordered) {
    for (const summary of part.index.file_summaries) {
      const earlier = owner.get(summary.file_path);
      if (earlier) throw new MergeError(`${repo}: ${summary.file_path} is in two shards (${earlier} and ${part.file})`);
      owner.set(summary.file_path, part.file);
      summaries.push({ ...summary });
    }
  }
  // Static concepts are weighed against the whole repository, as a single run weighs them.
  chooseConcepts(summaries);

  const metas = ordered.map((p) => p.index.analysis_metadata);
  const sum = (pick: (m: AnalysisMetadata) => number): number => metas.reduce((n, m) => n + (pick(m) || 0), 0);
  const startedAt = Math.min(...metas.map((m) => Date.parse(m.analysis_date) - m.duration_ms));
  const finishedAt = Math.max(...metas.map((m) => Date.parse(m.analysis_date)));
  // The thresholds and switches recorded in metadata are the shards' own, whatever this machine's config says.
  const shardConfig: Config = {
    ...config,
    relationships: { ...config.relationships, min_confidence_score: meta.min_confidence_score, high_confidence_threshold: meta.high_confidence_threshold },
    performance: { ...config.performance, enable_concurrent_analysis: meta.concurrent_analysis_used, enable_content_caching: meta.content_caching_enabled },
  };
  const target = meta.target_structure_analyzed;
  const input: BuildIndexInput = {
    repoName: repo,
    repoPath: meta.repo_path,
    summaries,
    relationships: ordered.flatMap((p) => p.index.relationships),
    config: shardConfig,
    configFile: meta.config_file_used,
    gitCommit: meta.git_commit,
    gitDirty: metas.some((m) => m.git_dirty === true) ? true : (meta.git_dirty ?? null),
    excludedByRule: meta.excluded_by_rule ?? {},
    ownOutput: [...new Set(metas.flatMap((m) => m.own_output_excluded ?? []))].sort(),
    unreadableFolders: [...new Set(metas.flatMap((m) => m.unreadable_folders ?? []))].sort(),
    historyShallow: metas.some((m) => m.history_shallow === true),
    remote: meta.repo_remote ?? null,
    // Every shard walks the whole repository: each saw the same skipped folders.
    skippedFolders: metas[0]?.skipped_folders ?? {},
    startedAt: Number.isFinite(startedAt) ? startedAt : Date.now(),
    finishedAt: Number.isFinite(finishedAt) ? finishedAt : Date.now(),
    run: {
      provider: meta.provider,
      model: meta.model,
      promptVersion: meta.prompt_version,
      focus: meta.focus,
      // buildRepoIndex records the first 200 characters and an ellipsis: give back what it recorded.
      targetStructure: target ? target.replace(/\.\.\.$/, '') : null,
      prefilter: { enabled: false, before: sum((m) => m.files_before_filtering), after: sum((m) => m.files_after_filtering) },
      tokenUsage: {
        prompt_tokens: sum((m) => m.token_usage?.prompt_tokens ?? 0),
        completion_tokens: sum((m) => m.token_usage?.completion_tokens ?? 0),
        // Model runs record the prompt tokens served from the provider's cache (h-llmrate); static runs do not.
        ...(metas.some((m) => m.token_usage?.cached_prompt_tokens !== undefined) ? { cached_prompt_tokens: sum((m) => m.token_usage?.cached_prompt_tokens ?? 0) } : {}),
      },
      llmCalls: sum((m) => m.llm_calls),
      retries: sum((m) => m.retries),
      cacheHits: sum((m) => m.cache_hits),
      secretsRedacted: sum((m) => m.secrets_redacted),
      answeredFiles: sum((m) => m.llm_answered_files ?? 0),
      relationshipsOutside: sum((m) => m.relationships_outside_target ?? 0),
    },
  };
  return { input, parts: ordered };
}

function shardOf(part: ShardPart): ShardInfo {
  return part.index.analysis_metadata.shard as ShardInfo;
}

const label = (part: ShardPart): string => `shard ${shardOf(part).index}/${shardOf(part).count} (${part.file})`;

/** Shards 1..n, each once, all of the same n; answered in shard order. */
function checkComplete(repo: string, parts: ShardPart[]): ShardPart[] {
  const counts = new Set(parts.map((p) => shardOf(p).count));
  if (counts.size > 1) {
    const [a, b] = distinctBy(parts, (p) => shardOf(p).count);
    throw new MergeError(`${repo}: shards split the repository differently: ${label(a)} and ${label(b)}`);
  }
  const count = shardOf(parts[0] as ShardPart).count;
  const slots = new Map<number, ShardPart>();
  for (const part of parts) {
    const earlier = slots.get(shardOf(part).index);
    if (earlier) throw new MergeError(`${repo}: shard ${shardOf(part).index}/${count} given twice: ${earlier.file} and ${part.file}`);
    slots.set(shardOf(part).index, part);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !slots.has(i));
  if (missing.length) {
    throw new MergeError(`${repo}: shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing`, {
      hint: 'every shard of a run must be merged together',
    });
  }
  return Array.from({ length: count }, (_, i) => slots.get(i + 1) as ShardPart);
}

/** The same commit, the same walked files, the same settings; the first difference is named. */
function checkAgreement(repo: string, parts: ShardPart[]): void {
  const first = parts[0] as ShardPart;
  for (const part of parts.slice(1)) {
    const a = first.index.analysis_metadata;
    const b = part.index.analysis_metadata;
    if (a.git_commit !== b.git_commit) {
      throw new MergeError(`${repo}: shards come from different commits: ${a.git_commit ?? 'no commit'} in ${label(first)}, ${b.git_commit ?? 'no commit'} in ${label(part)}`, {
        hint: 'index every shard from the same checkout',
      });
    }
    const sa = shardOf(first);
    const sb = shardOf(part);
    for (const key of [...new Set([...Object.keys(sa.settings), ...Object.keys(sb.settings)])].sort()) {
      const va = JSON.stringify(sa.settings[key]);
      const vb = JSON.stringify(sb.settings[key]);
      if (va !== vb) {
        throw new MergeError(`${repo}: shards were made with different settings: ${key} is ${va ?? 'unset'} in ${label(first)}, ${vb ?? 'unset'} in ${label(part)}`, {
          hint: 'run every shard with the same configuration, provider and model',
        });
      }
    }
    if (sa.files_digest !== sb.files_digest) {
      throw new MergeError(`${repo}: shards walked different file lists (${sa.files_total} files in ${label(first)}, ${sb.files_total} in ${label(part)})`, {
        hint: 'the checkouts, .gitignore or .coderagignore files differ between the shards',
      });
    }
  }
}

function distinctBy<T>(items: T[], key: (item: T) => unknown): [T, T] {
  const first = items[0] as T;
  const other = items.find((item) => key(item) !== key(first)) as T;
  return [first, other];
}

/**
 * Writes merged repositories into `outDir` as a single run writes its own: each index with its reuse state
 * (mergeReuse.ts), the run reports, then the search packs.
 */
export async function writeMergedRepositories(
  merged: readonly MergedRepository[],
  outDir: string,
  config: Config,
  configFile: string | null,
  emit: EventSink = ignoreEvents,
): Promise<{ written: WrittenRepo[]; reports: string[] }> {
  await prepareOutputDir(outDir);
  const written: WrittenRepo[] = [];
  for (const { input, parts } of merged) written.push(await writeMergedIndex(input, parts, outDir, config, emit));
  const reports = await writeRunReports(written, outDir, config, configFile);
  await writeSearchPacks(written);
  return { written, reports };
}

/**
 * Writes merged indexes held in memory into `outDir`, without reuse states: the indexes, the run reports,
 * then the search packs.
 */
export async function writeMergedIndexes(merged: readonly RepoIndex[], outDir: string, config: Config, configFile: string | null): Promise<{ written: WrittenRepo[]; reports: string[] }> {
  await prepareOutputDir(outDir);
  const written: WrittenRepo[] = [];
  for (const index of merged) {
    const outputPath = await writeRepoIndex(index, outDir, config);
    written.push({ index: describeIndex(index), outputPath });
  }
  const reports = await writeRunReports(written, outDir, config, configFile);
  await writeSearchPacks(written);
  return { written, reports };
}
