/**
 * The orchestrator: the only place that knows the order of the stages.
 *
 *   walk -> (pre-filter) -> reuse -> classify -> extract -> profile -> relate -> write
 *
 * Side effects (file reads, git, the clock, the event sink) come in as parameters with real defaults.
 */
import { setMaxListeners } from 'node:events';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import type { Config } from '../config/schema.js';
import { defaultWorkerCount, ExtractorPool } from '../extract/extractorPool.js';
import { preferFastStartup } from '../extract/parser.js';
import { detectLanguage } from '../extract/languages.js';
import { candidateTermsOf, chooseConcepts } from '../extract/staticProfile.js';
import { WordCache } from '../extract/wordCache.js';
import type { FileRelationship, FileSummary, RepoIndex } from '../index/types.js';
import { AbortedError } from '../shared/errors.js';
import { STATIC_RUN, type RunFacts } from './buildIndex.js';
import { answerContext, emptyLlmStats } from './llmProfile.js';
import { llmContext, type LlmSession } from './llmSession.js';
import { prefilterFiles } from './prefilter.js';
import type { ReadFile } from '../extract/classify.js';
import { ignoreEvents, type EventSink } from './events.js';
import { profileFile, skippedSummary } from './profile.js';
import { buildRepoIndex } from './buildIndex.js';
import { inShard, profileSettings, shardInfo, type Shard } from './shard.js';
import { entryShape, repoIdentity, reuseStage, type ProfileKind, type ReuseStats } from './reuse.js';
import { saveReuseState, type FileRecord, type ReuseState } from './reuseState.js';
import { runGit, walkRepository, type GitRunner } from './walk.js';
import { indexPathFor, writeRepoIndexWithDigest, writeRunReports, type WrittenRepo } from './writeIndex.js';

/** Below this many files a run is dominated by compiling grammars, not by parsing: see preferFastStartup. */
const FAST_STARTUP_MAX_FILES = 2000;

export interface IndexRepoOptions {
  config: Config;
  configFile?: string | null;
  onEvent?: EventSink;
  signal?: AbortSignal;
  /** Extraction workers shared across the repositories of one run. */
  extractors?: ExtractorPool;
  readFile?: ReadFile;
  git?: GitRunner;
  now?: () => number;
  /** Model profiles; without a session every profile is static. */
  llm?: LlmSession | null;
  /** Profile only this shard's files (a partial index for `coderag merge`). */
  shard?: Shard | null;
  /** The index a previous run wrote for this repository: its unchanged entries are reused. */
  previousIndex?: string | null;
}

/** What a run did besides its index: the files it reused, read and parsed. */
export interface ReuseFigures extends ReuseStats {
  reused: number;
  /** Files sent to extraction (read unless their name or size ruled them out). */
  extracted: number;
  /** Extracted files a grammar parsed. */
  parsed: number;
}

export interface IndexedRepository {
  index: RepoIndex;
  /** What the next run needs to reuse this index's entries. */
  state: ReuseState;
  reuse: ReuseFigures;
}

export async function indexRepository(repoPath: string, options: IndexRepoOptions): Promise<RepoIndex> {
  return (await indexRepositoryWithState(repoPath, options)).index;
}

export async function indexRepositoryWithState(repoPath: string, options: IndexRepoOptions): Promise<IndexedRepository> {
  const { config } = options;
  const llm = options.llm ?? null;
  // One signal for the run: the caller's (Ctrl+C), or ours when the provider refuses us outright.
  const fatal = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, fatal.signal]) : fatal.signal;
  // Every request in flight, and every wait between retries, listens to this one signal for as long as it lasts.
  setMaxListeners(0, signal);
  const emit = options.onEvent ?? ignoreEvents;
  const now = options.now ?? Date.now;
  const started = now();
  const repoName = path.basename(path.resolve(repoPath));
  const ownsExtractors = !options.extractors;
  const extractors = options.extractors ?? createExtractors(config, options.readFile);

  const git = options.git ?? runGit;

  try {
    const walked = await walkRepository(
      repoPath,
      {
        supportedExtensions: config.file_analysis.supported_extensions,
        skipDirectories: config.file_analysis.skip_directories,
        respectGitignore: config.file_analysis.respect_gitignore,
      },
      git,
    );
    // A shard profiles its own files but resolves imports against the whole repository's.
    const shard = options.shard ?? null;
    const ownFiles = shard ? walked.files.filter((f) => inShard(f.path, shard)) : walked.files;
    const ownOutside = shard ? walked.outside.filter((f) => inShard(f.path, shard)) : walked.outside;
    emit({ type: 'repo_start', repo: repoName, files: ownFiles.length + ownOutside.length });

    const root = path.resolve(repoPath);
    // Asked of git while the pre-filter and the previous index are read.
    const identity = repoIdentity(root, walked.source, git);
    const goModule = await readGoModule(path.join(repoPath, 'go.mod'));
    const classify = { maxFileSize: config.file_analysis.max_file_size, skipGenerated: config.file_analysis.skip_generated };
    const stats = emptyLlmStats();
    const context = llm ? llmContext(llm, config, stats, signal, repoName) : null;
    const candidates = ownFiles.map((f) => f.path);
    let chosen: Set<string> | null = null;
    if (llm && llm.prefilter) {
      if (llm.targetStructure) chosen = await prefilterFiles(candidates, { ...llm, targetStructure: llm.targetStructure, config, stats, signal, emit, repo: repoName });
      else emit({ type: 'warning', message: 'pre-filtering needs a target structure (--target-structure); every file is profiled' });
    }
    const shape = entryShape(config, llm ? JSON.stringify([llm.provider.name, llm.provider.model, llm.prompts.version, answerContext({ config, targetStructure: llm.targetStructure, focus: llm.focus })]) : null);
    const wanted = (filePath: string): ProfileKind => (!llm ? 'static' : chosen && !chosen.has(filePath) ? 'unselected' : 'llm');
    const reuse = await reuseStage({
      root,
      files: ownFiles,
      source: walked.source,
      previousIndex: options.previousIndex ?? null,
      shape,
      repo: await identity,
      goModule,
      wanted,
      classify,
      git,
      emit,
      repoName,
      ...(options.readFile ? { readFile: options.readFile } : {}),
    });
    // Threads and the wasm compiler are chosen for the files left to extract, not for the repository's size.
    if (reuse.toExtract.length < FAST_STARTUP_MAX_FILES) preferFastStartup();
    extractors.setRepository(walked.files.map((f) => f.path), goModule, { classify, keepContent: llm !== null }, reuse.toExtract.length);
    const records: FileRecord[] = [];
    const relationships: FileRelationship[] = [];
    let fatalError: unknown = null;
    const limit = pLimit(limiterSize(config, llm, extractors.threads));
    const summaries: FileSummary[] = [];

    for (const file of ownOutside) {
      summaries.push(skippedSummary(file, 'symlink_outside_repo', 'symbolic link points outside the repository; not followed'));
      emit({ type: 'file_done', repo: repoName, path: file.path, status: 'skipped', cached: false, reason: 'symlink_outside_repo' });
    }
    for (const entry of reuse.reused) {
      summaries.push(entry.summary);
      relationships.push(...entry.relationships);
      records.push(entry.record);
      emit({ type: 'file_done', repo: repoName, path: entry.summary.file_path, status: entry.summary.status, cached: true });
    }

    let parsed = 0;
    await Promise.all(
      reuse.toExtract.map((file) =>
        limit(async () => {
          if (signal.aborted) return;
          const done = await profileFile(file, extractors, context, chosen, (error) => {
            fatalError ??= error;
            fatal.abort(error);
          });
          if (!done || signal.aborted) return;
          const { summary, cached } = done;
          relationships.push(...done.relationships);
          summaries.push(summary);
          records.push({ path: file.path, mtimeMs: file.mtimeMs, size: file.size, blob: reuse.blobs.get(file.path) ?? null, hash: summary.content_hash, imports: done.rawImports });
          if (summary.status !== 'skipped' && detectLanguage(file.path).grammar) parsed++;
          emit({ type: 'file_done', repo: repoName, path: file.path, status: summary.status, cached, ...(summary.reason ? { reason: summary.reason } : {}) });
        }),
      ),
    );
    if (fatalError) throw fatalError;
    if (signal.aborted) throw new AbortedError('interrupted: profiles finished so far are cached; run again to resume');

    // Concepts are chosen against the whole repository; candidate terms recorded last run are taken as they are.
    const recordOf = new Map(records.map((r) => [r.path, r]));
    const words = new WordCache();
    chooseConcepts(summaries, words, (summary) => {
      const record = recordOf.get(summary.file_path);
      if (record?.terms) return record.terms;
      const terms = candidateTermsOf(summary, words);
      if (record) record.terms = terms;
      return terms;
    });

    const run = runFacts(llm, stats, candidates.length, chosen?.size ?? candidates.length);
    const walkedPaths = [...walked.files, ...walked.outside].map((f) => f.path);
    const index = buildRepoIndex({
      repoName,
      repoPath: root,
      summaries,
      relationships,
      config,
      configFile: options.configFile ?? null,
      gitCommit: walked.gitCommit,
      gitDirty: walked.gitDirty,
      excludedByRule: walked.excludedByRule,
      ...(shard ? { shard: shardInfo(shard, walkedPaths, profileSettings(config, run)) } : {}),
      startedAt: started,
      finishedAt: now(),
      run,
    });
    records.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return {
      index,
      state: { startedAt: started, shape, repo: await identity, goModule, records },
      reuse: { ...reuse.stats, reused: reuse.reused.length, extracted: reuse.toExtract.length, parsed },
    };
  } finally {
    if (ownsExtractors) await extractors.close();
  }
}

function runFacts(llm: LlmSession | null, stats: ReturnType<typeof emptyLlmStats>, before: number, after: number): RunFacts {
  if (!llm) return { ...STATIC_RUN, prefilter: { enabled: false, before, after: before } };
  return {
    provider: llm.provider.name,
    model: llm.provider.model,
    promptVersion: llm.prompts.version,
    focus: llm.focus,
    targetStructure: llm.targetStructure,
    prefilter: { enabled: llm.prefilter && llm.targetStructure !== null, before, after },
    tokenUsage: { prompt_tokens: stats.prompt_tokens, completion_tokens: stats.completion_tokens, cached_prompt_tokens: stats.cached_prompt_tokens },
    llmCalls: stats.calls,
    retries: stats.retries,
    cacheHits: stats.cache_hits,
    secretsRedacted: stats.secrets_redacted,
  };
}

/**
 * The run's one limiter of files in flight. With a model, requests in flight are the LLM scheduler's to
 * bound; files in flight are enough to fill a pack for each of its slots. Without one the work is parsing,
 * and each extraction thread needs a few files queued to never wait for the next.
 */
function limiterSize(config: Config, llm: LlmSession | null, threads: number): number {
  if (!config.performance.enable_concurrent_analysis) return 1;
  const configured = config.performance.max_concurrent_files;
  return llm ? llm.filesInFlight : Math.max(configured, threads * 8);
}

export function createExtractors(config: Config, readFile?: ReadFile): ExtractorPool {
  return new ExtractorPool(config.performance.parse_workers ?? defaultWorkerCount(), readFile);
}

export async function readGoModule(goMod: string): Promise<string | null> {
  try {
    return /^module\s+(\S+)/m.exec(await readFile(goMod, 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}


export interface RunIndexOptions extends IndexRepoOptions {
  outDir: string;
  /** Reuse the unchanged entries of the index already in `outDir` (default); false indexes every file again. */
  reuse?: boolean;
}

export interface RunIndexResult {
  written: WrittenRepo[];
  reports: string[];
}

/**
 * Indexes each repository in turn and writes its index as soon as it is done, so an interrupted run keeps
 * every finished repository; the run reports are written last.
 */
export async function runIndex(repoPaths: readonly string[], options: RunIndexOptions): Promise<RunIndexResult> {
  const extractors = options.extractors ?? createExtractors(options.config, options.readFile);
  const emit = options.onEvent ?? ignoreEvents;
  const written: WrittenRepo[] = [];
  const names = new Set<string>();
  try {
    for (const repoPath of repoPaths) {
      const previousIndex = options.reuse === false ? null : indexPathFor(options.outDir, options.config, path.basename(path.resolve(repoPath)), options.shard);
      const { index, state, reuse } = await indexRepositoryWithState(repoPath, { ...options, extractors, previousIndex });
      if (names.has(index.repo_name)) {
        emit({ type: 'warning', message: `two repositories are named ${index.repo_name}; the later index replaces the earlier one` });
      }
      names.add(index.repo_name);
      if (index.analysis_metadata.files_by_status.ok === 0) {
        emit({ type: 'warning', message: `${index.repo_name}: no file could be profiled (${index.total_files} candidate files)` });
      }
      const { file: outputPath, sha256 } = await writeRepoIndexWithDigest(index, options.outDir, options.config);
      await saveReuseState(outputPath, sha256, state);
      written.push({ index, outputPath, reuse });
      emit({ type: 'repo_done', repo: index.repo_name, outputPath });
    }
  } finally {
    if (!options.extractors) await extractors.close();
  }
  const reports = await writeRunReports(written, options.outDir, options.config, options.configFile ?? null);
  return { written, reports };
}
