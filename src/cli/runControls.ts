/**
 * What every long-running command of the CLI shares: progress on stderr, Ctrl+C (the first stops the run, the
 * second quits at once through main.ts with exit code 130), and the run's spending limits.
 */
import type { Config } from '../config/schema.js';
import { RunBudget } from '../llm/budget.js';
import { missingPriceHint, missingPriceMessage, priceOf } from '../llm/pricing.js';
import type { LlmProvider } from '../llm/provider.js';
import { promptTokenCounter } from '../llm/tokens.js';
import { BudgetExceededError, UsageError } from '../shared/errors.js';
import { createProgress, type Progress, type ProgressFormat } from './progress.js';
import { cliState } from './state.js';

/** A Ctrl+C handler: the first interrupt aborts `controller` (after writing `note`), the second quits now. */
export function interruptHandler(controller: AbortController, note?: string): () => void {
  return () => {
    if (controller.signal.aborted) cliState.quit(130);
    if (note) process.stderr.write(note);
    controller.abort();
  };
}

/** Progress on stderr and Ctrl+C handling for one command: the first interrupt stops the run, the second quits. */
export function runControls(config: Config, flags: { quiet: boolean; progress?: ProgressFormat | undefined }): { progress: Progress; controller: AbortController; close: () => void } {
  if (config.debug.verbose_output) cliState.verbose = true;
  const progress = createProgress({
    stream: process.stderr,
    quiet: flags.quiet,
    level: config.debug.verbose_output ? 'DEBUG' : config.logging.level,
    logFile: config.logging.log_to_file ? config.logging.log_file : null,
    format: flags.progress ?? 'auto',
  });
  const controller = new AbortController();
  const onSigint = interruptHandler(controller, '\ninterrupt: stopping after in-flight files (Ctrl+C again to quit now)\n');
  process.on('SIGINT', onSigint);
  return { progress, controller, close: () => process.off('SIGINT', onSigint) };
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
