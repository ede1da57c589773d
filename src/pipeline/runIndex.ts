/**
 * The orchestrator: the only place that knows the order of the stages.
 *
 *   walk -> (pre-filter) -> reuse -> classify -> extract -> profile -> relate -> concepts -> write
 *
 * `runIndex` streams: each finished entry goes to a fragment file and the index is assembled from those and
 * the previous index's bytes (indexAssembly.ts). `indexRepository` keeps the entries and returns the index.
 *
 * Side effects (file reads, git, the clock, the event sink) come in as parameters with real defaults.
 */
import { setMaxListeners } from 'node:events';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { defaultWorkerCount, ExtractorPool } from '../extract/extractorPool.js';
import { preferFastStartup } from '../extract/parser.js';
import { detectLanguage } from '../extract/languages.js';
import type { RepoIndex } from '../index/types.js';
import { AbortedError } from '../shared/errors.js';
import { STATIC_RUN, type RunFacts } from './buildIndex.js';
import { emptyLlmStats } from '../llm/ask.js';
import { answerContext } from './llmProfile.js';
import { llmContext, type LlmSession } from './llmSession.js';
import { prefilterFiles } from './prefilter.js';
import type { ReadFile } from '../extract/classify.js';
import { ignoreEvents, type EventSink } from './events.js';
import { profileFile, skippedSummary } from './profile.js';
import { MemoryEntries, type EntrySink, type IndexFacts } from './entries.js';
import { StreamedEntries, type RunState } from './indexAssembly.js';
import { preferCompactHeap } from './heap.js';
import { filesDigest, inShard, profileSettings, shardInfo, type Shard } from './shard.js';
import { loadPreviousIndex } from './previousIndex.js';
import { entryShape, repoIdentity, reuseStage, type ProfileKind, type ReuseFigures } from './reuse.js';
import type { WalkedFile } from '../extract/walkedFile.js';
import { runGit, walkRepository, type GitRunner } from './walk.js';
import { indexPathFor, jsonStyle, writeRunReports, type WrittenIndex, type WrittenRepo } from './writeIndex.js';

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
}

/** What profiling a repository knows besides its entries, which went to the entry sink. */
interface ProfiledRepository {
  facts: IndexFacts;
  state: RunState;
  reuse: ReuseFigures;
}

/** Profiles a repository and returns its index, writing nothing: every file is extracted. */
export async function indexRepository(repoPath: string, options: IndexRepoOptions): Promise<RepoIndex> {
  const entries = new MemoryEntries();
  const { facts } = await profileRepository(repoPath, options, entries, null);
  return entries.build(facts, options.now ?? Date.now);
}

/**
 * Indexes a repository into `indexFile`, taking the unchanged entries of the index already there (unless
 * `previousIndex` is null), and writes the reuse state beside it. Entries go to disk as they finish: memory
 * holds a few facts per file, not the profiles. An interrupted run leaves the previous index as it was.
 */
export async function indexRepositoryToFile(
  repoPath: string,
  indexFile: string,
  options: IndexRepoOptions & { previousIndex: string | null },
): Promise<{ index: WrittenIndex; reuse: ReuseFigures; summaryRanges: Float64Array }> {
  const entries = await StreamedEntries.create(indexFile, jsonStyle(options.config));
  try {
    const { facts, state, reuse } = await profileRepository(repoPath, options, entries, options.previousIndex);
    const { index, summaryRanges } = await entries.write(facts, options.now ?? Date.now, state, options.config.output.include_metadata);
    return { index, reuse, summaryRanges };
  } finally {
    await entries.dispose();
  }
}

/** walk -> (pre-filter) -> reuse -> classify -> extract -> profile, each finished entry handed to `entries`. */
async function profileRepository(
  repoPath: string,
  options: IndexRepoOptions,
  entries: EntrySink,
  previousIndex: string | null,
): Promise<ProfiledRepository> {
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
  const shape = entryShape(config, llm ? JSON.stringify([llm.provider.name, llm.provider.model, llm.prompts.version, answerContext({ config, targetStructure: llm.targetStructure, focus: llm.focus })]) : null);
  // The previous run's state is read while the repository is walked.
  const previous = previousIndex ? { file: previousIndex, loaded: loadPreviousIndex(previousIndex, shape) } : null;
  let previousTaken = false;

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
    const wanted = (filePath: string): ProfileKind => (!llm ? 'static' : chosen && !chosen.has(filePath) ? 'unselected' : 'llm');
    const repoFiles = walked.files.map((f) => f.path);
    const repoFilesDigest = filesDigest(repoFiles);
    const reuse = await reuseStage({
      root,
      files: ownFiles,
      repoFiles,
      repoFilesDigest,
      source: walked.source,
      previous,
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
    entries.takeFrom(reuse.previous);
    previousTaken = true;
    // Threads and the wasm compiler are chosen for the files left to extract, not for the repository's size.
    if (reuse.toExtract.length < FAST_STARTUP_MAX_FILES) preferFastStartup();
    extractors.setRepository(repoFiles, goModule, { classify, keepContent: llm !== null }, reuse.toExtract.length);
    let fatalError: unknown = null;

    for (const file of ownOutside) {
      await entries.addFresh({ summary: skippedSummary(file, 'symlink_outside_repo', 'symbolic link points outside the repository; not followed'), relationships: [], record: null });
      emit({ type: 'file_done', repo: repoName, path: file.path, status: 'skipped', cached: false, reason: 'symlink_outside_repo' });
    }
    for (const entry of reuse.reused) {
      await entries.addReused(entry);
      emit({ type: 'file_done', repo: repoName, path: entry.file.path, status: entry.from.facts.status, cached: true });
    }

    let parsed = 0;
    const profileOne = async (file: WalkedFile): Promise<void> => {
      const done = await profileFile(file, extractors, context, chosen, (error) => {
        fatalError ??= error;
        fatal.abort(error);
      });
      if (!done || signal.aborted) return;
      const { summary, cached } = done;
      await entries.addFresh({
        summary,
        relationships: done.relationships,
        terms: done.terms,
        record: { file, blob: reuse.blobs.get(file.path) ?? null, imports: done.rawImports },
      });
      if (summary.status !== 'skipped' && detectLanguage(file.path).grammar) parsed++;
      emit({ type: 'file_done', repo: repoName, path: file.path, status: summary.status, cached, ...(summary.reason ? { reason: summary.reason } : {}) });
    };
    // The run's limiter of files in flight: that many runners taking files from one queue, so files waiting
    // cost nothing (a task queued per file is a closure and promises per file, for the whole run).
    const queue = reuse.toExtract.values();
    const runner = async (): Promise<void> => {
      for (const file of queue) {
        if (signal.aborted) return;
        await profileOne(file);
      }
    };
    await Promise.all(Array.from({ length: limiterSize(config, llm, extractors.threads) }, runner));
    if (fatalError) throw fatalError;
    if (signal.aborted) throw new AbortedError('interrupted: profiles finished so far are cached; run again to resume');

    const run = runFacts(llm, stats, candidates.length, chosen?.size ?? candidates.length);
    const walkedPaths = [...walked.files, ...walked.outside].map((f) => f.path);
    return {
      facts: {
        repoName,
        repoPath: root,
        config,
        configFile: options.configFile ?? null,
        gitCommit: walked.gitCommit,
        gitDirty: walked.gitDirty,
        excludedByRule: walked.excludedByRule,
        ...(shard ? { shard: shardInfo(shard, walkedPaths, profileSettings(config, run)) } : {}),
        startedAt: started,
        run,
      },
      state: { startedAt: started, shape, repo: await identity, goModule, walkedDigest: repoFilesDigest },
      reuse: { ...reuse.stats, reused: reuse.reused.length, extracted: reuse.toExtract.length, parsed },
    };
  } finally {
    if (ownsExtractors) await extractors.close();
    // A run that failed before the reuse stage handed the previous index on closes it here.
    if (previous && !previousTaken) await previous.loaded.then((loaded) => (loaded.ok ? loaded.previous.close() : undefined), () => undefined);
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
 * every finished repository; the run reports are written last. Sets the process's heap policy (heap.ts).
 */
export async function runIndex(repoPaths: readonly string[], options: RunIndexOptions): Promise<RunIndexResult> {
  preferCompactHeap();
  const extractors = options.extractors ?? createExtractors(options.config, options.readFile);
  const emit = options.onEvent ?? ignoreEvents;
  const written: WrittenRepo[] = [];
  const names = new Set<string>();
  try {
    for (const repoPath of repoPaths) {
      const outputPath = indexPathFor(options.outDir, options.config, path.basename(path.resolve(repoPath)), options.shard);
      const { index, reuse, summaryRanges } = await indexRepositoryToFile(repoPath, outputPath, { ...options, extractors, previousIndex: options.reuse === false ? null : outputPath });
      if (names.has(index.repo_name)) {
        emit({ type: 'warning', message: `two repositories are named ${index.repo_name}; the later index replaces the earlier one` });
      }
      names.add(index.repo_name);
      if (index.analysis_metadata.files_by_status.ok === 0) {
        emit({ type: 'warning', message: `${index.repo_name}: no file could be profiled (${index.total_files} candidate files)` });
      }
      written.push({ index, outputPath, reuse, summaryRanges });
      emit({ type: 'repo_done', repo: index.repo_name, outputPath });
    }
  } finally {
    if (!options.extractors) await extractors.close();
  }
  const reports = await writeRunReports(written, options.outDir, options.config, options.configFile ?? null);
  return { written, reports };
}
