/**
 * Plan: what a model run would send, without sending anything. Each repository is walked and extracted as
 * a run would; every file the model would profile is looked up in the profile cache, and each miss becomes
 * the request body the live path would send for it (profileQuestion -> structuredRequest -> requestBody),
 * with its prompt tokens counted. `--dry-run` prints the plan and its price; `--batch` submits it.
 */
import path from 'node:path';
import pLimit from 'p-limit';
import type { Config } from '../config/schema.js';
import type { ExtractorPool } from '../extract/extractorPool.js';
import { costOf, priceOf, type ModelPrice } from '../llm/pricing.js';
import type { PromptTokenCounter } from '../llm/tokens.js';
import type { ReadFile } from '../extract/classify.js';
import { ignoreEvents, type EventSink } from './events.js';
import { isProfileAnswer, profileKey, profileQuestion, structuredRequest } from './llmProfile.js';
import type { LlmSession } from './llmSession.js';
import { createExtractors, readGoModule } from './runIndex.js';
import { runGit, walkRepository, type GitRunner } from './walk.js';

export interface PlannedRequest {
  repo: string;
  path: string;
  /** The profile cache key its answer is stored under. */
  key: string;
  body: Record<string, unknown>;
  promptTokens: number;
}

export interface RepoPlan {
  repo: string;
  repoPath: string;
  /** Files the model would profile (neither skipped nor unreadable). */
  profiled: number;
  /** Of those, answered from the profile cache. */
  cached: number;
  /** Of those, sharing their content (and so their answer) with a file planned earlier. */
  duplicates: number;
  requests: PlannedRequest[];
}

export interface PlanOptions {
  config: Config;
  llm: LlmSession;
  counter: PromptTokenCounter;
  extractors?: ExtractorPool;
  readFile?: ReadFile;
  git?: GitRunner;
  onEvent?: EventSink;
}

/** The plan of each repository in turn; a file whose content was planned in an earlier one is not asked twice. */
export async function planRun(repoPaths: readonly string[], options: PlanOptions): Promise<RepoPlan[]> {
  const extractors = options.extractors ?? createExtractors(options.config, options.readFile);
  const emit = options.onEvent ?? ignoreEvents;
  if (options.llm.prefilter) emit({ type: 'warning', message: 'the pre-filter is not run when planning; every file is counted as selected' });
  const planned = new Set<string>();
  const plans: RepoPlan[] = [];
  try {
    for (const repoPath of repoPaths) plans.push(await planRepository(repoPath, options, extractors, planned));
  } finally {
    if (!options.extractors) await extractors.close();
  }
  return plans;
}

async function planRepository(repoPath: string, options: PlanOptions, extractors: ExtractorPool, planned: Set<string>): Promise<RepoPlan> {
  const { config, llm, counter } = options;
  const repo = path.basename(path.resolve(repoPath));
  const walked = await walkRepository(
    repoPath,
    {
      supportedExtensions: config.file_analysis.supported_extensions,
      skipDirectories: config.file_analysis.skip_directories,
      respectGitignore: config.file_analysis.respect_gitignore,
    },
    options.git ?? runGit,
  );
  extractors.setRepository(walked.files.map((f) => f.path), await readGoModule(path.join(repoPath, 'go.mod')), {
    classify: { maxFileSize: config.file_analysis.max_file_size, skipGenerated: config.file_analysis.skip_generated },
    keepContent: true,
  });
  const ctx = { ...llm, config };
  const plan: RepoPlan = { repo, repoPath: path.resolve(repoPath), profiled: 0, cached: 0, duplicates: 0, requests: [] };
  const limit = pLimit(Math.max(8, extractors.threads * 8));
  await Promise.all(
    walked.files.map((file) =>
      limit(async () => {
        const extracted = await extractors.run(file);
        if (!extracted.ok || extracted.content === undefined) return;
        plan.profiled++;
        const key = profileKey(extracted.hash, ctx);
        if (await llm.cache.get(key, isProfileAnswer)) {
          plan.cached++;
          return;
        }
        if (planned.has(key)) {
          plan.duplicates++;
          return;
        }
        planned.add(key);
        const { question } = profileQuestion(file, extracted.facts, extracted.content, ctx);
        const body = llm.provider.requestBody(structuredRequest(config, question));
        plan.requests.push({ repo, path: file.path, key, body, promptTokens: counter.count(body) });
      }),
    ),
  );
  plan.requests.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return plan;
}

export interface PlanCost {
  requests: number;
  promptTokens: number;
  /** An estimate: `budget.expected_output_tokens` a request. */
  outputTokens: number;
  exact: boolean;
  method: string;
  /** Null when the pricing table has no entry for the model. */
  price: ModelPrice | null;
  live: number | null;
  batch: number | null;
}

export function costOfPlan(plans: readonly RepoPlan[], config: Config, model: string, counter: PromptTokenCounter): PlanCost {
  const requests = plans.reduce((n, p) => n + p.requests.length, 0);
  const promptTokens = plans.reduce((n, p) => n + p.requests.reduce((m, r) => m + r.promptTokens, 0), 0);
  const outputTokens = requests * config.budget.expected_output_tokens;
  const price = priceOf(config, model);
  const tokens = { input: promptTokens, output: outputTokens };
  return {
    requests,
    promptTokens,
    outputTokens,
    exact: counter.exact,
    method: counter.method,
    price,
    live: price ? costOf(price, tokens, 'live') : null,
    batch: price ? costOf(price, tokens, 'batch') : null,
  };
}
