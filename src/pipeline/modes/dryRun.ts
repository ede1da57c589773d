/**
 * Plan: what a model run would send, without sending anything. Each repository is walked and extracted as
 * a run would; every file the model would profile is looked up in the profile cache, and each miss becomes
 * the request body the live path would send for it alone (filePieces -> buildProfileRequest with one part ->
 * the provider's requestBody, i.e. chatCompletionBody / messagesBody), with its prompt tokens counted; a long
 * file split into chunks is one request per chunk. `--dry-run` prints the plan and its price; `--batch`
 * submits it (a batch asks one file a request). A live run packs files (`llm.pack_max_files`), so the plan
 * also groups the same parts with the packer's rule (`groupIntoPacks`, `packLimits`) and counts the packed
 * bodies: the live price comes from those. A live packer sends a pack early when files arrive slowly, so a
 * live run may send a few more packs (and so a few more copies of the shared prefix) than planned.
 */
import path from 'node:path';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Config } from '../../config/schema.js';
import type { ExtractorPool } from '../../extract/extractorPool.js';
import { groupIntoPacks } from '../../llm/packer.js';
import { costOf, priceOf, type ModelPrice } from '../../llm/pricing.js';
import type { FilePart } from '../../llm/profileRequest.js';
import type { PromptTokenCounter } from '../../llm/tokens.js';
import type { ReadFile } from '../../extract/classify.js';
import { ignoreEvents, type EventSink } from '../events.js';
import { filePieces, isProfileAnswer, profileKey, profileRequest } from '../llmProfile.js';
import { packLimits, type LlmSession } from '../llmSession.js';
import { createExtractors, readGoModule } from '../runIndex.js';
import { runGit, walkRepository, type GitRunner } from '../walk.js';

export interface PlannedRequest {
  repo: string;
  path: string;
  /** For a chunk of a long file, the part's own path (`file#2`); its answer is merged with its siblings'. */
  part?: string;
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
  /** The same parts grouped into packed requests as a live run sends them: their count and prompt tokens. */
  live: { requests: number; promptTokens: number };
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
  // The run's one limiter of files in flight, sized for each repository's extraction threads in turn.
  const limit = pLimit(8);
  try {
    for (const repoPath of repoPaths) plans.push(await planRepository(repoPath, options, extractors, limit, planned));
  } finally {
    if (!options.extractors) await extractors.close();
  }
  return plans;
}

async function planRepository(repoPath: string, options: PlanOptions, extractors: ExtractorPool, limit: LimitFunction, planned: Set<string>): Promise<RepoPlan> {
  const { config, llm, counter } = options;
  const repo = path.basename(path.resolve(repoPath));
  const walked = await walkRepository(
    repoPath,
    {
      supportedExtensions: config.file_analysis.supported_extensions,
      skipDirectories: config.file_analysis.skip_directories,
      respectGitignore: config.file_analysis.respect_gitignore,
      ownOutput: [config.paths.output_dir, config.paths.cache_dir],
    },
    options.git ?? runGit,
  );
  extractors.setRepository(walked.files.map((f) => f.path), await readGoModule(path.join(repoPath, 'go.mod')), {
    classify: { maxFileSize: config.file_analysis.max_file_size, skipGenerated: config.file_analysis.skip_generated },
    keepContent: true,
  });
  const ctx = { ...llm, config };
  const plan: RepoPlan = { repo, repoPath: path.resolve(repoPath), profiled: 0, cached: 0, duplicates: 0, requests: [], live: { requests: 0, promptTokens: 0 } };
  const parts = new Map<PlannedRequest, FilePart>();
  limit.concurrency = Math.max(8, extractors.threads * 8);
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
        const pieces = filePieces(file, extracted.facts, extracted.content, ctx);
        for (const { part } of pieces) {
          const body = llm.provider.requestBody(profileRequest(ctx, [part]));
          const request: PlannedRequest = { repo, path: file.path, ...(pieces.length > 1 ? { part: part.path } : {}), key, body, promptTokens: counter.count(body) };
          plan.requests.push(request);
          parts.set(request, part);
        }
      }),
    ),
  );
  // Stable: a long file's chunks stay in their order.
  plan.requests.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const inOrder = plan.requests.map((r) => parts.get(r) as FilePart);
  for (const pack of groupIntoPacks(inOrder, (p) => ({ tokens: p.tokens, answerTokens: p.answerTokens }), packLimits(config))) {
    plan.live.requests++;
    plan.live.promptTokens += counter.count(llm.provider.requestBody(profileRequest(ctx, pack)));
  }
  return plan;
}

export interface PlanCost {
  /** One file (or chunk) a request, as a batch submits them. */
  requests: number;
  promptTokens: number;
  /** Packed as a live run sends them (`llm.pack_max_files`). */
  liveRequests: number;
  livePromptTokens: number;
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
  const liveRequests = plans.reduce((n, p) => n + p.live.requests, 0);
  const livePromptTokens = plans.reduce((n, p) => n + p.live.promptTokens, 0);
  // Answers are about files: a packed answer carries one entry a file, so packing leaves their tokens alone.
  const outputTokens = requests * config.budget.expected_output_tokens;
  const price = priceOf(config, model);
  return {
    requests,
    promptTokens,
    liveRequests,
    livePromptTokens,
    outputTokens,
    exact: counter.exact,
    method: counter.method,
    price,
    live: price ? costOf(price, { input: livePromptTokens, output: outputTokens }, 'live') : null,
    batch: price ? costOf(price, { input: promptTokens, output: outputTokens }, 'batch') : null,
  };
}
