/**
 * `coderag index`: resolve the repositories and configuration, run the pipeline, and report.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import { selectProvider } from '../../llm/select.js';
import { createLlmSession } from '../../pipeline/llmSession.js';
import { runIndex } from '../../pipeline/runIndex.js';
import { resolveRepositories } from '../../pipeline/repository.js';
import { parseShard } from '../../pipeline/shard.js';
import { AbortedError, UsageError } from '../../shared/errors.js';
import type { ProgressFormat } from '../progress.js';
import { reportRun } from '../report.js';
import { budgetFor, runControls, throwIfStopped } from '../runControls.js';

export interface IndexFlags {
  out?: string;
  config?: string;
  concurrency?: number;
  maxFileSize?: number;
  gitignore: boolean;
  history: boolean;
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
  /** The repository's name, which names its index (default: its remote's, else its folder's). */
  name?: string;
}

/** Answers the exit code: 0, or EXIT_FILES_FAILED when some files failed. */
export async function indexCommand(repoArgs: string[], flags: IndexFlags): Promise<number> {
  checkModeFlags(repoArgs, flags);
  const shard = flags.shard === undefined ? null : parseShard(flags.shard);
  if (shard && flags.prefilter) throw new UsageError('--prefilter chooses among all files at once; it cannot run per shard');
  if (shard && (flags.batch || flags.collect || flags.dryRun)) throw new UsageError('--shard goes with live runs only, not with --dry-run, --batch or --collect');
  if (flags.collect) {
    const { collectCommand } = await import('./indexModes.js');
    await collectCommand(flags.collect, flags);
    return 0;
  }
  const overrides: Record<string, Record<string, unknown>> = {};
  const set = (section: string, key: string, value: unknown) => {
    if (value !== undefined) (overrides[section] ??= {})[key] = value;
  };
  set('paths', 'output_dir', flags.out);
  set('performance', 'max_concurrent_files', flags.concurrency);
  // A number given on the command line is the number wanted: it fixes the concurrency instead of starting it.
  set('llm', 'adaptive_concurrency_max', flags.concurrency);
  set('file_analysis', 'max_file_size', flags.maxFileSize);
  if (!flags.gitignore) set('file_analysis', 'respect_gitignore', false);
  if (!flags.history) set('history', 'enabled', false);
  set('llm', 'model_provider', flags.provider);
  set('llm', 'model', flags.model);
  set('file_analysis', 'enable_pre_filtering', flags.prefilter);
  if (!flags.cache) set('performance', 'enable_content_caching', false);
  set('budget', 'max_cost', flags.maxCost);
  set('budget', 'max_calls', flags.maxCalls);
  const { config, file } = await loadConfig({ configPath: flags.config, overrides });
  const repos = await resolveRepos(repoArgs, config, flags.name);
  const choice = selectProvider(config);
  const targetFile = flags.targetStructure ?? config.relationships.target_structure_file;
  const targetStructure = targetFile ? await readTargetStructure(targetFile) : null;
  const budget = choice.provider && !flags.dryRun && !flags.batch ? await budgetFor(config, choice.provider) : null;
  const llm = choice.provider ? createLlmSession({ provider: choice.provider, config, targetStructure, focus: flags.focus ?? null, budget }) : null;
  // A target structure needs no model: without one, relationships are inferred statically (pipeline/relate.ts).
  const modelOnlyFlags = [flags.focus && '--focus', flags.prefilter && '--prefilter'].filter(Boolean);
  if (!llm && modelOnlyFlags.length) {
    throw new UsageError(`${modelOnlyFlags.join(', ')} ${modelOnlyFlags.length === 1 ? 'needs' : 'need'} a model`, { hint: 'set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL, or drop them for an offline index' });
  }
  if ((flags.dryRun || flags.batch) && !llm) {
    throw new UsageError(`${flags.dryRun ? '--dry-run' : '--batch'} needs a model`, { hint: 'set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL; an offline index costs nothing' });
  }

  const { progress, controller, close } = runControls(config, flags);
  const started = Date.now();
  progress.sink({ type: 'info', message: choice.description });
  if (!llm && config.file_analysis.enable_pre_filtering) progress.sink({ type: 'warning', message: 'file_analysis.enable_pre_filtering needs a model; ignored in this offline run' });
  try {
    if (llm && (flags.dryRun || flags.batch)) {
      const modes = await import('./indexModes.js');
      const setup = { config, configFile: file, overrides, repos, llm, progress, signal: controller.signal, started };
      await (flags.dryRun ? modes.dryRunCommand(setup, flags) : modes.batchCommand(setup, flags));
      return 0;
    }
    const result = await runIndex(repos, { config, configFile: file, outDir: config.paths.output_dir, onEvent: progress.sink, signal: controller.signal, llm, targetStructure: llm ? null : targetStructure, shard, reuse: !flags.full, ...(flags.name !== undefined ? { name: flags.name } : {}) });
    const exitCode = reportRun(result, progress, flags, started, Boolean(llm?.budget?.stopped));
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

function checkModeFlags(repoArgs: string[], flags: IndexFlags): void {
  if (flags.dryRun && (flags.batch || flags.collect)) throw new UsageError('--dry-run lists what a run would send; it does not go with --batch or --collect', { hint: 'the dry run prints the batch price too' });
  if (flags.wait && !flags.batch && !flags.collect) throw new UsageError('--wait goes with --batch or --collect');
  if (flags.collect && repoArgs.length) throw new UsageError('--collect takes the repositories from its manifest; name none');
  if (flags.batch && (flags.maxCost !== undefined || flags.maxCalls !== undefined)) {
    throw new UsageError('--max-cost and --max-calls limit live runs; a batch is priced before it is sent', { hint: 'see its price with --dry-run' });
  }
  if (flags.name !== undefined && (flags.batch || flags.collect)) throw new UsageError('--name goes with live runs, not with --batch or --collect', { hint: 'a batch writes its indexes under the names its repositories have' });
  if (flags.batch && !flags.cache && !flags.wait) throw new UsageError('--batch without --wait needs the profile cache: collected answers are merged through it');
}

/** Repositories from the command line, or DeepCode's layout: every folder directly under `paths.code_base_path`. */
export async function resolveRepos(repoArgs: string[], config: Config, name?: string): Promise<string[]> {
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
  // Named here too, so a dry run or a batch (priced and paid before the index is written) refuses two clones of
  // one repository, or a bad --name, first.
  const targets = await resolveRepositories(repos, { config, outDir: config.paths.output_dir, ...(name !== undefined ? { name } : {}) });
  return targets.map((t) => t.repoPath);
}

export async function readTargetStructure(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new UsageError(`cannot read the target structure file ${file}`, { cause });
  }
}
