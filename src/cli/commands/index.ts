/**
 * `coderag index`: resolve the repositories and configuration, run the pipeline, and report.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import type { RepoIndex } from '../../index/types.js';
import { selectProvider } from '../../llm/select.js';
import { createLlmSession } from '../../pipeline/llmSession.js';
import { runIndex, type RunIndexResult } from '../../pipeline/runIndex.js';
import { parseShard } from '../../pipeline/shard.js';
import type { FailedFile, WrittenIndex } from '../../pipeline/writeIndex.js';
import { prepareFolderPack, prepareSearchPack, writtenLayout } from '../../search/load.js';
import { AbortedError, BudgetExceededError, UsageError } from '../../shared/errors.js';
import { RunBudget } from '../../llm/budget.js';
import { missingPriceHint, missingPriceMessage, priceOf } from '../../llm/pricing.js';
import type { LlmProvider } from '../../llm/provider.js';
import { promptTokenCounter } from '../../llm/tokens.js';
import { createProgress, type Progress, type ProgressFormat } from '../progress.js';
import { cliState } from '../state.js';

export interface IndexFlags {
  out?: string;
  config?: string;
  concurrency?: number;
  maxFileSize?: number;
  gitignore: boolean;
  provider?: string;
  model?: string;
  targetStructure?: string;
  focus?: string;
  prefilter?: boolean;
  cache: boolean;
  full: boolean;
  json: boolean;
  quiet: boolean;
  shard?: string;
  progress?: ProgressFormat;
  /** List what a model run would send and what it would cost; send nothing. */
  dryRun?: boolean;
  maxCost?: number;
  maxCalls?: number;
  /** Submit every cache miss through the provider's batch API. */
  batch?: boolean;
  /** With --batch or --collect: wait for the batch to end, then write the index. */
  wait?: boolean;
  /** A batch manifest to collect. */
  collect?: string;
}

/** Exit code of a run that wrote its indexes although some files failed (their reasons are in the index). */
export const EXIT_FILES_FAILED = 3;

/** Answers the exit code: 0, or EXIT_FILES_FAILED when some files failed. */
export async function indexCommand(repoArgs: string[], flags: IndexFlags): Promise<number> {
  checkModeFlags(repoArgs, flags);
  const shard = flags.shard === undefined ? null : parseShard(flags.shard);
  if (shard && flags.prefilter) throw new UsageError('--prefilter chooses among all files at once; it cannot run per shard');
  if (shard && (flags.batch || flags.collect || flags.dryRun)) throw new UsageError('--shard goes with live runs only, not with --dry-run, --batch or --collect');
  if (flags.collect) {
    const { collectCommand } = await import('./indexBatch.js');
    await collectCommand(flags.collect, flags);
    return 0;
  }
  const overrides: Record<string, Record<string, unknown>> = {};
  const set = (section: string, key: string, value: unknown) => {
    if (value !== undefined) (overrides[section] ??= {})[key] = value;
  };
  set('paths', 'output_dir', flags.out);
  set('performance', 'max_concurrent_files', flags.concurrency);
  set('file_analysis', 'max_file_size', flags.maxFileSize);
  if (!flags.gitignore) set('file_analysis', 'respect_gitignore', false);
  set('llm', 'model_provider', flags.provider);
  set('llm', 'model', flags.model);
  set('file_analysis', 'enable_pre_filtering', flags.prefilter);
  if (!flags.cache) set('performance', 'enable_content_caching', false);
  set('budget', 'max_cost', flags.maxCost);
  set('budget', 'max_calls', flags.maxCalls);
  const { config, file } = await loadConfig({ configPath: flags.config, overrides });
  const repos = await resolveRepos(repoArgs, config);
  const choice = selectProvider(config);
  const targetFile = flags.targetStructure ?? config.relationships.target_structure_file;
  const targetStructure = targetFile ? await readTargetStructure(targetFile) : null;
  const budget = choice.provider && !flags.dryRun && !flags.batch ? await budgetFor(config, choice.provider) : null;
  const llm = choice.provider ? createLlmSession({ provider: choice.provider, config, targetStructure, focus: flags.focus ?? null, budget }) : null;
  const modelOnlyFlags = [flags.targetStructure && '--target-structure', flags.focus && '--focus', flags.prefilter && '--prefilter'].filter(Boolean);
  if (!llm && modelOnlyFlags.length) {
    throw new UsageError(`${modelOnlyFlags.join(', ')} ${modelOnlyFlags.length === 1 ? 'needs' : 'need'} a model`, { hint: 'set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL, or drop them for an offline index' });
  }
  const ignoredOffline = !llm && [config.relationships.target_structure_file && 'relationships.target_structure_file', config.file_analysis.enable_pre_filtering && 'file_analysis.enable_pre_filtering'].filter(Boolean);
  if ((flags.dryRun || flags.batch) && !llm) {
    throw new UsageError(`${flags.dryRun ? '--dry-run' : '--batch'} needs a model`, { hint: 'set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL; an offline index costs nothing' });
  }

  const { progress, controller, close } = runControls(config, flags);
  const started = Date.now();
  progress.sink({ type: 'info', message: choice.description });
  if (ignoredOffline && ignoredOffline.length) progress.sink({ type: 'warning', message: `${ignoredOffline.join(' and ')} ${ignoredOffline.length === 1 ? 'needs' : 'need'} a model; ignored in this offline run` });
  try {
    if (llm && (flags.dryRun || flags.batch)) {
      const modes = await import('./indexBatch.js');
      const setup = { config, configFile: file, overrides, repos, llm, progress, signal: controller.signal, started };
      await (flags.dryRun ? modes.dryRunCommand(setup, flags) : modes.batchCommand(setup, flags));
      return 0;
    }
    const result = await runIndex(repos, { config, configFile: file, outDir: config.paths.output_dir, onEvent: progress.sink, signal: controller.signal, llm, shard, reuse: !flags.full });
    const exitCode = await reportRun(result, progress, flags, started, shard !== null);
    throwIfStopped(llm?.budget ?? null);
    return exitCode;
  } catch (error) {
    progress.stop();
    if (controller.signal.aborted) throw new AbortedError('interrupted: indexes of finished repositories were kept', { cause: error });
    throw error;
  } finally {
    close();
  }
}

/** Progress on stderr and Ctrl+C handling for one command: the first interrupt stops the run, the second quits. */
export function runControls(config: Config, flags: Pick<IndexFlags, 'quiet' | 'progress'>): { progress: Progress; controller: AbortController; close: () => void } {
  if (config.debug.verbose_output) cliState.verbose = true;
  const progress = createProgress({
    stream: process.stderr,
    quiet: flags.quiet,
    level: config.debug.verbose_output ? 'DEBUG' : config.logging.level,
    logFile: config.logging.log_to_file ? config.logging.log_file : null,
    format: flags.progress ?? 'auto',
  });
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('\ninterrupt: stopping after in-flight files (Ctrl+C again to quit now)\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  return { progress, controller, close: () => process.off('SIGINT', onSigint) };
}

/**
 * Prints what a run wrote: warnings, failed files and closing lines on stderr (or one NDJSON summary), index
 * paths (or the JSON summary) on stdout. Answers the exit code: 0, or EXIT_FILES_FAILED when some files failed.
 */
export async function reportRun(result: RunIndexResult, progress: Progress, flags: Pick<IndexFlags, 'quiet' | 'json'>, started: number, partial = false): Promise<number> {
  // Every index gets its search pack now, so no search pays for it; partial indexes are never searched. The pack
  // is built from the file, entry by entry: the run kept no profiles in memory.
  if (!partial) {
    for (const written of result.written) await prepareSearchPack(written.outputPath, writtenLayout(written));
    for (const dir of new Set(result.written.map((w) => path.dirname(w.outputPath)))) await prepareFolderPack(dir);
  }
  progress.stop();
  const failures = result.written.flatMap(({ index }) => failedFiles(index).map((f) => ({ repo: index.repo_name, path: f.file_path, reason: f.reason ?? f.status })));
  const exitCode = failures.length ? EXIT_FILES_FAILED : 0;
  if (progress.json) {
    progress.record({ type: 'summary', exit_code: exitCode, ...runSummary(result.written, result.reports, Date.now() - started), failed_files: failures });
  } else {
    for (const warning of progress.warnings) process.stderr.write(`warning: ${warning}\n`);
    for (const f of failures.slice(0, MAX_FAILURES_LISTED)) process.stderr.write(`warning: ${f.repo}: ${f.path} failed: ${f.reason}\n`);
    if (failures.length > MAX_FAILURES_LISTED) process.stderr.write(`warning: and ${failures.length - MAX_FAILURES_LISTED} more failed files (status "failed" in the index, with reasons)\n`);
    if (!flags.quiet) for (const { index } of result.written) process.stderr.write(`${closingLine(index)}\n`);
  }
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ ...runSummary(result.written, result.reports, Date.now() - started), exit_code: exitCode, failed_files: failures }, null, 2)}\n`);
  } else {
    for (const { outputPath } of result.written) process.stdout.write(`${outputPath}\n`);
  }
  return exitCode;
}

/** Exit code 4 once the indexes are written, when a spending limit stopped the run. */
export function throwIfStopped(budget: RunBudget | null): void {
  if (!budget?.stopped) return;
  throw new BudgetExceededError(`stopped by ${budget.stopped}: files not yet profiled keep their static profile (reason budget_stop)`, {
    hint: 'answers so far are cached; run again with a higher limit to profile the rest',
  });
}

/** The run's spending limits from budget.max_cost and budget.max_calls (flags --max-cost, --max-calls). */
export async function budgetFor(config: Config, provider: LlmProvider, reason?: string): Promise<RunBudget | null> {
  const { max_cost: maxCost, max_calls: maxCalls, expected_output_tokens: expectedOutputTokens } = config.budget;
  if (maxCost === null && maxCalls === null && reason === undefined) return null;
  const price = priceOf(config, provider.model);
  if (maxCost !== null && !price) {
    throw new UsageError(`--max-cost needs a price: ${missingPriceMessage(provider.model)}`, { hint: missingPriceHint(provider.model) });
  }
  const counter = maxCost !== null ? await promptTokenCounter(provider.name, provider.model) : null;
  return new RunBudget({ maxCalls: reason === undefined ? maxCalls : 0, maxCost, price, counter, expectedOutputTokens, ...(reason ? { reason } : {}) });
}

function checkModeFlags(repoArgs: string[], flags: IndexFlags): void {
  if (flags.dryRun && (flags.batch || flags.collect)) throw new UsageError('--dry-run lists what a run would send; it does not go with --batch or --collect', { hint: 'the dry run prints the batch price too' });
  if (flags.wait && !flags.batch && !flags.collect) throw new UsageError('--wait goes with --batch or --collect');
  if (flags.collect && repoArgs.length) throw new UsageError('--collect takes the repositories from its manifest; name none');
  if (flags.batch && (flags.maxCost !== undefined || flags.maxCalls !== undefined)) {
    throw new UsageError('--max-cost and --max-calls limit live runs; a batch is priced before it is sent', { hint: 'see its price with --dry-run' });
  }
  if (flags.batch && !flags.cache && !flags.wait) throw new UsageError('--batch without --wait needs the profile cache: collected answers are merged through it');
}

/** Repositories from the command line, or DeepCode's layout: every folder directly under `paths.code_base_path`. */
export async function resolveRepos(repoArgs: string[], config: Config): Promise<string[]> {
  let repos = repoArgs;
  if (repos.length === 0) {
    const base = config.paths.code_base_path;
    if (!base) throw new UsageError('no repository given', { hint: 'coderag index <repo...>, or set paths.code_base_path in the config' });
    const entries = await readdir(base, { withFileTypes: true }).catch((cause: unknown) => {
      throw new UsageError(`paths.code_base_path: cannot read ${base}`, { cause });
    });
    repos = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => path.join(base, e.name)).sort();
    if (repos.length === 0) throw new UsageError(`paths.code_base_path: no repository folders in ${base}`);
  }
  for (const repo of repos) {
    const info = await stat(repo).catch(() => null);
    if (!info) throw new UsageError(`repository not found: ${repo}`);
    if (!info.isDirectory()) throw new UsageError(`not a folder: ${repo}`);
  }
  return repos;
}

export async function readTargetStructure(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new UsageError(`cannot read the target structure file ${file}`, { cause });
  }
}

const MAX_FAILURES_LISTED = 20;

/** Files whose profile could not be made as asked: a model answer that never came, or a file that could not be read. */
export function failedFiles(index: Pick<WrittenIndex, 'failed_files'>): FailedFile[] {
  return index.failed_files;
}

export function closingLine(index: Omit<RepoIndex, 'file_summaries'>): string {
  const meta = index.analysis_metadata;
  const reasons = Object.entries(meta.skipped_by_reason).sort((a, b) => b[1] - a[1]).map(([r, n]) => `${r.replace(/_/g, ' ')} ${n}`);
  const { ok, skipped, failed } = meta.files_by_status;
  const name = meta.shard ? `${index.repo_name} (shard ${meta.shard.index}/${meta.shard.count})` : index.repo_name;
  const parts = [`${name}: ${ok} files indexed`, `${skipped} skipped`];
  if (failed) parts.push(`${failed} failed`);
  const excluded = Object.entries(meta.excluded_by_rule ?? {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const excludedTotal = excluded.reduce((n, [, count]) => n + count, 0);
  const excludedPart = excludedTotal ? `, ${excludedTotal} excluded by .coderagignore (${excluded.map(([rule, n]) => `${rule} ${n}`).join(', ')})` : '';
  const head = `${parts.join(', ')}${reasons.length ? ` (${reasons.join(', ')})` : ''}${excludedPart}, ${(meta.duration_ms / 1000).toFixed(1)}s`;
  if (meta.provider === 'static') return head;
  const tokens = meta.token_usage;
  return `${head}\n  ${meta.provider} ${meta.model}: ${meta.llm_calls} calls, ${meta.retries} retries, ${meta.cache_hits} cache hits, ${tokens.prompt_tokens} prompt + ${tokens.completion_tokens} completion tokens, ${index.relationships.length} relationships${meta.secrets_redacted ? `, ${meta.secrets_redacted} secrets redacted` : ''}`;
}

function runSummary(written: Array<{ index: WrittenIndex; outputPath: string }>, reports: string[], durationMs: number) {
  return {
    status: 'success',
    duration_ms: durationMs,
    reports,
    repositories: written.map(({ index, outputPath }) => ({
      repo_name: index.repo_name,
      output_path: outputPath,
      total_files: index.total_files,
      files_by_status: index.analysis_metadata.files_by_status,
      skipped_by_reason: index.analysis_metadata.skipped_by_reason,
      excluded_by_rule: index.analysis_metadata.excluded_by_rule ?? {},
      git_commit: index.analysis_metadata.git_commit,
      git_dirty: index.analysis_metadata.git_dirty ?? null,
      ...(index.analysis_metadata.shard ? { shard: `${index.analysis_metadata.shard.index}/${index.analysis_metadata.shard.count}` } : {}),
      provider: index.analysis_metadata.provider,
      model: index.analysis_metadata.model,
      llm_calls: index.analysis_metadata.llm_calls,
      retries: index.analysis_metadata.retries,
      cache_hits: index.analysis_metadata.cache_hits,
      token_usage: index.analysis_metadata.token_usage,
      total_relationships: index.relationships.length,
      duration_ms: index.analysis_metadata.duration_ms,
    })),
  };
}
