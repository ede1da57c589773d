/**
 * The orchestrator: the only place that knows the order of the stages.
 *
 *   walk -> (pre-filter) -> reuse -> extract -> profile -> write index -> write search packs
 *   history (git log, beside the walk) -----------^
 *
 * `profileRepository` runs the stages up to the profiles, `indexRepositoryToFile` writes the index (and, in a
 * run from scratch, its search pack) and `runIndex` the run reports and the other search packs. `runIndex`
 * streams: each finished entry goes to a fragment file and the index is assembled from those and the previous
 * index's bytes (indexAssembly.ts).
 * `indexRepository` keeps the entries and returns the index, writing nothing.
 *
 * Side effects (file reads, git, the clock, the event sink) come in as parameters with real defaults.
 */
import { setMaxListeners } from 'node:events';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Config } from '../config/schema.js';
import type { ClassifyOptions, ReadFile } from '../extract/classify.js';
import { defaultWorkerCount, ExtractorPool } from '../extract/extractorPool.js';
import { preferFastStartup } from '../extract/parser.js';
import type { WalkedFile } from '../extract/walkedFile.js';
import type { RepoIndex } from '../index/types.js';
import { emptyLlmStats, type LlmStats } from '../llm/ask.js';
import { isoDate, STATIC_RUN, type RunFacts } from './buildIndex.js';
import { ignoreEvents, type EventSink } from './events.js';
import { preferCompactHeap } from './heap.js';
import { answerContext } from './llmProfile.js';
import {
  entryShape,
  loadPreviousIndex,
  MemoryEntries,
  repoIdentity,
  reuseStage,
  StreamedEntries,
  stateFileFor,
  type EntryShape,
  type EntrySink,
  type Relate,
  type IndexFacts,
  type ProfileKind,
  type LoadedPrevious,
  type RecordedHistory,
  type ReusedEntry,
  type RunState,
} from './incremental/incremental.js';
import { llmContext, type LlmSession } from './llmSession.js';
import { readHistory, subjectsByFile, type HistorySource } from './history.js';
import { prefilterFiles } from './prefilter.js';
import { targetFiles } from '../llm/targetPaths.js';
import { profileFiles, skippedSummary } from './profile.js';
import { writeIndexPack } from './packUpdate.js';
import { writeSearchPacks, type PackWay } from './searchPacks.js';
import { filesDigest, inShard, profileSettings, shardInfo, type Shard } from './shard.js';
import { runGit, walkRepository, type GitRunner, type WalkOptions, type WalkResult } from './walk.js';
import { jsonStyle, prepareOutputDir, writeRunReports, type ReuseFigures, type WrittenRepo } from './writeIndex.js';
import { resolveRepositories } from './repository.js';
import { readTrailingMetadata } from '../search/freshness.js';
import { isIndexFileName } from '../search/load.js';
import { packPathFor } from '../search/pack.js';

/** Below this many files a run is dominated by compiling grammars, not by parsing: see preferFastStartup. */
const FAST_STARTUP_MAX_FILES = 2000;

/** Files the reuse stage reads at once to hash them (moved files whose blob id does not settle them). */
const HASH_READS_IN_FLIGHT = 8;

export interface IndexRepositoryOptions {
  config: Config;
  configFile?: string | null;
  onEvent?: EventSink;
  signal?: AbortSignal;
  /** Extraction workers shared across the repositories of one run. */
  extractors?: ExtractorPool;
  /**
   * Close the shared `extractors` once this repository's files are extracted (the last repository of a run), so
   * its index and search pack are written without the threads' memory.
   */
  releaseExtractors?: boolean;
  /** The limiter of the reuse stage's reads, shared across the repositories of one run. */
  hashLimit?: LimitFunction;
  readFile?: ReadFile;
  /** How a folder outside git is listed (walk.ts); Node's file system by default. */
  walkFs?: WalkOptions['fs'];
  git?: GitRunner;
  now?: () => number;
  /** Model profiles; without a session every profile is static. */
  llm?: LlmSession | null;
  /**
   * A target structure's text to relate files to without a model (relate.ts), after every file is profiled. With a
   * model session, its own target structure is used and this is not read.
   */
  targetStructure?: string | null;
  /** Profile only this shard's files (a partial index for `coderag merge`). */
  shard?: Shard | null;
  /** Where the indexes go (default `paths.output_dir`): left out of the walk, as the cache folder is. */
  outDir?: string;
  /**
   * Where commit history is read (history.ts): by default the repository's own HEAD; a tree exported without its
   * `.git` (`git archive`) may name the git directory and revision it came from. `history.enabled` still decides.
   */
  historySource?: HistorySource;
  /** The repository's name, which names its index (repository.ts); its folder's name by default. */
  repoName?: string;
  /** The normalised `origin` remote the name came from, recorded in the index. */
  remote?: string | null;
}

/** What profiling a repository knows besides its entries, which went to the entry sink. */
interface ProfiledRepository {
  facts: IndexFacts;
  state: RunState;
  reuse: ReuseFigures;
}

/** Profiles a repository and returns its index, writing nothing: every file is extracted. */
export async function indexRepository(repoPath: string, options: IndexRepositoryOptions): Promise<RepoIndex> {
  const entries = new MemoryEntries();
  const { facts } = await profileRepository(repoPath, options, entries, null);
  return entries.build(facts, options.now ?? Date.now);
}

/**
 * Indexes a repository into `indexFile`, taking the unchanged entries of the index already there (unless
 * `previousIndex` is null), and writes the reuse state beside it. Entries go to disk as they finish: memory
 * holds a few facts per file, not the profiles. An interrupted run leaves the previous index as it was.
 * With `searchPack`, a run that takes nothing from a previous index also writes the index's search pack,
 * its profiles tokenised as they were made (`packWritten`); other runs leave the pack to writeSearchPacks.
 */
export async function indexRepositoryToFile(
  repoPath: string,
  indexFile: string,
  options: IndexRepositoryOptions & { previousIndex: string | null; searchPack?: boolean },
): Promise<Omit<WrittenRepo, 'outputPath'> & { summaryRanges: Float64Array; reuse: ReuseFigures }> {
  const entries = await StreamedEntries.create(indexFile, jsonStyle(options.config), options.searchPack ? (options.repoName ?? path.basename(path.resolve(repoPath))) : null);
  try {
    const { facts, state, reuse } = await profileRepository(repoPath, options, entries, options.previousIndex);
    const { searchPack, ...assembled } = await entries.write(facts, options.now ?? Date.now, state, options.config.output.include_metadata);
    const packWritten = searchPack ? await writeIndexPack(indexFile, assembled.index, searchPack.fieldIndex, searchPack.ranges) : false;
    return { ...assembled, reuse, ...(packWritten ? { packWritten } : {}) };
  } finally {
    await entries.dispose();
  }
}

/**
 * walk -> (pre-filter) -> reuse -> extract -> profile, each finished entry handed to `entries`. Writing the
 * index and its search pack follow in indexRepositoryToFile and runIndex.
 */
async function profileRepository(
  repoPath: string,
  options: IndexRepositoryOptions,
  entries: EntrySink,
  previousIndex: string | null,
): Promise<ProfiledRepository> {
  const run = startRepository(repoPath, options);
  // The previous run's state is read while the repository is walked.
  const previous = previousIndex ? { file: previousIndex, loaded: loadPreviousIndex(previousIndex, run.shape) } : null;
  let previousTaken = false;
  try {
    const history = historyStage(run, previous?.loaded ?? null);
    const walked = await walkStage(repoPath, run);
    // Asked of git while the pre-filter and the previous index are read.
    const identity = repoIdentity(run.root, walked.source, run.git);
    const goModule = await readGoModule(path.join(repoPath, 'go.mod'));
    const context = run.llm ? llmContext(run.llm, run.config, run.stats, run.signal, run.repoName) : null;
    const chosen = await prefilterStage(walked.own.map((f) => f.path), run);
    const reuse = await reuseStage({
      ...reuseSettings(run, chosen),
      files: walked.own,
      repoFiles: walked.repoFiles,
      repoFilesDigest: walked.repoFilesDigest,
      source: walked.source,
      previous,
      repo: await identity,
      goModule,
    });
    entries.takeFrom(reuse.previous);
    previousTaken = true;
    const { read, note, shallow } = await history;
    if (note) run.emit({ type: 'info', message: `${run.repoName}: no commit history (${note})` });
    if (shallow) {
      run.emit({ type: 'warning', message: `${run.repoName}: a shallow clone: history holds only the commits fetched (${read?.read.commits.length ?? 0}); fetch the history to index it (git fetch --unshallow, or fetch-depth: 0 in actions/checkout)` });
    }
    entries.useHistory(read ? subjectsByFile(read.read.commits, read.subjects) : new Map());
    const relate = await staticRelate(run, walked.shard !== null);
    if (relate) entries.relateWith(relate);
    entries.extracting?.(reuse.toExtract.length);
    // Threads and the wasm compiler are chosen for the files left to extract, not for the repository's size.
    if (reuse.toExtract.length < FAST_STARTUP_MAX_FILES) preferFastStartup();
    run.extractors.setRepository(walked.repoFiles, goModule, { classify: run.classify, keepContent: run.llm !== null }, reuse.toExtract.length);
    await addUnextracted(entries, walked.ownOutside, reuse.reused, run);
    const parsed = await profileFiles(reuse.toExtract, {
      ...run,
      context,
      chosen,
      blobs: reuse.blobs,
      entries,
      inFlight: limiterSize(run.config, run.llm, run.extractors.threads),
    });
    const state: RunState = { startedAt: run.started, shape: run.shape, repo: await identity, goModule, walkedDigest: walked.repoFilesDigest, history: read };
    const from = reuse.previous && reuse.previous.header.repo.path !== run.root ? { from: reuse.previous.header.repo.path } : {};
    return {
      facts: { ...indexFacts(run, walked, chosen, relate !== null), ...(shallow ? { historyShallow: true } : {}), ...(options.remote ? { remote: options.remote } : {}) },
      state,
      reuse: { ...reuse.stats, reused: reuse.reused.length, extracted: reuse.toExtract.length, parsed, ...from },
    };
  } finally {
    if (run.ownsExtractors || options.releaseExtractors) await run.extractors.close();
    // A run that failed before the reuse stage handed the previous index on closes it here.
    if (previous && !previousTaken) await previous.loaded.then((loaded) => (loaded.ok ? loaded.previous.close() : undefined), () => undefined);
  }
}

/** What the stages of one repository's run share. */
interface RepoRun {
  options: IndexRepositoryOptions;
  config: Config;
  llm: LlmSession | null;
  repoName: string;
  root: string;
  /** One signal for the run: the caller's (Ctrl+C), or `fatal`'s when the provider refuses us outright. */
  signal: AbortSignal;
  fatal: AbortController;
  emit: EventSink;
  started: number;
  git: GitRunner;
  /** What an entry's reuse depends on: extraction versions and, with a model, what shapes its answers. */
  shape: EntryShape;
  classify: ClassifyOptions;
  hashLimit: LimitFunction;
  extractors: ExtractorPool;
  ownsExtractors: boolean;
  stats: LlmStats;
}

function startRepository(repoPath: string, options: IndexRepositoryOptions): RepoRun {
  const { config } = options;
  const llm = options.llm ?? null;
  const fatal = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, fatal.signal]) : fatal.signal;
  // Every request in flight, and every wait between retries, listens to this one signal for as long as it lasts.
  setMaxListeners(0, signal);
  const modelKey = llm ? JSON.stringify([llm.provider.name, llm.provider.model, llm.prompts.version, answerContext({ config, targetStructure: llm.targetStructure, focus: llm.focus })]) : null;
  return {
    options,
    config,
    llm,
    repoName: options.repoName ?? path.basename(path.resolve(repoPath)),
    root: path.resolve(repoPath),
    signal,
    fatal,
    emit: options.onEvent ?? ignoreEvents,
    started: (options.now ?? Date.now)(),
    git: options.git ?? runGit,
    shape: entryShape(config, modelKey),
    classify: { maxFileSize: config.file_analysis.max_file_size, skipGenerated: config.file_analysis.skip_generated },
    hashLimit: options.hashLimit ?? pLimit(HASH_READS_IN_FLIGHT),
    extractors: options.extractors ?? createExtractors(config, options.readFile),
    ownsExtractors: !options.extractors,
    stats: emptyLlmStats(),
  };
}

/** The walk's answer, with the files this run profiles: a shard's own, or all. */
interface Walked extends WalkResult {
  shard: Shard | null;
  own: WalkedFile[];
  ownOutside: WalkedFile[];
  /** Every file the walk listed, in path order: what imports resolve against, in every shard. */
  repoFiles: string[];
  repoFilesDigest: string;
}

async function walkStage(repoPath: string, run: RepoRun): Promise<Walked> {
  const { file_analysis } = run.config;
  const walked = await walkRepository(
    repoPath,
    {
      supportedExtensions: file_analysis.supported_extensions,
      skipDirectories: file_analysis.skip_directories,
      respectGitignore: file_analysis.respect_gitignore,
      skipBuildOutput: file_analysis.skip_generated,
      ownOutput: [run.options.outDir ?? run.config.paths.output_dir, run.config.paths.cache_dir],
      ...(run.options.walkFs ? { fs: run.options.walkFs } : {}),
    },
    run.git,
  );
  // A shard profiles its own files but resolves imports against the whole repository's.
  const shard = run.options.shard ?? null;
  const own = shard ? walked.files.filter((f) => inShard(f.path, shard)) : walked.files;
  const ownOutside = shard ? walked.outside.filter((f) => inShard(f.path, shard)) : walked.outside;
  run.emit({ type: 'repo_start', repo_name: run.repoName, files: own.length + ownOutside.length });
  const repoFiles = walked.files.map((f) => f.path);
  return { ...walked, shard, own, ownOutside, repoFiles, repoFilesDigest: filesDigest(repoFiles) };
}

/**
 * The commits whose subjects become the entries' `history`, read beside the walk: only those since the previous
 * run's HEAD when it can (history.ts). Null when history is off or there is none (then a note says why).
 */
async function historyStage(run: RepoRun, previous: Promise<LoadedPrevious> | null): Promise<{ read: RecordedHistory | null; note?: string; shallow?: boolean }> {
  const { enabled, max_subjects, max_commits, max_age_days } = run.config.history;
  if (!enabled) return { read: null };
  const loaded = previous ? await previous : null;
  const recorded = loaded?.ok ? loaded.previous.header.history : null;
  const source = run.options.historySource ?? { workTree: run.root };
  const settings = { maxSubjects: max_subjects, maxCommits: max_commits, maxAgeDays: max_age_days };
  const read = await readHistory(source, settings, recorded?.read ?? null, run.git);
  if (read.state === null) return { read: null, note: read.reason };
  // A shallow clone that holds `history.max_commits` commits or more (a bounded deepen) has all the history a run reads.
  const shallow = 'workTree' in source && read.state.commits.length < max_commits && (await isShallow(source.workTree, run.git));
  return { read: { subjects: max_subjects, read: read.state }, ...(shallow ? { shallow } : {}) };
}

/** Whether a work tree is a shallow clone (git 2.15 and later answer; an older git's answer is taken as no). */
async function isShallow(workTree: string, git: GitRunner): Promise<boolean> {
  return git(['rev-parse', '--is-shallow-repository'], workTree).then((out) => out.trim() === 'true', () => false);
}

/**
 * The relate stage of a run without a model that has a target structure: its files searched for among the
 * profiles (relate.ts). A shard's partial index gets none: each shard would rank only its own files; the
 * merged index of a complete set is where relationships belong, so the run says so.
 */
async function staticRelate(run: RepoRun, sharded: boolean): Promise<Relate | null> {
  const text = run.options.targetStructure;
  if (run.llm || !text) return null;
  if (sharded) {
    run.emit({ type: 'warning', message: `${run.repoName}: relationships are not inferred for a shard's partial index without a model` });
    return null;
  }
  const targets = targetFiles(text).list();
  if (targets.length === 0) {
    run.emit({ type: 'warning', message: 'the target structure names no file: no relationships are inferred' });
    return null;
  }
  // Loaded here: the search ranker it relates with is no part of the runs that relate nothing, nor of their start-up.
  const { relateStatically } = await import('./relate.js');
  return (summaries) => relateStatically(run.repoName, summaries, targets, run.config.relationships);
}

/** With `--prefilter` and a target structure, the files the model chose to profile; null when all are. */
async function prefilterStage(candidates: string[], run: RepoRun): Promise<Set<string> | null> {
  const { llm } = run;
  if (!llm || !llm.prefilter) return null;
  if (!llm.targetStructure) {
    run.emit({ type: 'warning', message: 'pre-filtering needs a target structure (--target-structure); every file is profiled' });
    return null;
  }
  return prefilterFiles(candidates, { ...llm, targetStructure: llm.targetStructure, config: run.config, stats: run.stats, signal: run.signal, emit: run.emit, repo: run.repoName });
}

/** What the reuse stage takes from the run, besides the walk and the previous index. */
function reuseSettings(run: RepoRun, chosen: ReadonlySet<string> | null) {
  const { llm, options } = run;
  return {
    root: run.root,
    shape: run.shape,
    wanted: (filePath: string): ProfileKind => (!llm ? 'static' : chosen && !chosen.has(filePath) ? 'unselected' : 'llm'),
    classify: run.classify,
    limit: run.hashLimit,
    git: run.git,
    emit: run.emit,
    repoName: run.repoName,
    ...(options.readFile ? { readFile: options.readFile } : {}),
  };
}

/** Entries that need no extraction: symlinks out of the repository (recorded, never read) and reused entries. */
async function addUnextracted(entries: EntrySink, outside: readonly WalkedFile[], reused: readonly ReusedEntry[], run: RepoRun): Promise<void> {
  for (const file of outside) {
    await entries.addFresh({ summary: skippedSummary(file, 'symlink_outside_repo', 'symbolic link points outside the repository; not followed'), relationships: [], record: null });
    run.emit({ type: 'file_done', repo_name: run.repoName, file_path: file.path, status: 'skipped', cached: false, reason: 'symlink_outside_repo' });
  }
  for (const entry of reused) {
    const { file, reresolved } = entry;
    if (reresolved) {
      // Written again like a fresh entry: its imports resolve otherwise, the rest of its profile is as it was.
      const summary = { ...reresolved.summary, last_modified: isoDate(file.mtimeMs), size_bytes: file.size };
      await entries.addFresh({ summary, relationships: [], terms: reresolved.terms, record: { file, blob: entry.blob, imports: reresolved.imports, exports: reresolved.exports } });
    } else await entries.addReused(entry);
    run.emit({ type: 'file_done', repo_name: run.repoName, file_path: file.path, status: entry.from.facts.status, cached: true });
  }
}

/** Everything the index says besides its entries; `relatedStatically`: whether the relate stage ran without a model. */
function indexFacts(run: RepoRun, walked: Walked, chosen: ReadonlySet<string> | null, relatedStatically: boolean): IndexFacts {
  const candidates = walked.own.length;
  const related = relatedStatically ? run.options.targetStructure ?? null : null;
  const facts = runFacts(run.llm, run.stats, candidates, chosen?.size ?? candidates, related);
  const walkedPaths = [...walked.files, ...walked.outside].map((f) => f.path);
  return {
    repoName: run.repoName,
    repoPath: run.root,
    config: run.config,
    configFile: run.options.configFile ?? null,
    gitCommit: walked.gitCommit,
    gitDirty: walked.gitDirty,
    excludedByRule: walked.excludedByRule,
    ownOutput: walked.ownOutput,
    unreadableFolders: walked.unreadable,
    skippedFolders: walked.skippedFolders,
    ...(walked.shard ? { shard: shardInfo(walked.shard, walkedPaths, profileSettings(run.config, facts)) } : {}),
    startedAt: run.started,
    run: facts,
  };
}

/** `staticTarget`: the target structure the files were related to without a model, if they were (staticRelate). */
function runFacts(llm: LlmSession | null, stats: LlmStats, before: number, after: number, staticTarget: string | null): RunFacts {
  if (!llm) {
    return { ...STATIC_RUN, prefilter: { enabled: false, before, after: before }, targetStructure: staticTarget };
  }
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
    answeredFiles: stats.answered_files,
    relationshipsOutside: stats.relationships_outside,
  };
}

/**
 * The profile stage's limit of files in flight (the reuse stage's reads are done by the time it starts, so
 * one limit is in force at a time). With a model, requests in flight are the LLM scheduler's to bound; files in flight are enough to fill a pack for each of its slots. Without one the work is parsing,
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


export interface RunIndexOptions extends Omit<IndexRepositoryOptions, 'repoName' | 'remote'> {
  outDir: string;
  /** `--name`: the name of the one repository indexed; by default its remote's, else its folder's (repository.ts). */
  name?: string;
  /** Reuse the unchanged entries of the index already in `outDir` (default); false indexes every file again. */
  reuse?: boolean;
  /** Write each index's search pack and the folder's combined pack (default); a shard's partial index gets none. */
  searchPacks?: boolean;
}

export interface RunIndexResult {
  written: WrittenRepo[];
  reports: string[];
  /** How each index got its search pack, when packs were written (searchPacks.ts). */
  packs?: PackWay[];
}

/**
 * An index left in the output folder by the same commit from a folder that is gone (the repository was renamed
 * or moved) would answer every search beside the new one, each result twice: the run names it.
 */
function warnOfLeftBehindIndexes(outDir: string, written: readonly WrittenRepo[], emit: EventSink): void {
  const commits = new Map(written.filter((w) => w.index.analysis_metadata.git_commit).map((w) => [w.index.analysis_metadata.git_commit, w]));
  if (commits.size === 0) return;
  const ours = new Set(written.map((w) => path.resolve(w.outputPath)));
  let names: string[];
  try {
    names = readdirSync(outDir).filter(isIndexFileName);
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.resolve(outDir, name);
    if (ours.has(file)) continue;
    const meta = readTrailingMetadata(file);
    const twin = meta?.git_commit ? commits.get(meta.git_commit) : undefined;
    if (!meta || !twin || existsSync(meta.repo_path)) continue;
    emit({
      type: 'warning',
      message: `${name} was made from the same commit in ${meta.repo_path}, which is gone; if that folder became ${twin.index.repo_name}, searches of this folder answer from both indexes, each file twice: delete ${name}`,
    });
  }
}

/**
 * Indexes each repository in turn and writes its index as soon as it is done, so an interrupted run keeps
 * every finished repository; the run reports and then the search packs are written last. Sets the process's
 * heap policy (heap.ts).
 */
export async function runIndex(repoPaths: readonly string[], options: RunIndexOptions): Promise<RunIndexResult> {
  const targets = await resolveRepositories(repoPaths, { config: options.config, outDir: options.outDir, shard: options.shard ?? null, ...(options.name !== undefined ? { name: options.name } : {}), ...(options.git ? { git: options.git } : {}) });
  preferCompactHeap();
  await prepareOutputDir(options.outDir);
  const extractors = options.extractors ?? createExtractors(options.config, options.readFile);
  // The stages take turns: the reuse stage's reads are done before the profile stage's files start.
  const hashLimit = options.hashLimit ?? pLimit(HASH_READS_IN_FLIGHT);
  const emit = options.onEvent ?? ignoreEvents;
  const written: WrittenRepo[] = [];
  try {
    for (const [n, target] of targets.entries()) {
      const { repoPath, outputPath } = target;
      if (target.note) emit({ type: 'info', message: `${target.name}: ${target.note}` });
      const repo = await indexRepositoryToFile(repoPath, outputPath, {
        ...options,
        repoName: target.name,
        remote: target.remote,
        extractors,
        hashLimit,
        previousIndex: options.reuse === false ? null : target.previous,
        releaseExtractors: !options.extractors && n === targets.length - 1,
        // Partial indexes are never searched.
        searchPack: !options.shard && options.searchPacks !== false,
      });
      const { index } = repo;
      if (index.analysis_metadata.files_by_status.ok === 0) {
        emit({ type: 'warning', message: `${index.repo_name}: no file could be profiled (${index.total_files} candidate files)` });
      }
      written.push({ ...repo, outputPath });
      for (const old of target.replaces) {
        removeIndexFiles(old);
        emit({ type: 'info', message: `${index.repo_name}: ${path.basename(old)}, an index of this repository named after its folder, is replaced by ${path.basename(outputPath)}` });
      }
      emit({ type: 'repo_done', repo_name: index.repo_name, output_path: outputPath });
    }
  } finally {
    if (!options.extractors) await extractors.close();
  }
  const reports = await writeRunReports(written, options.outDir, options.config, options.configFile ?? null);
  // Partial indexes are never searched.
  if (options.shard || options.searchPacks === false) return { written, reports };
  warnOfLeftBehindIndexes(options.outDir, written, emit);
  return { written, reports, packs: await writeSearchPacks(written) };
}

/** An index, its reuse state and its search pack, removed (an index replaced by its repository's under a new name). */
function removeIndexFiles(indexFile: string): void {
  for (const file of [indexFile, stateFileFor(indexFile), packPathFor(indexFile)]) rmSync(file, { force: true });
}
