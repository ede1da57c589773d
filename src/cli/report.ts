/**
 * What an indexing command prints when its run is done: warnings, failed files and closing lines on stderr (or
 * one NDJSON summary), index paths (or the JSON summary) on stdout, and the exit code.
 */
import type { RepoIndex } from '../index/types.js';
import type { RunIndexResult } from '../pipeline/runIndex.js';
import type { FailedFile, ReuseFigures, WrittenIndex } from '../pipeline/writeIndex.js';
import type { Progress } from './progress.js';
import { cliState } from './state.js';

/** Exit code of a run that wrote its indexes although some files failed (their reasons are in the index). */
export const EXIT_FILES_FAILED = 3;
/** Exit code of a run that a spending limit stopped (its indexes are written). */
export const EXIT_BUDGET_STOPPED = 4;

/**
 * The one word for how a finished run ended, beside its exit code, wherever a summary gives it (NDJSON and
 * `--json` summaries of `index` and `merge`): `success` 0; `files_failed` 3, some files failed (a model answer
 * that never came, a file that could not be read: status `failed` in the index, listed on stderr);
 * `budget_stopped` 4.
 */
export type RunStatus = 'success' | 'files_failed' | 'budget_stopped';

export function runStatus(exitCode: number): RunStatus {
  return exitCode === EXIT_BUDGET_STOPPED ? 'budget_stopped' : exitCode === EXIT_FILES_FAILED ? 'files_failed' : 'success';
}

/**
 * Prints what a run wrote: warnings, failed files and closing lines on stderr (or one NDJSON summary), index
 * paths (or the JSON summary) on stdout. Answers the exit code: 0, or EXIT_FILES_FAILED when some files failed.
 */
export function reportRun(result: RunIndexResult, progress: Progress, flags: { quiet: boolean; json: boolean }, started: number, budgetStopped = false): number {
  progress.stop();
  const failures = runFailures(result.written);
  // A run the budget stopped exits 4 (runControls.throwIfStopped), failed files or not.
  const exitCode = budgetStopped ? EXIT_BUDGET_STOPPED : failures.length ? EXIT_FILES_FAILED : 0;
  if (progress.json) {
    progress.record({ type: 'summary', exit_code: exitCode, ...runSummary(result.written, result.reports, Date.now() - started, exitCode), failed_files: failures });
    cliState.closed = true;
  } else {
    for (const warning of progress.warnings) process.stderr.write(`warning: ${warning}\n`);
    writeFailures(failures);
    if (!flags.quiet) for (const { index, reuse, unchanged } of result.written) process.stderr.write(`${closingLine(index, reuse, unchanged)}\n`);
  }
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ ...runSummary(result.written, result.reports, Date.now() - started, exitCode), exit_code: exitCode, failed_files: failures }, null, 2)}\n`);
  } else {
    for (const { outputPath } of result.written) process.stdout.write(`${outputPath}\n`);
  }
  return exitCode;
}

const MAX_FAILURES_LISTED = 20;

/** A failed file or unreadable folder of a run, named as the index names things (`repo_name`, `file_path`). */
export interface RunFailure {
  repo_name: string;
  file_path: string;
  reason: string;
}

/** The failed files on stderr, one line each (the first 20), as `index` and `merge` name them. */
export function writeFailures(failures: readonly RunFailure[]): void {
  for (const f of failures.slice(0, MAX_FAILURES_LISTED)) process.stderr.write(`warning: ${f.repo_name}: ${f.file_path} failed: ${f.reason}\n`);
  if (failures.length > MAX_FAILURES_LISTED) process.stderr.write(`warning: and ${failures.length - MAX_FAILURES_LISTED} more failures (files with status "failed" in the index, with reasons; folders in unreadable_folders)\n`);
}

/** Every failed file of the indexes written, with its reason, and every folder whose files could not be listed. */
export function runFailures(written: ReadonlyArray<{ index: Pick<WrittenIndex, 'repo_name' | 'failed_files' | 'analysis_metadata'> }>): RunFailure[] {
  return written.flatMap(({ index }) => [
    ...(index.analysis_metadata.unreadable_folders ?? []).map((folder) => ({ repo_name: index.repo_name, file_path: folder, reason: UNREADABLE_FOLDER })),
    ...failedFiles(index).map((f) => ({ repo_name: index.repo_name, file_path: f.file_path, reason: f.reason ?? f.status })),
  ]);
}

const UNREADABLE_FOLDER = 'unreadable folder (permission denied), its files are not indexed';

/** Files whose profile could not be made as asked: a model answer that never came, or a file that could not be read. */
export function failedFiles(index: Pick<WrittenIndex, 'failed_files'>): FailedFile[] {
  return index.failed_files;
}

/**
 * A repository's closing line: its files by status, the run's duration, and, for a run that reused a previous
 * index, how many entries it took by each identity and whether the index was left as it stood, CodeRAG's own output
 * it left out of the walk, and the folders it could not list.
 */
export function closingLine(index: Omit<RepoIndex, 'file_summaries'>, reuse?: ReuseFigures, unchanged?: boolean): string {
  const meta = index.analysis_metadata;
  const reasons = Object.entries(meta.skipped_by_reason).sort((a, b) => b[1] - a[1]).map(([r, n]) => `${r.replace(/_/g, ' ')} ${n}`);
  const { ok, skipped, failed } = meta.files_by_status;
  const name = meta.shard ? `${index.repo_name} (shard ${meta.shard.index}/${meta.shard.count})` : index.repo_name;
  const parts = [`${name}: ${ok} file${ok === 1 ? '' : 's'} indexed`, `${skipped} skipped`];
  if (failed) parts.push(`${failed} failed`);
  const excluded = Object.entries(meta.excluded_by_rule ?? {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const excludedTotal = excluded.reduce((n, [, count]) => n + count, 0);
  const excludedPart = excludedTotal ? `, ${excludedTotal} excluded by .coderagignore (${excluded.map(([rule, n]) => `${rule} ${n}`).join(', ')})` : '';
  const own = meta.own_output_excluded ?? [];
  const ownPart = own.length ? `, left out CodeRAG's own output: ${own.join(', ')}` : '';
  const unreadable = meta.unreadable_folders ?? [];
  const unreadablePart = unreadable.length ? `, ${unreadable.length} unreadable folder${unreadable.length === 1 ? '' : 's'} not indexed` : '';
  const shallowPart = meta.history_shallow ? ', history cut short by a shallow clone' : '';
  const head = `${parts.join(', ')}${reasons.length ? ` (${reasons.join(', ')})` : ''}${excludedPart}${skippedFoldersPart(meta.skipped_folders)}${ownPart}${unreadablePart}${shallowPart}, ${(meta.duration_ms / 1000).toFixed(1)}s${reusePart(reuse, unchanged)}`;
  if (meta.provider === 'static') return meta.relationships_source === 'static' ? `${head}\n  ${staticRelationshipsPart(index)}` : head;
  const tokens = meta.token_usage;
  const perFileTokens = answerTokensPerFile(meta);
  const perFile = perFileTokens !== null ? ` (${perFileTokens} answer tokens a file)` : '';
  const outside = meta.relationships_outside_target ? ` (${meta.relationships_outside_target} outside the target structure dropped)` : '';
  const unusable = meta.llm_unusable_files ? `, ${meta.llm_unusable_files} kept their static profile (answers unusable)` : '';
  return `${head}\n  ${meta.provider} ${meta.model}: ${meta.llm_calls} calls, ${meta.retries} retries, ${meta.cache_hits} cache hits, ${tokens.prompt_tokens} prompt + ${tokens.completion_tokens} completion tokens${perFile}, ${index.relationships.length} relationships${outside}${unusable}${meta.secrets_redacted ? `, ${meta.secrets_redacted} secrets redacted` : ''}`;
}

/** What a run without a model says of the relationships it inferred: how many, to how many targets, how many high. */
function staticRelationshipsPart(index: Omit<RepoIndex, 'file_summaries'>): string {
  const meta = index.analysis_metadata;
  const n = index.relationships.length;
  const targets = new Set(index.relationships.map((r) => r.target_file_path)).size;
  return `relationships inferred statically (no model): ${n} to ${targets} target file${targets === 1 ? '' : 's'}, ${meta.high_confidence_relationships} above ${meta.high_confidence_threshold} confidence`;
}

/** Answer tokens over the files a model answered in the run (cache hits apart); null when it answered none. */
function answerTokensPerFile(meta: RepoIndex['analysis_metadata']): number | null {
  const answered = meta.llm_answered_files ?? 0;
  return answered > 0 ? Math.round(meta.token_usage.completion_tokens / answered) : null;
}

/** The folders skipped by name, most files first: `, 14 files in skipped folders (build/ 9, test/build/ 5)`. */
function skippedFoldersPart(folders: Record<string, number> | undefined): string {
  const listed = Object.entries(folders ?? {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const total = listed.reduce((n, [, count]) => n + count, 0);
  if (!total) return '';
  const shown = listed.slice(0, MAX_SKIPPED_FOLDERS_SHOWN).map(([folder, n]) => `${folder} ${n}`);
  const more = listed.length > shown.length ? `, ${listed.length - shown.length} more folders` : '';
  return `, ${total} file${total === 1 ? '' : 's'} in skipped folders (${shown.join(', ')}${more})`;
}

const MAX_SKIPPED_FOLDERS_SHOWN = 5;

function reusePart(reuse: ReuseFigures | undefined, unchanged: boolean | undefined): string {
  if (!reuse || (reuse.reused === 0 && reuse.removed === 0)) return '';
  const removed = reuse.removed ? `, ${reuse.removed} removed` : '';
  const reresolved = reuse.reresolved ? `, ${reuse.reresolved} of them with their imports resolved again` : '';
  const from = reuse.from ? ` from the index made in ${reuse.from}` : '';
  const taken = `; ${reuse.reused} reused${from} (${reuse.byMtime} by mtime and size, ${reuse.byBlob} by git blob, ${reuse.byHash} by content hash)${reresolved}, ${reuse.extracted} extracted${removed}`;
  return unchanged ? `${taken}; index unchanged, not written` : taken;
}

/**
 * What the closing line says of reuse, as numbers: entries taken from the previous index (and by which identity),
 * files extracted, paths removed, and whether the index file was written. A run with no previous index reused none.
 */
export function reuseFigures(reuse: ReuseFigures | undefined, unchanged: boolean | undefined) {
  return {
    reused: reuse?.reused ?? 0,
    reused_by: { mtime_and_size: reuse?.byMtime ?? 0, git_blob: reuse?.byBlob ?? 0, content_hash: reuse?.byHash ?? 0 },
    extracted: reuse?.extracted ?? 0,
    removed: reuse?.removed ?? 0,
    written: !unchanged,
  };
}

function runSummary(written: Array<{ index: WrittenIndex; outputPath: string; reuse?: ReuseFigures; unchanged?: boolean }>, reports: string[], durationMs: number, exitCode: number) {
  return {
    status: runStatus(exitCode),
    duration_ms: durationMs,
    reports,
    repositories: written.map(({ index, outputPath, reuse, unchanged }) => ({
      repo_name: index.repo_name,
      output_path: outputPath,
      ...reuseFigures(reuse, unchanged),
      total_files: index.total_files,
      files_by_status: index.analysis_metadata.files_by_status,
      skipped_by_reason: index.analysis_metadata.skipped_by_reason,
      excluded_by_rule: index.analysis_metadata.excluded_by_rule ?? {},
      skipped_folders: index.analysis_metadata.skipped_folders ?? {},
      git_commit: index.analysis_metadata.git_commit,
      git_dirty: index.analysis_metadata.git_dirty ?? null,
      ...(index.analysis_metadata.shard ? { shard: `${index.analysis_metadata.shard.index}/${index.analysis_metadata.shard.count}` } : {}),
      provider: index.analysis_metadata.provider,
      model: index.analysis_metadata.model,
      llm_calls: index.analysis_metadata.llm_calls,
      retries: index.analysis_metadata.retries,
      cache_hits: index.analysis_metadata.cache_hits,
      token_usage: index.analysis_metadata.token_usage,
      llm_answered_files: index.analysis_metadata.llm_answered_files ?? 0,
      answer_tokens_per_file: answerTokensPerFile(index.analysis_metadata),
      llm_unusable_files: index.analysis_metadata.llm_unusable_files ?? 0,
      total_relationships: index.relationships.length,
      high_confidence_relationships: index.analysis_metadata.high_confidence_relationships,
      relationships_source: relationshipsSource(index.analysis_metadata),
      relationships_outside_target: index.analysis_metadata.relationships_outside_target ?? 0,
      duration_ms: index.analysis_metadata.duration_ms,
    })),
  };
}

/** Who inferred a run's relationships: `static` (no model), `model`, or null when no target structure was given. */
function relationshipsSource(meta: RepoIndex['analysis_metadata']): 'static' | 'model' | null {
  if (meta.relationships_source) return meta.relationships_source;
  return meta.provider !== 'static' && meta.target_structure_analyzed ? 'model' : null;
}
