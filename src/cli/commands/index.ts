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
import { runIndex } from '../../pipeline/runIndex.js';
import { prepareSearchPack } from '../../search/load.js';
import { AbortedError, UsageError } from '../../shared/errors.js';
import { createProgress } from '../progress.js';
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
}

export async function indexCommand(repoArgs: string[], flags: IndexFlags): Promise<void> {
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
  const { config, file } = await loadConfig({ configPath: flags.config, overrides });
  const repos = await resolveRepos(repoArgs, config);
  const choice = selectProvider(config);
  const targetFile = flags.targetStructure ?? config.relationships.target_structure_file;
  const targetStructure = targetFile ? await readTargetStructure(targetFile) : null;
  const llm = choice.provider ? createLlmSession({ provider: choice.provider, config, targetStructure, focus: flags.focus ?? null }) : null;
  const modelOnlyFlags = [flags.targetStructure && '--target-structure', flags.focus && '--focus', flags.prefilter && '--prefilter'].filter(Boolean);
  if (!llm && modelOnlyFlags.length) {
    throw new UsageError(`${modelOnlyFlags.join(', ')} ${modelOnlyFlags.length === 1 ? 'needs' : 'need'} a model`, { hint: 'set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL, or drop them for an offline index' });
  }
  const ignoredOffline = !llm && [config.relationships.target_structure_file && 'relationships.target_structure_file', config.file_analysis.enable_pre_filtering && 'file_analysis.enable_pre_filtering'].filter(Boolean);

  if (config.debug.verbose_output) cliState.verbose = true;
  const progress = createProgress({
    stream: process.stderr,
    quiet: flags.quiet,
    level: config.debug.verbose_output ? 'DEBUG' : config.logging.level,
    logFile: config.logging.log_to_file ? config.logging.log_file : null,
  });
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write('\ninterrupt: stopping after in-flight files (Ctrl+C again to quit now)\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  const started = Date.now();
  progress.sink({ type: 'info', message: choice.description });
  if (ignoredOffline && ignoredOffline.length) progress.sink({ type: 'warning', message: `${ignoredOffline.join(' and ')} ${ignoredOffline.length === 1 ? 'needs' : 'need'} a model; ignored in this offline run` });
  try {
    const result = await runIndex(repos, { config, configFile: file, outDir: config.paths.output_dir, onEvent: progress.sink, signal: controller.signal, llm, reuse: !flags.full });
    // Every index gets its search pack now, so no search pays for it.
    for (const { outputPath } of result.written) await prepareSearchPack(outputPath);
    progress.stop();
    for (const warning of progress.warnings) process.stderr.write(`warning: ${warning}\n`);
    if (!flags.quiet) for (const { index } of result.written) process.stderr.write(`${closingLine(index)}\n`);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(runSummary(result.written, result.reports, Date.now() - started), null, 2)}\n`);
    } else {
      for (const { outputPath } of result.written) process.stdout.write(`${outputPath}\n`);
    }
  } catch (error) {
    progress.stop();
    if (controller.signal.aborted) throw new AbortedError('interrupted: indexes of finished repositories were kept', { cause: error });
    throw error;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** Repositories from the command line, or DeepCode's layout: every folder directly under `paths.code_base_path`. */
async function resolveRepos(repoArgs: string[], config: Config): Promise<string[]> {
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

async function readTargetStructure(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new UsageError(`cannot read the target structure file ${file}`, { cause });
  }
}

function closingLine(index: RepoIndex): string {
  const meta = index.analysis_metadata;
  const reasons = Object.entries(meta.skipped_by_reason).sort((a, b) => b[1] - a[1]).map(([r, n]) => `${r.replace(/_/g, ' ')} ${n}`);
  const { ok, skipped, failed } = meta.files_by_status;
  const parts = [`${index.repo_name}: ${ok} files indexed`, `${skipped} skipped`];
  if (failed) parts.push(`${failed} failed`);
  const head = `${parts.join(', ')}${reasons.length ? ` (${reasons.join(', ')})` : ''}, ${(meta.duration_ms / 1000).toFixed(1)}s`;
  if (meta.provider === 'static') return head;
  const tokens = meta.token_usage;
  return `${head}\n  ${meta.provider} ${meta.model}: ${meta.llm_calls} calls, ${meta.retries} retries, ${meta.cache_hits} cache hits, ${tokens.prompt_tokens} prompt + ${tokens.completion_tokens} completion tokens, ${index.relationships.length} relationships${meta.secrets_redacted ? `, ${meta.secrets_redacted} secrets redacted` : ''}`;
}

function runSummary(written: Array<{ index: RepoIndex; outputPath: string }>, reports: string[], durationMs: number) {
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
