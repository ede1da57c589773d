/**
 * Batch runs (`coderag index --batch`): the plan's requests go to the provider's batch API at half price,
 * several files a request as a live run packs them (so a batch costs no more tokens a file than a live run),
 * a manifest beside the indexes remembers what was asked, and collecting stores every usable entry of every
 * answer in the profile cache under the key the live path would use. The index is then written by an
 * ordinary run, which finds those answers in the cache; what the batch did not answer is asked live there,
 * or left static.
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

/** Version 2: a request asks about several files (`files`); version 1 asked about one, under the older prompts. */
const MANIFEST_VERSION = 2;

const manifestSchema = z.object({
  tool: z.literal('coderag'),
  manifest_version: z.literal(MANIFEST_VERSION),
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
  /**
   * Each request's files in the order of their file tags (an answer's `file: n` names the n-th). `part`: a
   * chunk of a long file (`file#2`); the chunks' answers are merged into the file's, as a live run does.
   */
  requests: z.array(
    z.object({
      custom_id: z.string(),
      prompt_tokens: z.number(),
      files: z.array(z.object({ key: z.string(), repo: z.string(), path: z.string(), part: z.string().optional() })).min(1),
    }),
  ),
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
    manifest_version: MANIFEST_VERSION,
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
    requests: requests.map((request, i) => ({ custom_id: items[i]?.customId ?? '', prompt_tokens: request.promptTokens, files: request.files })),
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
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new UsageError(`${file} is not JSON`, { cause });
  }
  const version = (json as { manifest_version?: unknown } | null)?.manifest_version;
  if ((json as { tool?: unknown } | null)?.tool === 'coderag' && typeof version === 'number' && version < MANIFEST_VERSION) {
    throw new UsageError(`${file} was written by an earlier CodeRAG (manifest version ${version}), whose answers this one cannot match to its files`, {
      hint: 'submit the files again with coderag index --batch',
    });
  }
  const parsed = manifestSchema.safeParse(json);
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
  /** Answers checked and stored in the profile cache, a file each. */
  stored: number;
  /** Files the batch did not answer usably: asked again live, or left static. */
  misses: BatchMiss[];
  /** Tokens the batch's answers used, as the provider reported them. */
  usage: Pick<LlmStats, 'prompt_tokens' | 'completion_tokens'>;
}

type ManifestFile = BatchManifest['requests'][number]['files'][number];

/**
 * Stores every usable answer of an ended batch in the profile cache, checked as a live answer is: each
 * entry of a packed answer on its own, so one bad entry misses its file alone.
 */
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
  const answered = new Map<ManifestFile, ProfileAnswer>();
  for (const outcome of outcomes) {
    const request = byId.get(outcome.customId);
    if (!request || seen.has(outcome.customId)) continue;
    seen.add(outcome.customId);
    const miss = (file: ManifestFile, type: BatchMiss['type'], error: string) => result.misses.push({ repo: file.repo, path: file.path, type, error });
    if (outcome.type !== 'succeeded') {
      for (const file of request.files) miss(file, outcome.type, outcome.error);
      continue;
    }
    const { response } = outcome;
    result.usage.prompt_tokens += response.usage.prompt_tokens;
    result.usage.completion_tokens += response.usage.completion_tokens;
    const answers = checkedAnswers(llm, response, request.files.map((file) => file.part ?? file.path));
    for (const [i, file] of request.files.entries()) {
      const answer = answers[i] as ProfileAnswer | InvalidAnswerError;
      if (answer instanceof InvalidAnswerError) miss(file, 'invalid', answer.message);
      else answered.set(file, answer);
    }
  }
  // A file's answer is stored once every part of it (its chunks) has a usable answer, merged in order.
  const byKey = new Map<string, ManifestFile[]>();
  for (const file of manifest.requests.flatMap((request) => request.files)) byKey.set(file.key, [...(byKey.get(file.key) ?? []), file]);
  for (const [key, files] of byKey) {
    const answers = files.map((file) => answered.get(file));
    if (answers.some((a) => a === undefined)) continue;
    await llm.cache.set(key, answers.length === 1 ? (answers[0] as ProfileAnswer) : mergeChunkAnswers(answers as ProfileAnswer[]));
    result.stored++;
  }
  for (const request of manifest.requests) {
    if (seen.has(request.custom_id)) continue;
    for (const file of request.files) result.misses.push({ repo: file.repo, path: file.path, type: 'missing', error: 'not in the batch results' });
  }
  return result;
}

/**
 * The answer of each part of a request, in order, or why it has none: the checks a live answer passes
 * (askModel, then sendPack's entries or soleEntry alone): not cut off, JSON, the right shape, each entry.
 */
function checkedAnswers(llm: LlmSession, response: StructuredResponse, parts: readonly string[]): Array<ProfileAnswer | InvalidAnswerError> {
  const whole = (why: string) => parts.map(() => new InvalidAnswerError(why, response.text));
  if (response.finishReason === 'length') return whole('answer cut off at llm.max_tokens');
  if (response.value === undefined) return whole('answer is not JSON');
  if (parts.length === 1) {
    const entry = soleEntry(llm.answerFormat, response.value, parts[0] as string);
    return [typeof entry === 'string' ? new InvalidAnswerError(`answer has the wrong shape (${entry})`, response.text) : entryAnswer(llm, entry.raw, response.text)];
  }
  const entries = llm.answerFormat.entries(response.value, parts);
  if (typeof entries === 'string') return whole(`answer has the wrong shape (${entries})`);
  return parts.map((part) => {
    const raw = entries.get(part);
    return raw === undefined ? new InvalidAnswerError(`answer has the wrong shape (files: no entry for ${part})`, response.text) : entryAnswer(llm, raw, response.text);
  });
}

function entryAnswer(llm: LlmSession, raw: unknown, text: string): ProfileAnswer | InvalidAnswerError {
  const parsed = llm.answerFormat.parse(raw);
  return typeof parsed === 'string' ? new InvalidAnswerError(`answer has the wrong shape (${parsed})`, text) : parsed;
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
