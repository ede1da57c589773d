/**
 * Profile: one FileSummary per file. The static profile is complete on its own (facts from the parser,
 * meaning from doc comments and identifiers); a model, when configured, replaces the meaning and keeps the
 * facts. Skipped files get a summary that says why, in DeepCode's fields, so its readers show them sensibly.
 */
import type { ExtractorPool } from '../extract/extractorPool.js';
import type { FileRelationship, FileSummary, SkipReason } from '../index/types.js';
import { AbortedError, ProviderError } from '../shared/errors.js';
import type { EntrySink } from './incremental/incremental.js';
import type { EventSink } from './events.js';
import { profileWithLlm, type LlmContext } from './llmProfile.js';
import { applyAnswer } from './llmSession.js';
import { detectLanguage } from '../extract/languages.js';
import { detectRole, describeFileType } from '../extract/role.js';
import type { RawImport } from '../extract/imports.js';
import type { StaticFacts } from '../extract/staticProfile.js';
import type { WalkedFile } from '../extract/walkedFile.js';
import { isoDate } from './buildIndex.js';

/** A summary built from static facts alone; `key_concepts` are filled in once the whole repository is seen. */
export function staticSummary(file: WalkedFile, hash: string, facts: StaticFacts): FileSummary {
  const summary: FileSummary = {
    file_path: file.path,
    file_type: facts.file_type,
    main_functions: facts.main_functions,
    key_concepts: [],
    dependencies: facts.dependencies,
    summary: facts.summary,
    lines_of_code: facts.lines_of_code,
    last_modified: isoDate(file.mtimeMs),
    language: facts.language,
    role: facts.role,
    status: 'ok',
    profile_source: 'static',
    content_hash: hash,
    size_bytes: file.size,
    symbols: facts.symbols,
    local_imports: facts.local_imports,
    vocabulary: facts.vocabulary,
  };
  if (facts.parse_error) summary.reason = `parse_error: ${facts.parse_error}`;
  summary.summary_source = facts.summary_source;
  if (facts.title) summary.title = facts.title;
  return summary;
}

/**
 * The entry of a file that was not profiled: skipped for what it is (too large, binary, a secret…), or failed
 * when it could not be read, as a model answer that never came fails: listed on stderr, exit code 3, and
 * read again by the next run.
 */
export function skippedSummary(file: WalkedFile, reason: SkipReason, detail: string): FileSummary {
  const language = detectLanguage(file.path).name;
  const role = detectRole(file.path);
  const status = reason === 'unreadable' ? 'failed' : 'skipped';
  return {
    file_path: file.path,
    file_type: `${describeFileType(language, role)} (${status}: ${reason.replace(/_/g, ' ')})`,
    main_functions: [],
    key_concepts: [],
    dependencies: [],
    summary: status === 'failed' ? `File could not be read: ${detail}.` : `File skipped: ${detail}.`,
    lines_of_code: 0,
    last_modified: isoDate(file.mtimeMs),
    language,
    role,
    status,
    reason,
    profile_source: 'none',
    content_hash: '',
    size_bytes: file.size,
    symbols: [],
    local_imports: [],
  };
}

export interface ProfiledFile {
  summary: FileSummary;
  relationships: FileRelationship[];
  /** The import specifiers as written, recorded so a later run can re-resolve them without reading the file. */
  rawImports: RawImport[];
  /** The static profile's candidate concept terms, from the extraction thread; null for a file not extracted. */
  terms: Array<[string, number]> | null;
  /** The names a statically profiled file exports; null for other files. */
  exports: string[] | null;
  cached: boolean;
}

/**
 * One file through extract and profile: a skipped file, a static profile, or the model's meaning over the
 * parser's facts (failing back to the static profile, marked failed, with the reason; or, when the answers
 * stayed unusable, not failed, with the reason `llm_unusable: …`). A refusal of the
 * whole run (bad key, unknown model) goes to `onFatal` and answers null.
 */
export async function profileFile(
  file: WalkedFile,
  extractors: ExtractorPool,
  context: LlmContext | null,
  chosen: ReadonlySet<string> | null,
  onFatal: (error: ProviderError) => void,
): Promise<ProfiledFile | null> {
  const extracted = await extractors.run(file);
  if (!extracted.ok) return { summary: skippedSummary(file, extracted.reason, extracted.detail), relationships: [], rawImports: [], terms: null, exports: null, cached: false };
  const { facts } = extracted;
  const summary = staticSummary(file, extracted.hash, facts);
  const asStatic = (): ProfiledFile => ({ summary, relationships: [], rawImports: facts.raw_imports, terms: facts.terms, exports: facts.exports, cached: false });
  if (!context || extracted.content === undefined) return asStatic();
  if (chosen && !chosen.has(file.path)) {
    summary.reason = 'not selected by the pre-filter';
    return asStatic();
  }
  let result;
  try {
    result = await profileWithLlm(file, facts, extracted.content, extracted.hash, context);
  } catch (error) {
    // Only a refusal of the whole run or an interrupt gets here.
    if (error instanceof ProviderError) onFatal(error);
    return null;
  }
  if (result.secretsRedacted > 0) summary.secrets_redacted = result.secretsRedacted;
  if (!result.ok) {
    if (result.stopped) summary.reason = `budget_stop: ${result.error}`;
    // An answer that stayed unusable is no failure of the file: its static profile stands, the reason noted.
    else if (result.unusable) summary.reason = result.error;
    else {
      summary.status = 'failed';
      summary.reason = result.error;
    }
    return asStatic();
  }
  const applied = applyAnswer(summary, result.answer, context.targetFiles);
  context.stats.relationships_outside += applied.outside;
  return { summary, relationships: applied.relationships, rawImports: facts.raw_imports, terms: null, exports: null, cached: result.cached };
}

/** What the extract-and-profile stage takes from the run. */
export interface ProfileStage {
  extractors: ExtractorPool;
  context: LlmContext | null;
  /** The files the pre-filter chose, or null when it did not run. */
  chosen: ReadonlySet<string> | null;
  /** Git blob ids the reuse stage learnt, recorded with each fresh entry. */
  blobs: ReadonlyMap<string, string>;
  entries: EntrySink;
  /** The run's signal, and the controller that stops the run when the provider refuses it outright. */
  signal: AbortSignal;
  fatal: AbortController;
  emit: EventSink;
  repoName: string;
  /** Files in flight at once: the run's one limiter, sized by the orchestrator. */
  inFlight: number;
}

/**
 * Extracts and profiles `files`, `inFlight` at a time, handing each finished entry to `entries`. Throws the
 * provider's refusal of the whole run, or AbortedError when the run was stopped; answers how many files a
 * grammar parsed.
 */
export async function profileFiles(files: readonly WalkedFile[], stage: ProfileStage): Promise<number> {
  const { entries, signal, emit, repoName } = stage;
  let fatalError: unknown = null;
  let parsed = 0;
  const profileOne = async (file: WalkedFile): Promise<void> => {
    const done = await profileFile(file, stage.extractors, stage.context, stage.chosen, (error) => {
      fatalError ??= error;
      stage.fatal.abort(error);
    });
    if (!done || signal.aborted) return;
    const { summary, cached } = done;
    await entries.addFresh({
      summary,
      relationships: done.relationships,
      terms: done.terms,
      record: { file, blob: stage.blobs.get(file.path) ?? null, imports: done.rawImports, exports: done.exports },
    });
    if (summary.status !== 'skipped' && detectLanguage(file.path).grammar) parsed++;
    emit({ type: 'file_done', repo_name: repoName, file_path: file.path, status: summary.status, cached, ...(summary.reason ? { reason: summary.reason } : {}) });
  };
  // That many runners taking files from one queue, so files waiting cost nothing (a task queued per file is
  // a closure and promises per file, for the whole run).
  const queue = files.values();
  const runner = async (): Promise<void> => {
    for (const file of queue) {
      if (signal.aborted) return;
      await profileOne(file);
    }
  };
  await Promise.all(Array.from({ length: stage.inFlight }, runner));
  if (fatalError) throw fatalError;
  if (signal.aborted) throw new AbortedError('interrupted: profiles finished so far are cached; run again to resume');
  return parsed;
}
