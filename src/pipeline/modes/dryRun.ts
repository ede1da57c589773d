/**
 * Plan: what a model run would send, without sending anything. Each repository is walked and extracted as
 * a run would; every file the model would profile is looked up in the profile cache, and the misses' parts
 * (filePieces: one a file, or one a chunk of a long file) are grouped into packs by the packer's rule
 * (`groupIntoPacks`, `packLimits`), each pack becoming the request body the live path would send for it
 * (buildProfileRequest -> the provider's requestBody, i.e. chatCompletionBody / messagesBody), with its
 * prompt tokens counted. `--dry-run` prints the plan and its price, live and with `--batch`; `--batch`
 * submits the same packed requests, so a batch costs no more tokens a file than a live run. A live packer
 * sends a pack early when files arrive slowly, so a live run may send a few more packs (and so a few more
 * copies of the shared prefix) than planned.
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

/** One file of a plan, or one chunk of a long file: the profile cache key its answer is stored under. */
export interface PlannedFile {
  repo: string;
  path: string;
  /** For a chunk of a long file, the part's own path (`file#2`); its answer is merged with its siblings'. */
  part?: string;
  key: string;
}

/** One request, live or in a batch: the files it asks about (in the order of their file tags) and its body. */
export interface PlannedRequest {
  files: PlannedFile[];
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
  /** The parts to ask about packed as a live run packs them (`llm.pack_max_files`, `llm.pack_token_budget`). */
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
      skipBuildOutput: config.file_analysis.skip_generated,
      ownOutput: [config.paths.output_dir, config.paths.cache_dir],
    },
    options.git ?? runGit,
  );
  extractors.setRepository(walked.files.map((f) => f.path), await readGoModule(path.join(repoPath, 'go.mod')), {
    classify: { maxFileSize: config.file_analysis.max_file_size, skipGenerated: config.file_analysis.skip_generated },
    keepContent: true,
  });
  const ctx = { ...llm, config };
  const plan: RepoPlan = { repo, repoPath: path.resolve(repoPath), profiled: 0, cached: 0, duplicates: 0, requests: [] };
  const parts: Array<{ file: PlannedFile; part: FilePart }> = [];
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
        for (const { part } of pieces) parts.push({ file: { repo, path: file.path, ...(pieces.length > 1 ? { part: part.path } : {}), key }, part });
      }),
    ),
  );
  // Stable: a long file's chunks stay in their order.
  parts.sort((a, b) => (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  for (const pack of groupIntoPacks(parts, ({ part }) => ({ tokens: part.tokens, answerTokens: part.answerTokens }), packLimits(config))) {
    const body = llm.provider.requestBody(profileRequest(ctx, pack.map((p) => p.part)));
    plan.requests.push({ files: pack.map((p) => p.file), body, promptTokens: counter.count(body) });
  }
  return plan;
}

export interface PlanCost {
  /** Files to ask about (a chunk of a long file counts as one). */
  files: number;
  /** Requests, the files packed as a live run packs them; a batch submits the same requests. */
  requests: number;
  promptTokens: number;
  /** An estimate: `budget.expected_output_tokens` a file. */
  outputTokens: number;
  exact: boolean;
  method: string;
  /** Null when the pricing table has no entry for the model. */
  price: ModelPrice | null;
  live: number | null;
  batch: number | null;
}

export function costOfPlan(plans: readonly RepoPlan[], config: Config, model: string, counter: PromptTokenCounter): PlanCost {
  const requests = plans.flatMap((p) => p.requests);
  const files = requests.reduce((n, r) => n + r.files.length, 0);
  const promptTokens = requests.reduce((n, r) => n + r.promptTokens, 0);
  // Answers are about files: a packed answer carries one entry a file, so packing leaves their tokens alone.
  const outputTokens = files * config.budget.expected_output_tokens;
  const price = priceOf(config, model);
  const tokens = { input: promptTokens, output: outputTokens };
  return {
    files,
    requests: requests.length,
    promptTokens,
    outputTokens,
    exact: counter.exact,
    method: counter.method,
    price,
    live: price ? costOf(price, tokens, 'live') : null,
    batch: price ? costOf(price, tokens, 'batch') : null,
  };
}
