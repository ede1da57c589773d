/**
 * Pre-filter (LLM, optional): which files deserve a model profile for the target structure. The file list
 * goes out in numbered chunks and the model answers with numbers, so no answer can outgrow
 * `llm.max_tokens` however large the repository. A chunk that fails, or a selection that comes back empty,
 * is reported and the configured policy applied: keep those files, or stop the run. Never silent.
 */
import type { Config } from '../config/schema.js';
import { parsePrefilterAnswer, prefilterRequestSchema } from '../llm/answers.js';
import { renderPrompt, type PromptSet } from '../llm/prompts.js';
import type { LlmProvider } from '../llm/provider.js';
import type { RequestScheduler } from '../llm/rateControl.js';
import type { RetryPolicy } from '../llm/retry.js';
import { CodeRagError, errorMessage } from '../shared/errors.js';
import type { EventSink } from './events.js';
import { askModel, type LlmStats } from '../llm/ask.js';

export interface PrefilterContext {
  provider: LlmProvider;
  prompts: PromptSet;
  config: Config;
  targetStructure: string;
  retry: RetryPolicy;
  scheduler: RequestScheduler;
  stats: LlmStats;
  signal: AbortSignal;
  emit: EventSink;
  repo: string;
}

/** Tokens an answer spends per selected number (digits, comma, space), with room to spare. */
const TOKENS_PER_SELECTION = 3;
const MAX_CHUNK = 400;

export function prefilterChunkSize(maxTokens: number): number {
  return Math.max(1, Math.min(MAX_CHUNK, Math.floor((maxTokens * 0.8 - 20) / TOKENS_PER_SELECTION)));
}

export async function prefilterFiles(paths: readonly string[], ctx: PrefilterContext): Promise<Set<string>> {
  const chunkSize = prefilterChunkSize(ctx.config.llm.max_tokens);
  const selected = new Set<string>();
  const failures: string[] = [];
  const policy = ctx.config.llm.prefilter_failure;
  for (let start = 0; start < paths.length; start += chunkSize) {
    const chunk = paths.slice(start, start + chunkSize);
    try {
      for (const file of await selectInChunk(chunk, ctx)) selected.add(file);
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      const message = `pre-filter failed for files ${start + 1}-${start + chunk.length} of ${paths.length}: ${errorMessage(error).split('\n')[0]}`;
      if (policy === 'abort') throw new CodeRagError(`${ctx.repo}: ${message}`, { cause: error, hint: 'llm.prefilter_failure: keep_all keeps those files instead' });
      failures.push(message);
      for (const file of chunk) selected.add(file);
    }
  }
  for (const failure of failures) ctx.emit({ type: 'warning', message: `${ctx.repo}: ${failure}; kept those files (llm.prefilter_failure: keep_all)` });
  if (selected.size === 0 && paths.length > 0) {
    if (policy === 'abort') throw new CodeRagError(`${ctx.repo}: the pre-filter selected no file`, { hint: 'check the target structure, or set llm.prefilter_failure: keep_all' });
    ctx.emit({ type: 'warning', message: `${ctx.repo}: the pre-filter selected no file; profiling all ${paths.length} (llm.prefilter_failure: keep_all)` });
    return new Set(paths);
  }
  ctx.emit({ type: 'info', message: `${ctx.repo}: pre-filter kept ${selected.size} of ${paths.length} files for model profiles` });
  return selected;
}

async function selectInChunk(chunk: readonly string[], ctx: PrefilterContext): Promise<string[]> {
  const prompt = renderPrompt(ctx.prompts.prefilter, {
    target_structure: ctx.targetStructure,
    files: chunk.map((file, i) => `${i + 1}. ${file}`).join('\n'),
  });
  const numbers = await askModel(ctx, { prompt, schema: prefilterRequestSchema(), schemaName: 'file_selection' }, parsePrefilterAnswer);
  return numbers.filter((n) => n >= 1 && n <= chunk.length).map((n) => chunk[n - 1] as string);
}
