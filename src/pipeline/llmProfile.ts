/**
 * Profile (LLM): one answer per file gives the meaning (file type, summary, key concepts, a line for each main
 * symbol) and, when a target structure is given, the file's relationships to it. Files wait in a packer and
 * go out several to a request (see src/llm/packer.ts and src/llm/profileRequest.ts); each file's entry of the
 * answer is checked on its own and cached under that file's own key, so reuse stays per file. Symbol names
 * are matched leniently (src/llm/symbolNames.ts) and those that name nothing of the file are dropped, the
 * rest of the entry kept. An entry that is missing, malformed or about another file of its pack is asked
 * again alone; a pack whose answer is unusable as a whole falls back to one request per file; a file whose
 * answer stays unusable after the retries is answered `unusable`, and keeps its static profile. The facts in
 * the index stay the parser's.
 */
import type { Config } from '../config/schema.js';
import { cacheKey, type ProfileCache } from '../cache/profileCache.js';
import type { StaticFacts } from '../extract/staticProfile.js';
import { SCHEMA_VERSION, type CodeSymbol } from '../index/types.js';
import type { ProfileAnswer, ProfileAnswerFormat } from '../llm/answers.js';
import { BudgetStop, type RunBudget } from '../llm/budget.js';
import { mergeChunkAnswers, splitAtSymbols } from '../llm/chunks.js';
import type { Packer } from '../llm/packer.js';
import { askModel, firstLine, refusal, type LlmStats } from '../llm/ask.js';
import { buildFilePart, buildProfileRequest, type FilePart, type SharedPrefix } from '../llm/profileRequest.js';
import type { PromptSet } from '../llm/prompts.js';
import type { LlmProvider, StructuredRequest } from '../llm/provider.js';
import type { RequestScheduler } from '../llm/rateControl.js';
import { InvalidAnswerError, statusOf, type RetryPolicy } from '../llm/retry.js';
import { SymbolMatcher } from '../llm/symbolNames.js';
import type { TargetFiles } from '../llm/targetPaths.js';
import { errorMessage } from '../shared/errors.js';
import { contentHash } from '../shared/hash.js';

export interface LlmContext {
  provider: LlmProvider;
  prompts: PromptSet;
  config: Config;
  targetStructure: string | null;
  /** The files of the target structure, which relationships must point at; null without one. */
  targetFiles: TargetFiles | null;
  focus: string | null;
  cache: ProfileCache<ProfileAnswer>;
  answerFormat: ProfileAnswerFormat;
  retry: RetryPolicy;
  scheduler: RequestScheduler;
  /** The part of every profile request that does not depend on the file. */
  shared: SharedPrefix;
  /** Where files wait to go out, several to a request. */
  packer: Packer<PendingFile>;
  stats: LlmStats;
  signal: AbortSignal;
  /** The run's spending limits (`--max-cost`, `--max-calls`); every request asks it first. */
  budget?: RunBudget | null;
  /** Saves a raw answer when `debug.save_raw_responses` is on. */
  saveRaw?: (filePath: string, raw: string) => Promise<void>;
}

/** One file waiting in the packer for its answer. */
export interface PendingFile {
  part: FilePart;
  symbols: readonly CodeSymbol[];
  resolve: (answer: ProfileAnswer) => void;
  reject: (error: unknown) => void;
}

export type LlmProfileResult =
  | { ok: true; answer: ProfileAnswer; cached: boolean; secretsRedacted: number }
  /**
   * `stopped`: the budget refused the call; the file is not failed, it was never asked. `unusable`: every
   * answer was unusable (not JSON, cut off, the wrong shape) through the retries; the file keeps its static
   * profile and is not failed either.
   */
  | { ok: false; error: string; secretsRedacted: number; stopped?: boolean; unusable?: boolean };

/** Everything besides the file's content that shapes the answer, for the cache key. */
export function answerContext(ctx: Pick<LlmContext, 'config' | 'targetStructure' | 'focus'>): string {
  const { llm, file_analysis, relationships } = ctx.config;
  return JSON.stringify({
    system: llm.system_prompt,
    max_content_length: file_analysis.max_content_length,
    long_files: file_analysis.long_files === 'chunks' ? { chunks: file_analysis.max_chunks_per_file } : 'head',
    focus: ctx.focus,
    target: ctx.targetStructure ? contentHash(ctx.targetStructure) : null,
    types: ctx.targetStructure ? relationships.relationship_types : null,
    min_confidence: relationships.min_confidence_score,
  });
}

/** The cache key of a file's profile: its content and everything else that shapes the answer. */
export function profileKey(hash: string, ctx: Pick<LlmContext, 'provider' | 'prompts' | 'config' | 'targetStructure' | 'focus'>): string {
  return cacheKey({
    contentHash: hash,
    provider: ctx.provider.name,
    model: ctx.provider.model,
    promptVersion: ctx.prompts.version,
    schemaVersion: SCHEMA_VERSION,
    context: answerContext(ctx),
  });
}

/** A file's part of a profile request and the symbols its entry may describe: the whole file, or one chunk of it. */
export interface FilePiece {
  part: FilePart;
  symbols: readonly CodeSymbol[];
}

/**
 * The one place a file's request parts are built: the whole file, or with `file_analysis.long_files: chunks`
 * one part per chunk of a long file. The live call (through the packer), the dry run and the batch submission
 * all turn these parts into requests with `buildProfileRequest` and the provider's body builder, so the
 * tokens a dry run counts are the tokens a run sends.
 */
export function filePieces(
  file: { path: string },
  facts: StaticFacts,
  content: string,
  ctx: Pick<LlmContext, 'prompts' | 'config' | 'shared'>,
): FilePiece[] {
  const { long_files, max_content_length, max_chunks_per_file } = ctx.config.file_analysis;
  if (long_files === 'chunks' && content.length > max_content_length) {
    return splitAtSymbols(content, facts.symbols, max_content_length, max_chunks_per_file).map((c) => ({
      part: buildFilePart({ ...facts, path: `${file.path}#${c.index}`, symbols: c.symbols }, c.text, ctx, ctx.shared, c),
      symbols: c.symbols,
    }));
  }
  return [{ part: buildFilePart({ path: file.path, ...facts }, content, ctx, ctx.shared), symbols: facts.symbols }];
}

/** The wire request of one or more parts with the run's model settings (what `requestBody` and `complete` take). */
export function profileRequest(ctx: Pick<LlmContext, 'shared'>, parts: readonly FilePart[]): StructuredRequest {
  return buildProfileRequest(ctx.shared, parts);
}

export async function profileWithLlm(
  file: { path: string },
  facts: StaticFacts,
  content: string,
  hash: string,
  ctx: LlmContext,
): Promise<LlmProfileResult> {
  const key = profileKey(hash, ctx);
  const cached = await ctx.cache.get(key, isProfileAnswer);
  if (cached) {
    ctx.stats.cache_hits++;
    return { ok: true, answer: cached, cached: true, secretsRedacted: 0 };
  }

  const pieces = filePieces(file, facts, content, ctx);
  const secretsRedacted = pieces.reduce((n, p) => n + p.part.secretsRedacted, 0);
  ctx.stats.secrets_redacted += secretsRedacted;
  try {
    const answers = await Promise.all(
      pieces.map(({ part, symbols }) => new Promise<ProfileAnswer>((resolve, reject) => ctx.packer.add({ part, symbols, resolve, reject }))),
    );
    const answer = answers.length === 1 ? (answers[0] as ProfileAnswer) : mergeChunkAnswers(answers);
    ctx.stats.answered_files++;
    await ctx.cache.set(key, answer);
    return { ok: true, answer, cached: false, secretsRedacted };
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (error instanceof BudgetStop) return { ok: false, stopped: true, error: error.message, secretsRedacted };
    if (error instanceof InvalidAnswerError) return { ok: false, unusable: true, error: `llm_unusable: ${firstLine(error.message)}`, secretsRedacted };
    const refused = refusal(error, ctx.provider.name);
    if (refused) throw refused;
    return { ok: false, error: describeFailure(error), secretsRedacted };
  }
}

/**
 * Sends one pack and settles each of its files: entries that check out resolve at once; a file whose entry
 * is missing or unusable is asked again alone; if the answer is unusable as a whole, every file is.
 */
export async function sendPack(ctx: LlmContext, pack: PendingFile[]): Promise<void> {
  if (pack.length === 1) return askAlone(ctx, pack[0] as PendingFile);
  const paths = pack.map((p) => p.part.path);
  let entries: Map<string, unknown>;
  try {
    entries = await askModel(ctx, buildProfileRequest(ctx.shared, pack.map((p) => p.part)), (value) => ctx.answerFormat.entries(value, paths), { retryInvalid: false, files: pack.length });
  } catch (error) {
    if (!(error instanceof InvalidAnswerError) || ctx.signal.aborted) {
      for (const p of pack) p.reject(error);
      return;
    }
    await Promise.all(pack.map((p) => askAlone(ctx, p)));
    return;
  }
  const again: PendingFile[] = [];
  for (const p of pack) {
    const raw = entries.get(p.part.path);
    const answer = raw === undefined ? 'no entry' : checkEntry(ctx, p, raw, pack);
    if (typeof answer === 'string') again.push(p);
    else {
      await ctx.saveRaw?.(p.part.path, JSON.stringify(raw));
      p.resolve(answer);
    }
  }
  await Promise.all(again.map((p) => askAlone(ctx, p)));
}

/** One file in a request of its own, retried under the run's policy until its answer checks out. */
async function askAlone(ctx: LlmContext, p: PendingFile): Promise<void> {
  try {
    let rawEntry: unknown;
    const answer = await askModel(ctx, buildProfileRequest(ctx.shared, [p.part]), (value) => {
      const entry = soleEntry(ctx.answerFormat, value, p.part.path);
      if (typeof entry === 'string') return entry;
      rawEntry = entry.raw;
      return checkEntry(ctx, p, rawEntry);
    });
    await ctx.saveRaw?.(p.part.path, JSON.stringify(rawEntry));
    p.resolve(answer);
  } catch (error) {
    p.reject(error);
  }
}

/**
 * The entry of an answer to a request for one part (live, or from a batch): alone, the one entry is this
 * part's whatever path it names. A string says why there is none.
 */
export function soleEntry(format: ProfileAnswerFormat, value: unknown, path: string): { raw: unknown } | string {
  const entries = format.entries(value, [path]);
  if (typeof entries === 'string') return entries;
  const files = (value as { files: unknown[] }).files;
  const raw = entries.get(path) ?? (files.length === 1 ? files[0] : undefined);
  return raw === undefined ? `files: no entry for ${path}` : { raw };
}

/**
 * One file's entry, checked on its own. Symbol names are matched leniently and renamed to the scope path
 * they name; descriptions of symbols the file does not have are dropped. In a pack, an entry that describes
 * several symbols, none of this file's but some of another file's, was written about that file: it is asked
 * again alone. Alone, there is no other file to mistake it for, so what remains of it is kept.
 */
function checkEntry(ctx: LlmContext, p: PendingFile, raw: unknown, pack: readonly PendingFile[] = []): ProfileAnswer | string {
  const answer = ctx.answerFormat.parse(raw);
  if (typeof answer === 'string') return answer;
  const matcher = new SymbolMatcher(p.symbols);
  const mine: ProfileAnswer['descriptions'] = [];
  for (const d of answer.descriptions) {
    const paths = matcher.match(d.name);
    if (paths.length > 0) mine.push({ name: paths.length === 1 ? (paths[0] as string) : d.name, description: d.description });
  }
  if (mine.length === 0 && answer.descriptions.length >= 2 && pack.length > 1) {
    const others = pack.filter((o) => o !== p).map((o) => new SymbolMatcher(o.symbols));
    if (answer.descriptions.some((d) => others.some((m) => m.match(d.name).length > 0))) return `the entry for ${p.part.path} describes another file's symbols`;
  }
  return { ...answer, descriptions: mine };
}

function describeFailure(error: unknown): string {
  const status = statusOf(error);
  return `llm_error: ${status ? `${status} ` : ''}${firstLine(errorMessage(error))}`;
}

export function isProfileAnswer(value: unknown): value is ProfileAnswer {
  const v = value as Partial<ProfileAnswer> | null;
  return (
    typeof v === 'object' && v !== null &&
    typeof v.file_type === 'string' && typeof v.summary === 'string' &&
    Array.isArray(v.key_concepts) && Array.isArray(v.relationships) && Array.isArray(v.descriptions)
  );
}
