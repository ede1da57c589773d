/**
 * Write: one RepoIndex JSON per repository, then `indexing_summary.json` and `indexing_statistics.json` as the
 * `output` section asks, all atomically. Key order follows DeepCode's (repo_name, total_files,
 * file_summaries, relationships, analysis_metadata).
 */
import { constants } from 'node:fs';
import { access, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import type { FileStatus, FileSummary, RepoIndex } from '../index/types.js';
import { toJson, type JsonStyle } from '../index/serialize.js';
import { writeFileAtomic } from '../shared/atomicFile.js';
import { CodeRagError } from '../shared/errors.js';
import { writeJsonStreamAtomic } from '../index/writeStream.js';
import { VERSION } from '../shared/version.js';
import { shardFileName } from './shard.js';
import { compareCodeUnits } from '../shared/text.js';

/**
 * Creates the folder a command writes into, or fails at once with what is wrong with it (a file in its place
 * or on its path, no permission), before any work that would be lost.
 */
export async function prepareOutputDir(dir: string, setting = 'paths.output_dir'): Promise<void> {
  try {
    await makeDirectories(dir);
    await access(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const isFile = await stat(dir).then((info) => !info.isDirectory(), () => false);
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? isFile
          ? 'a file of that name is there'
          : 'part of its path is a file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EROFS'
            ? 'the file system is read-only'
            : code === 'ENOENT'
              ? 'no folder can be made there'
              : (error as Error).message;
    throw new CodeRagError(`cannot write to ${dir} (${setting}): ${why}`, { cause: error, hint: 'name a folder that can be created or written, with --out' });
  }
}

/**
 * `mkdir -p`, one level at a time. Node's recursive mkdir never returns for a path under /proc, where making a
 * folder answers ENOENT though its parent exists: it keeps making the parent again.
 */
async function makeDirectories(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = path.resolve(dir); !(await stat(at).then(() => true, () => false)); at = path.dirname(at)) {
    missing.push(at);
    if (path.dirname(at) === at) break;
  }
  for (const level of missing.reverse()) {
    await mkdir(level).catch((error: NodeJS.ErrnoException) => {
      // Made meanwhile by another process: as good, if it is a folder (checked below).
      if (error.code !== 'EEXIST') throw error;
    });
  }
  if (!(await stat(dir)).isDirectory()) throw Object.assign(new Error(`${dir} is not a folder`), { code: 'EEXIST' });
}

export function indexFileName(config: Config, repoName: string): string {
  const safe = repoName.replace(/[^\w.-]+/g, '_');
  return config.output.index_filename_pattern.replaceAll('{repo_name}', safe);
}

/** Writes an index held in memory (a merge of shards); `runIndex` assembles its own (indexAssembly.ts). */
export async function writeRepoIndex(index: RepoIndex, outDir: string, config: Config): Promise<string> {
  const file = indexPathFor(outDir, config, index.repo_name, index.analysis_metadata.shard);
  const { analysis_metadata, ...rest } = index;
  const body = config.output.include_metadata ? { ...rest, analysis_metadata } : rest;
  await writeJsonStreamAtomic(file, body, jsonStyle(config));
  return file;
}

/** Where a repository's index (or one shard of it) is written. */
export function indexPathFor(outDir: string, config: Config, repoName: string, shard: { index: number; count: number } | null | undefined): string {
  const name = indexFileName(config, repoName);
  return path.join(outDir, shard ? shardFileName(name, shard) : name);
}

export function jsonStyle(config: Config): JsonStyle {
  return { indent: config.output.json_indent, ensureAscii: config.output.ensure_ascii };
}

/**
 * What the reports need of a written index: all of it but the file profiles, which stay in the file, and the
 * figures the reports take from them.
 */
export interface WrittenIndex extends Omit<RepoIndex, 'file_summaries'> {
  /** Files by file type. */
  file_type_counts: Record<string, number>;
  /** Files profiled (status ok), and their non-empty lines. */
  analyzed_files: number;
  lines_of_code: number;
  /** Files whose profile could not be made as asked: a model answer that never came, or a file that could not be read. */
  failed_files: FailedFile[];
}

export type FailedFile = Pick<FileSummary, 'file_path' | 'status' | 'reason'>;

/** Counts a written index's entries, one at a time, for its WrittenIndex. */
export class EntryTally {
  readonly file_type_counts: Record<string, number> = {};
  analyzed_files = 0;
  lines_of_code = 0;
  readonly failed_files: FailedFile[] = [];

  add(entry: { file_path: string; file_type: string; status: FileStatus; reason?: string | null; lines_of_code: number }): void {
    this.file_type_counts[entry.file_type] = (this.file_type_counts[entry.file_type] ?? 0) + 1;
    if (entry.status === 'ok') {
      this.analyzed_files++;
      this.lines_of_code += entry.lines_of_code;
    }
    if (entry.status === 'failed' || (entry.status === 'skipped' && entry.reason === 'unreadable')) {
      this.failed_files.push({ file_path: entry.file_path, status: entry.status, ...(entry.reason ? { reason: entry.reason } : {}) });
    }
  }
}

/** An in-memory index described as a written one. */
export function describeIndex(index: RepoIndex): WrittenIndex {
  const { file_summaries, ...rest } = index;
  const tally = new EntryTally();
  for (const summary of file_summaries) tally.add(summary);
  return { ...rest, file_type_counts: tally.file_type_counts, analyzed_files: tally.analyzed_files, lines_of_code: tally.lines_of_code, failed_files: tally.failed_files };
}

/** How the reuse stage took previous entries: by unchanged mtime, by git blob id, by content hash. */
export interface ReuseStats {
  byMtime: number;
  byBlob: number;
  byHash: number;
  /** Files read to compute their hash (step 3). */
  hashed: number;
  /** Paths the previous index held that the walk no longer lists: deleted, moved away or now excluded. */
  removed: number;
  /** Of the entries taken, those whose imports were resolved again (reuse.ts `reresolved`): their files are not parsed. */
  reresolved: number;
}

/** What a run did besides its index: the files it reused, read and parsed. */
export interface ReuseFigures extends ReuseStats {
  reused: number;
  /** Files sent to extraction (read unless their name or size ruled them out). */
  extracted: number;
  /** Extracted files a grammar parsed. */
  parsed: number;
  /** The folder the reused index was made in, when it is not this run's (another clone of the repository). */
  from?: string;
}

export interface WrittenRepo {
  index: WrittenIndex;
  outputPath: string;
  /** The files this run reused, read and parsed, when the pipeline reports them. */
  reuse?: ReuseFigures;
  /** Where each file summary landed in the index file (start, end pairs), when it was written entry by entry. */
  summaryRanges?: Float64Array;
  /** The run left the index on disk as it stood (nothing in it would change but the date of the run). */
  unchanged?: boolean;
  /** The index's search pack was written with it, from its profiles as they were made (runIndex.ts). */
  packWritten?: boolean;
  /** The previous index's layout, for a search pack updated from the previous one (searchPacks.ts). */
  previous?: PreviousLayout;
}

/** An index's previous file, as far as its search pack goes: its size and date, and where each entry was. */
export interface PreviousLayout {
  source: { size: number; mtimeMs: number };
  /**
   * Start, end pairs, in the order of the new index's entries: where the entry was in the previous index when
   * everything a search reads of it is as it was there (its path, its profile, its concepts); -1, -1 otherwise.
   */
  ranges: Float64Array;
}

/**
 * Writes the run reports. A run that left every index as it stood leaves reports already there as they are too:
 * they describe the same indexes, and a folder's combined search pack answers only while its `.json` files,
 * reports included, are the ones it was made from.
 */
export async function writeRunReports(written: WrittenRepo[], outDir: string, config: Config, configFile: string | null): Promise<string[]> {
  const files: string[] = [];
  const style = jsonStyle(config);
  const unchanged = written.length > 0 && written.every((repo) => repo.unchanged);
  const write = async (file: string, report: () => unknown, stale = false) => {
    if (stale || !(unchanged && (await exists(file)))) await writeFileAtomic(file, toJson(report(), style));
    files.push(file);
  };
  if (config.output.generate_summary) {
    const file = path.join(outDir, config.output.summary_filename);
    const { kept, dropped } = await earlierOutputFiles(file);
    // An unchanged run rewrites the summary only when it names an index that is no longer there.
    await write(file, () => summaryReport(written, config, configFile, kept), dropped);
  }
  if (config.output.generate_statistics) await write(path.join(outDir, config.output.stats_filename), () => statisticsReport(written, config, configFile));
  return files;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then((info) => info.isFile(), () => false);
}

/**
 * The indexes an earlier run's summary listed that are still in the folder: two runs that index one repository
 * each into one folder leave a summary that names both. An unreadable or foreign summary lists none.
 */
async function earlierOutputFiles(summaryFile: string): Promise<{ kept: Record<string, string>; dropped: boolean }> {
  let earlier: unknown;
  try {
    earlier = JSON.parse(await readFile(summaryFile, 'utf8'));
  } catch {
    return { kept: {}, dropped: false };
  }
  const files = (earlier as { output_files?: unknown } | null)?.output_files;
  if (!files || typeof files !== 'object' || Array.isArray(files)) return { kept: {}, dropped: false };
  const kept: Record<string, string> = {};
  let dropped = false;
  for (const [repo, outputPath] of Object.entries(files as Record<string, unknown>)) {
    if (typeof outputPath === 'string' && (await exists(outputPath))) kept[repo] = outputPath;
    else dropped = true;
  }
  return { kept, dropped };
}

function summaryReport(written: WrittenRepo[], config: Config, configFile: string | null, earlier: Record<string, string> = {}) {
  const outputFiles = { ...earlier, ...Object.fromEntries(written.map((w) => [w.index.repo_name, w.outputPath])) };
  return {
    indexing_completion_time: new Date().toISOString(),
    total_repositories_processed: written.length,
    // Every repository indexed into the folder, by this run or an earlier one whose index is still there.
    output_files: Object.fromEntries(Object.entries(outputFiles).sort(([a], [b]) => compareCodeUnits(a, b))),
    total_repositories_in_folder: Object.keys(outputFiles).length,
    target_structure: written[0]?.index.analysis_metadata.target_structure_analyzed ?? '',
    code_base_path: config.paths.code_base_path ?? '',
    configuration: {
      config_file_used: configFile,
      pre_filtering_enabled: config.file_analysis.enable_pre_filtering,
      min_confidence_score: config.relationships.min_confidence_score,
      high_confidence_threshold: config.relationships.high_confidence_threshold,
      max_file_size: config.file_analysis.max_file_size,
      max_content_length: config.file_analysis.max_content_length,
      request_delay: config.llm.request_delay,
      supported_extensions_count: config.file_analysis.supported_extensions.length,
      skip_directories_count: config.file_analysis.skip_directories.length,
    },
    tool: 'coderag',
  };
}

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;

function statisticsReport(written: WrittenRepo[], config: Config, configFile: string | null) {
  const details = written.map(({ index }) => {
    const meta = index.analysis_metadata;
    const lines = index.lines_of_code;
    const analyzed = index.analyzed_files;
    const confidence = index.relationships.reduce((n, r) => n + r.confidence_score, 0);
    return {
      repo_name: index.repo_name,
      total_files: index.total_files,
      analyzed_files: analyzed,
      total_relationships: index.relationships.length,
      high_confidence_relationships: meta.high_confidence_relationships,
      relationship_type_counts: countBy(index.relationships, (r) => r.relationship_type),
      file_type_counts: index.file_type_counts,
      total_lines_of_code: lines,
      average_lines_per_file: analyzed ? round(lines / analyzed, 2) : 0,
      average_confidence_score: index.relationships.length ? round(confidence / index.relationships.length, 3) : 0,
      filtering_efficiency: meta.filtering_efficiency,
      concurrent_analysis_used: meta.concurrent_analysis_used,
      cache_hits: meta.cache_hits,
      analysis_date: meta.analysis_date,
      files_by_status: meta.files_by_status,
      skipped_by_reason: meta.skipped_by_reason,
      llm_calls: meta.llm_calls,
      token_usage: meta.token_usage,
      duration_ms: meta.duration_ms,
    };
  });
  const repos = Math.max(details.length, 1);
  const sum = (pick: (d: (typeof details)[number]) => number) => details.reduce((n, d) => n + pick(d), 0);
  const efficiencies = details.map((d) => d.filtering_efficiency);
  const mergeCounts = (pick: (d: (typeof details)[number]) => Record<string, number>) => {
    const out: Record<string, number> = {};
    for (const d of details) for (const [k, v] of Object.entries(pick(d))) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  return {
    report_generation_time: new Date().toISOString(),
    analyzer_version: VERSION,
    configuration_used: {
      config_file: configFile,
      concurrent_analysis_enabled: config.performance.enable_concurrent_analysis,
      content_caching_enabled: config.performance.enable_content_caching,
      pre_filtering_enabled: config.file_analysis.enable_pre_filtering,
      min_confidence_score: config.relationships.min_confidence_score,
      high_confidence_threshold: config.relationships.high_confidence_threshold,
    },
    aggregate_statistics: {
      total_repositories_processed: details.length,
      total_files_analyzed: sum((d) => d.analyzed_files),
      total_relationships_found: sum((d) => d.total_relationships),
      total_lines_of_code: sum((d) => d.total_lines_of_code),
      average_files_per_repository: round(sum((d) => d.analyzed_files) / repos, 2),
      average_relationships_per_repository: round(sum((d) => d.total_relationships) / repos, 2),
      average_lines_per_repository: round(sum((d) => d.total_lines_of_code) / repos, 2),
    },
    relationship_type_distribution: mergeCounts((d) => d.relationship_type_counts),
    file_type_distribution: mergeCounts((d) => d.file_type_counts),
    repository_details: details,
    performance_metrics: {
      concurrent_processing_repos: details.filter((d) => d.concurrent_analysis_used).length,
      cache_efficiency: {
        total_cache_hits: sum((d) => d.cache_hits),
        repositories_with_caching: details.filter((d) => d.cache_hits > 0).length,
      },
      filtering_efficiency: {
        average_filtering_efficiency: efficiencies.length ? round(efficiencies.reduce((a, b) => a + b, 0) / efficiencies.length, 2) : 0,
        max_filtering_efficiency: efficiencies.length ? Math.max(...efficiencies) : 0,
        min_filtering_efficiency: efficiencies.length ? Math.min(...efficiencies) : 0,
      },
    },
  };
}
