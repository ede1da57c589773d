/**
 * Batch runs (`coderag index --batch`): the plan's requests go to the provider's batch API at half price,
 * a manifest beside the indexes remembers what was asked, and collecting stores every usable answer in the
 * profile cache under the key the live path would use. The index is then written by an ordinary run, which
 * finds those answers in the cache; what the batch did not answer is asked live there, or left static.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { toJson } from '../../index/serialize.js';
import { writeFileAtomic } from '../../shared/atomicFile.js';
import type { ProfileAnswer } from '../../llm/answers.js';
import { mergeChunkAnswers } from '../../llm/chunks.js';
import type { BatchApi, BatchOutcome, BatchStatus, StructuredResponse } from '../../llm/provider.js';
import { InvalidAnswerError, statusOf, withRetries } from '../../llm/retry.js';
import { ProviderError, UsageError, errorMessage } from '../../shared/errors.js';
import { ignoreEvents, type EventSink } from '../events.js';
import type { LlmStats } from '../../llm/ask.js';
import { soleEntry } from '../llmProfile.js';
import type { LlmSession } from '../llmSession.js';
import type { RepoPlan } from './dryRun.js';
import { prepareOutputDir } from '../writeIndex.js';

const manifestSchema = z.object({
  tool: z.literal('coderag'),
  manifest_version: z.literal(1),
  provider: z.enum(['openai', 'anthropic']),
  model: z.string(),
  batch_id: z.string().min(1),
  submitted_at: z.string(),
  prompt_version: z.string(),
  repos: z.array(z.string()),
  config_file: z.string().nullable(),
  /** The command line's configuration layer, so collecting rebuilds the same configuration. */
  overrides: z.record(z.string(), z.unknown()),
  target_structure: z.string().nullable(),
  focus: z.string().nullable(),
  /** `part`: a chunk of a long file (`file#2`); the chunks' answers are merged into the file's, as a live run does. */
  requests: z.array(z.object({ custom_id: z.string(), key: z.string(), repo: z.string(), path: z.string(), part: z.string().optional(), prompt_tokens: z.number() })),
});

export type BatchManifest = z.infer<typeof manifestSchema>;

export interface SubmitOptions {
  llm: LlmSession;
  outDir: string;
  configFile: string | null;
  overrides: Record<string, unknown>;
  signal?: AbortSignal;
  now?: () => number;
}

/** `<batch id>.manifest`, the id prefixed with `batch_` only when it does not say `batch` already (OpenAI's `batch_…`, Anthropic's `msgbatch_…`). */
export function manifestName(batchId: string): string {
  const safe = batchId.replace(/[^\w.-]+/g, '_');
  return `${/batch/i.test(safe) ? safe : `batch_${safe}`}.manifest`;
}

/** Submits every planned request as one batch and writes its manifest; answers the manifest and its path. */
export async function submitBatch(plans: readonly RepoPlan[], options: SubmitOptions): Promise<{ manifest: BatchManifest; file: string }> {
  const { llm } = options;
  // Before the batch is paid for: its manifest is written there.
  await prepareOutputDir(options.outDir);
  const api = batchApiOf(llm);
  const requests = plans.flatMap((plan) => plan.requests);
  // Anthropic allows [a-zA-Z0-9_-]{1,64}; the manifest maps each id back to its file and cache key.
  const items = requests.map((request, i) => ({ customId: `coderag-${i}`, body: request.body }));
  const { id } = await withRetries(() => api.submit(items, options.signal), llm.retry, options.signal);
  const manifest: BatchManifest = {
    tool: 'coderag',
    manifest_version: 1,
    provider: llm.provider.name,
    model: llm.provider.model,
    batch_id: id,
    submitted_at: new Date((options.now ?? Date.now)()).toISOString(),
    prompt_version: llm.prompts.version,
    repos: plans.map((plan) => plan.repoPath),
    config_file: options.configFile,
    overrides: options.overrides,
    target_structure: llm.targetStructure,
    focus: llm.focus,
    requests: requests.map((request, i) => ({ custom_id: items[i]?.customId ?? '', key: request.key, repo: request.repo, path: request.path, ...(request.part ? { part: request.part } : {}), prompt_tokens: request.promptTokens })),
  };
  const file = path.resolve(options.outDir, manifestName(id));
  await writeFileAtomic(file, toJson(manifest, { indent: 2, ensureAscii: false }));
  return { manifest, file };
}

export async function readManifest(file: string): Promise<BatchManifest> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new UsageError(`cannot read the batch manifest ${file}`, { cause });
  }
  let parsed;
  try {
    parsed = manifestSchema.safeParse(JSON.parse(text));
  } catch (cause) {
    throw new UsageError(`${file} is not JSON`, { cause });
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${file} is not a CodeRAG batch manifest (${issue?.path.join('.') || 'manifest'}: ${issue?.message})`);
  }
  return parsed.data;
}

/** Where the batch stands; a batch the provider no longer knows is a clear error, not a retry loop. */
export async function batchStatus(llm: LlmSession, manifest: BatchManifest, signal?: AbortSignal): Promise<BatchStatus> {
  const api = batchApiOf(llm);
  try {
    return await withRetries(() => api.status(manifest.batch_id, signal), llm.retry, signal);
  } catch (error) {
    throw unknownBatch(error, manifest) ?? error;
  }
}

export interface WaitOptions {
  pollIntervalMs: number;
  maxWaitMs: number;
  signal?: AbortSignal;
  onEvent?: EventSink;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Polls until the batch ends or `maxWaitMs` passes, reporting progress when it changes. */
export async function waitForBatch(llm: LlmSession, manifest: BatchManifest, options: WaitOptions): Promise<BatchStatus> {
  const emit = options.onEvent ?? ignoreEvents;
  const now = options.now ?? Date.now;
  const pause = options.sleep ?? ((ms: number, signal?: AbortSignal) => sleep(ms, undefined, signal ? { signal } : undefined));
  const deadline = now() + options.maxWaitMs;
  let last = '';
  for (;;) {
    const status = await batchStatus(llm, manifest, options.signal);
    const line = `batch ${status.id}: ${status.providerStatus}, ${status.done} of ${status.total || manifest.requests.length} requests done`;
    if (line !== last) emit({ type: 'info', message: line });
    last = line;
    if (status.state === 'ended' || now() >= deadline) return status;
    await pause(options.pollIntervalMs, options.signal);
  }
}

export interface BatchMiss {
  repo: string;
  path: string;
  type: 'errored' | 'expired' | 'canceled' | 'invalid' | 'missing';
  error: string;
}

export interface CollectResult {
  /** Answers checked and stored in the profile cache. */
  stored: number;
  /** Requests the batch did not answer usably: asked again live, or left static. */
  misses: BatchMiss[];
  /** Tokens the batch's answers used, as the provider reported them. */
  usage: Pick<LlmStats, 'prompt_tokens' | 'completion_tokens'>;
}

/** Stores every usable answer of an ended batch in the profile cache, checked as a live answer is. */
export async function collectBatch(llm: LlmSession, manifest: BatchManifest, signal?: AbortSignal): Promise<CollectResult> {
  const api = batchApiOf(llm);
  let outcomes: BatchOutcome[];
  try {
    outcomes = await withRetries(() => api.results(manifest.batch_id, signal), llm.retry, signal);
  } catch (error) {
    throw unknownBatch(error, manifest) ?? error;
  }
  const byId = new Map(manifest.requests.map((request) => [request.custom_id, request]));
  const seen = new Set<string>();
  const result: CollectResult = { stored: 0, misses: [], usage: { prompt_tokens: 0, completion_tokens: 0 } };
  const answered = new Map<string, ProfileAnswer>();
  for (const outcome of outcomes) {
    const request = byId.get(outcome.customId);
    if (!request || seen.has(outcome.customId)) continue;
    seen.add(outcome.customId);
    const miss = (type: BatchMiss['type'], error: string) => result.misses.push({ repo: request.repo, path: request.path, type, error });
    if (outcome.type !== 'succeeded') {
      miss(outcome.type, outcome.error);
      continue;
    }
    const { response } = outcome;
    result.usage.prompt_tokens += response.usage.prompt_tokens;
    result.usage.completion_tokens += response.usage.completion_tokens;
    const answer = checkedAnswer(llm, response, request.part ?? request.path);
    if (answer instanceof InvalidAnswerError) {
      miss('invalid', answer.message);
      continue;
    }
    answered.set(request.custom_id, answer);
  }
  // A file's answer is stored once every request of it (its chunks) has a usable answer, merged in order.
  const byKey = new Map<string, BatchManifest['requests']>();
  for (const request of manifest.requests) byKey.set(request.key, [...(byKey.get(request.key) ?? []), request]);
  for (const [key, requests] of byKey) {
    const answers = requests.map((request) => answered.get(request.custom_id));
    if (answers.some((a) => a === undefined)) continue;
    await llm.cache.set(key, answers.length === 1 ? (answers[0] as ProfileAnswer) : mergeChunkAnswers(answers as ProfileAnswer[]));
    result.stored++;
  }
  for (const request of manifest.requests) {
    if (!seen.has(request.custom_id)) result.misses.push({ repo: request.repo, path: request.path, type: 'missing', error: 'not in the batch results' });
  }
  return result;
}

/** The same checks a live answer to a request of one part passes (askModel, soleEntry): not cut off, JSON, the right shape. */
function checkedAnswer(llm: LlmSession, response: StructuredResponse, part: string): ProfileAnswer | InvalidAnswerError {
  if (response.finishReason === 'length') return new InvalidAnswerError('answer cut off at llm.max_tokens', response.text);
  if (response.value === undefined) return new InvalidAnswerError('answer is not JSON', response.text);
  const entry = soleEntry(llm.answerFormat, response.value, part);
  if (typeof entry === 'string') return new InvalidAnswerError(`answer has the wrong shape (${entry})`, response.text);
  const parsed = llm.answerFormat.parse(entry.raw);
  if (typeof parsed === 'string') return new InvalidAnswerError(`answer has the wrong shape (${parsed})`, response.text);
  return parsed;
}

function batchApiOf(llm: LlmSession): BatchApi {
  if (!llm.provider.batch) throw new UsageError(`${llm.provider.name} has no batch API here`);
  return llm.provider.batch;
}

function unknownBatch(error: unknown, manifest: BatchManifest): ProviderError | null {
  if (statusOf(error) !== 404) return null;
  return new ProviderError(`${manifest.provider} no longer knows batch ${manifest.batch_id} (404: ${errorMessage(error).split('\n')[0]})`, {
    cause: error,
    hint: 'the batch may have been deleted, or belong to another account or base URL; submit the files again with coderag index --batch',
  });
}
