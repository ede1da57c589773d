/**
 * The model-run modes of `coderag index` that do not simply run: `--dry-run` (what would be sent, and what
 * it would cost), `--batch` (submit through the provider's batch API, optionally `--wait`), and
 * `--collect <manifest>` (merge a finished batch and write the index).
 */
import type { Config } from '../../config/schema.js';
import { loadConfig } from '../../config/load.js';
import { formatDollars, missingPriceHint, missingPriceMessage } from '../../llm/pricing.js';
import { selectProvider } from '../../llm/select.js';
import { promptTokenCounter } from '../../llm/tokens.js';
import { batchStatus, collectBatch, readManifest, submitBatch, waitForBatch, type BatchManifest } from '../../pipeline/modes/batch.js';
import { createLlmSession, type LlmSession } from '../../pipeline/llmSession.js';
import { costOfPlan, planRun, type PlanCost, type RepoPlan } from '../../pipeline/modes/dryRun.js';
import { runIndex } from '../../pipeline/runIndex.js';
import { AbortedError, BatchPendingError, UsageError } from '../../shared/errors.js';
import type { Progress, ProgressFormat } from '../progress.js';
import { reportRun } from '../report.js';
import { budgetFor, runControls, throwIfStopped } from '../runControls.js';

/** The flags of `coderag index` that its model-run modes read. */
export interface ModeFlags {
  json: boolean;
  quiet: boolean;
  progress?: ProgressFormat | undefined;
  /** With --batch or --collect: wait for the batch to end, then write the index. */
  wait?: boolean | undefined;
}

export interface ModeSetup {
  config: Config;
  configFile: string | null;
  overrides: Record<string, unknown>;
  repos: string[];
  llm: LlmSession;
  progress: Progress;
  signal: AbortSignal;
  started: number;
}

const NOT_RETRIED_LIVE = 'not asked again live (batch.retry_failed_live: false)';

export async function dryRunCommand(setup: ModeSetup, flags: ModeFlags): Promise<void> {
  const { config, llm, progress } = setup;
  const { name, model } = llm.provider;
  const counter = await promptTokenCounter(name, model);
  const plans = await planRun(setup.repos, { config, llm, counter, onEvent: progress.sink });
  const cost = costOfPlan(plans, config, model, counter);
  progress.stop();
  for (const warning of progress.warnings) process.stderr.write(`warning: ${warning}\n`);
  if (!cost.price) process.stderr.write(`warning: ${missingPriceMessage(model)}: tokens are counted, the cost is not\nhint: ${missingPriceHint(model)}\n`);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(dryRunJson(plans, cost, name, model), null, 2)}\n`);
    return;
  }
  process.stdout.write(dryRunText(plans, cost, name, model));
}

export async function batchCommand(setup: ModeSetup, flags: ModeFlags): Promise<void> {
  const { config, llm, progress, signal } = setup;
  const counter = await promptTokenCounter(llm.provider.name, llm.provider.model);
  const plans = await planRun(setup.repos, { config, llm, counter, onEvent: progress.sink });
  const requests = plans.reduce((n, plan) => n + plan.requests.length, 0);
  if (requests === 0) {
    progress.sink({ type: 'info', message: 'nothing to submit: every profile is cached; writing the indexes' });
    const result = await runIndex(setup.repos, { config, configFile: setup.configFile, outDir: config.paths.output_dir, onEvent: progress.sink, signal, llm });
    reportRun(result, progress, flags, setup.started);
    return;
  }
  const cost = costOfPlan(plans, config, llm.provider.model, counter);
  const { manifest, file } = await submitBatch(plans, { llm, outDir: config.paths.output_dir, configFile: setup.configFile, overrides: setup.overrides, signal });
  const price = cost.batch === null ? '' : `, about ${formatDollars(cost.batch)}`;
  progress.sink({ type: 'info', message: `submitted ${requests} requests as ${llm.provider.name} batch ${manifest.batch_id}${price}; manifest ${file}` });
  if (!flags.wait) {
    progress.stop();
    for (const warning of progress.warnings) process.stderr.write(`warning: ${warning}\n`);
    process.stderr.write(`collect the answers and write the indexes with:\n  coderag index --collect ${file}\n`);
    process.stdout.write(flags.json ? `${JSON.stringify({ status: 'submitted', batch_id: manifest.batch_id, manifest: file, requests }, null, 2)}\n` : `${file}\n`);
    return;
  }
  // The live part of the run: what the batch did not answer, under the configured limits.
  llm.budget = await budgetFor(config, llm.provider, config.batch.retry_failed_live ? undefined : NOT_RETRIED_LIVE);
  await finishBatch(setup, manifest, file, flags);
}

export async function collectCommand(manifestFile: string, flags: ModeFlags): Promise<void> {
  const manifest = await readManifest(manifestFile);
  const { config, file } = await loadConfig({ configPath: manifest.config_file ?? undefined, overrides: manifest.overrides });
  const choice = selectProvider(config);
  const provider = choice.provider;
  if (!provider || provider.name !== manifest.provider || provider.model !== manifest.model) {
    throw new UsageError(`batch ${manifest.batch_id} belongs to ${manifest.provider} ${manifest.model}, but this environment selects ${provider ? `${provider.name} ${provider.model}` : 'no model'}`, {
      hint: `set the ${manifest.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY (or OPENAI_BASE_URL)'} the batch was submitted with`,
    });
  }
  const budget = config.batch.retry_failed_live ? await budgetFor(config, provider) : await budgetFor(config, provider, NOT_RETRIED_LIVE);
  const llm = createLlmSession({ provider, config, targetStructure: manifest.target_structure, focus: manifest.focus, budget });
  const { progress, controller, close } = runControls(config, flags);
  if (llm.prompts.version !== manifest.prompt_version) {
    progress.sink({ type: 'warning', message: `the prompts changed since the batch was submitted (${manifest.prompt_version} -> ${llm.prompts.version}): its answers no longer match, files are asked again live` });
  }
  try {
    await finishBatch({ config, configFile: file, overrides: manifest.overrides, repos: manifest.repos, llm, progress, signal: controller.signal, started: Date.now() }, manifest, manifestFile, flags);
  } catch (error) {
    progress.stop();
    if (controller.signal.aborted) throw new AbortedError('interrupted: the batch stays with the provider; collect it again later', { cause: error });
    throw error;
  } finally {
    close();
  }
}

/** Waits (--wait) or checks once, stores the batch's answers in the cache, then writes the indexes. */
async function finishBatch(setup: ModeSetup, manifest: BatchManifest, file: string, flags: ModeFlags): Promise<void> {
  const { config, llm, progress, signal } = setup;
  const status = flags.wait
    ? await waitForBatch(llm, manifest, { pollIntervalMs: config.batch.poll_interval * 1000, maxWaitMs: config.batch.max_wait * 1000, signal, onEvent: progress.sink })
    : await batchStatus(llm, manifest, signal);
  if (status.state !== 'ended') {
    progress.stop();
    throw new BatchPendingError(`batch ${manifest.batch_id} is not finished: ${status.providerStatus}, ${status.done} of ${status.total || manifest.requests.length} requests done`, {
      hint: `collect it later with: coderag index --collect ${file}`,
    });
  }
  const collected = await collectBatch(llm, manifest, signal);
  const live = config.batch.retry_failed_live ? 'asked again live' : 'left with their static profile';
  progress.sink({
    type: 'info',
    message: `batch ${manifest.batch_id} (${status.providerStatus}): ${collected.stored} answers stored in the profile cache, ${collected.misses.length} not answered${collected.misses.length ? ` (${live})` : ''}; ${collected.usage.prompt_tokens} prompt + ${collected.usage.completion_tokens} completion tokens`,
  });
  for (const miss of collected.misses.slice(0, 20)) progress.sink({ type: 'warning', message: `${miss.repo}: ${miss.path}: batch request ${miss.type}: ${miss.error}; ${live}` });
  if (collected.misses.length > 20) progress.sink({ type: 'warning', message: `… and ${collected.misses.length - 20} more requests the batch did not answer; ${live}` });
  const result = await runIndex(setup.repos, { config, configFile: setup.configFile, outDir: config.paths.output_dir, onEvent: progress.sink, signal, llm });
  const stopped = Boolean(llm.budget?.stopped) && llm.budget?.stopped !== NOT_RETRIED_LIVE;
  reportRun(result, progress, flags, setup.started, stopped);
  if (stopped) throwIfStopped(llm.budget);
}

function dryRunText(plans: readonly RepoPlan[], cost: PlanCost, provider: string, model: string): string {
  const lines: string[] = [];
  const number = (n: number) => n.toLocaleString('en-US');
  for (const plan of plans) {
    const same = plan.duplicates ? `, ${plan.duplicates} same as another file` : '';
    lines.push(`${plan.repo}: ${plan.profiled} files to profile, ${plan.cached} cached${same}, ${plan.requests.length} requests to send`);
    for (const request of plan.requests) lines.push(`  ${number(request.promptTokens).padStart(7)} tokens  ${request.files.map((f) => f.part ?? f.path).join(', ')}`);
  }
  const how = cost.exact ? `exact, ${cost.method}` : cost.method;
  lines.push(`${provider} ${model}: ${cost.files} files in ${cost.requests} requests (packed as llm.pack_max_files allows, live and with --batch alike), ${number(cost.promptTokens)} prompt tokens (${how}), ~${number(cost.outputTokens)} answer tokens (estimate: ${cost.files ? Math.round(cost.outputTokens / cost.files) : 0} a file)`);
  if (cost.price && cost.live !== null && cost.batch !== null) {
    lines.push(`cost: ${formatDollars(cost.live)} live, ${formatDollars(cost.batch)} with --batch (pricing.${model}: $${cost.price.input} input, $${cost.price.output} output per million tokens)`);
  } else {
    lines.push(`cost: unknown (${missingPriceMessage(model)})`);
  }
  return `${lines.join('\n')}\n`;
}

function dryRunJson(plans: readonly RepoPlan[], cost: PlanCost, provider: string, model: string) {
  return {
    provider,
    model,
    files: cost.files,
    requests: cost.requests,
    prompt_tokens: cost.promptTokens,
    prompt_tokens_exact: cost.exact,
    token_count_method: cost.method,
    estimated_output_tokens: cost.outputTokens,
    price: cost.price,
    cost_live: cost.live,
    cost_batch: cost.batch,
    repositories: plans.map((plan) => ({
      repo_name: plan.repo,
      files_to_profile: plan.profiled,
      cached: plan.cached,
      duplicates: plan.duplicates,
      requests: plan.requests.map((r) => ({ paths: r.files.map((f) => f.part ?? f.path), prompt_tokens: r.promptTokens })),
    })),
  };
}
