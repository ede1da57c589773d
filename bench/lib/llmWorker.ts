/**
 * One LLM-pipeline measurement in a fresh process, from the compiled build as users run it, against an
 * OpenAI-compatible server (the fake one, started by the parent):
 *   node --import tsx bench/lib/llmWorker.ts '<json options>'
 * Prints one JSON line: files walked and indexed, files lost, statuses, calls, retries, tokens, wall ms, peak RSS.
 */
import { validateConfig } from '../../dist/config/load.js';
import { AnthropicProvider } from '../../dist/llm/anthropic.js';
import { OpenAiProvider } from '../../dist/llm/openai.js';
import { createLlmSession } from '../../dist/pipeline/llmSession.js';
import { indexRepository } from '../../dist/pipeline/runIndex.js';
import { walkRepository } from '../../dist/pipeline/walk.js';

export interface LlmWorkerOptions {
  corpus: string;
  baseURL: string;
  cacheDir: string;
  concurrency: number;
  /** Seconds, as in the config. */
  requestDelay: number;
  retryDelay: number;
  maxRetries: number;
  requestTimeout: number;
  targetStructure: string;
  /** More llm.* settings (adaptive_concurrency_max, requests_per_minute, pack_max_files, …). */
  llm?: Record<string, unknown>;
  /** Anthropic's SDK at baseURL instead of OpenAI's. */
  anthropic?: boolean;
}

export interface LlmWorkerResult {
  walked: number;
  entries: number;
  lost: number;
  byStatus: Record<string, number>;
  failedReasons: Record<string, number>;
  calls: number;
  retries: number;
  cacheHits: number;
  promptTokens: number;
  cachedPromptTokens: number;
  completionTokens: number;
  /** Symbols that got a model description. */
  described: number;
  /** Files whose profile came from the model (fresh or cached). */
  modelProfiled: number;
  /** Files the model answered in this run, and the scheduler's concurrency: where it went and how high. */
  answeredFiles: number;
  highestConcurrency: number;
  concurrencyTrace: number[];
  rateLimited: number;
  relationships: number;
  ms: number;
  maxRssMb: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as LlmWorkerOptions;

const config = validateConfig({
  paths: { cache_dir: options.cacheDir },
  // The corpus is a node_modules copy: index everything in it, not what a project would skip.
  file_analysis: { skip_directories: ['.git'], skip_generated: false, respect_gitignore: false },
  llm: {
    model_provider: 'openai',
    request_delay: options.requestDelay,
    retry_delay: options.retryDelay,
    max_retries: options.maxRetries,
    request_timeout: options.requestTimeout,
    ...options.llm,
  },
  performance: { max_concurrent_files: options.concurrency },
});

const walked = await walkRepository(options.corpus, {
  supportedExtensions: config.file_analysis.supported_extensions,
  skipDirectories: config.file_analysis.skip_directories,
  respectGitignore: config.file_analysis.respect_gitignore,
});
const walkedPaths = [...walked.files, ...walked.outside].map((f) => f.path);

const provider = options.anthropic
  ? new AnthropicProvider({ apiKey: 'sk-ant-bench-fake-key', baseURL: options.baseURL, model: 'claude-fake-1', timeoutMs: config.llm.request_timeout * 1000 })
  : new OpenAiProvider({ apiKey: 'sk-bench-fake-key', baseURL: options.baseURL, model: 'gpt-fake-1', timeoutMs: config.llm.request_timeout * 1000 });
const llm = createLlmSession({ provider, config, targetStructure: options.targetStructure });

const start = performance.now();
const index = await indexRepository(options.corpus, { config, llm });
const ms = performance.now() - start;

const indexed = new Set(index.file_summaries.map((f) => f.file_path));
const byStatus: Record<string, number> = {};
const failedReasons: Record<string, number> = {};
for (const f of index.file_summaries) {
  byStatus[f.status] = (byStatus[f.status] ?? 0) + 1;
  if (f.status !== 'ok' || f.reason?.startsWith('llm_unusable')) {
    const reason = (f.reason ?? '(no reason)').replace(/^(llm_error: \d*).*$/, '$1').trim();
    failedReasons[reason] = (failedReasons[reason] ?? 0) + 1;
  }
}
const meta = index.analysis_metadata;
const result: LlmWorkerResult = {
  walked: walkedPaths.length,
  entries: index.file_summaries.length,
  lost: walkedPaths.filter((p) => !indexed.has(p)).length,
  byStatus,
  failedReasons,
  calls: meta.llm_calls,
  retries: meta.retries,
  cacheHits: meta.cache_hits,
  promptTokens: meta.token_usage.prompt_tokens,
  cachedPromptTokens: meta.token_usage.cached_prompt_tokens ?? 0,
  completionTokens: meta.token_usage.completion_tokens,
  described: index.file_summaries.reduce((n, f) => n + f.symbols.filter((s) => s.description).length, 0),
  modelProfiled: index.file_summaries.filter((f) => f.profile_source === 'llm').length,
  answeredFiles: meta.llm_answered_files ?? 0,
  highestConcurrency: llm.scheduler.stats.highestConcurrency,
  concurrencyTrace: llm.scheduler.stats.trace,
  rateLimited: llm.scheduler.stats.rateLimited,
  relationships: index.relationships.length,
  ms,
  maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
