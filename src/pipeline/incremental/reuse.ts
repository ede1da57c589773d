/**
 * Reuse: the stage between walk and extract that takes entries from the previous index instead of
 * recomputing them. A file's previous entry is taken whole when, in this order,
 *   1. its path, mtime and size match the previous run's record (nothing is read),
 *   2. inside a git work tree, its blob id from `git ls-files --stage` matches a recorded one (a fresh clone
 *      with new mtimes reads nothing; files that differ from the git index are left to step 3),
 *   3. its content hash matches a recorded one (the file is read, never parsed: renames and copies).
 * and the entry is still what a full run would write: it was shaped by the same extraction (and model
 * settings, for model profiles), its status does not depend on the moment (failures are retried), and its
 * imports resolve to the same files against today's file list. A static entry whose imports now resolve
 * otherwise (a file it imports came, moved or went) is taken with them resolved again and its composed summary,
 * which lists them, composed again (`reresolved`): nothing else in it depends on the other files. Anything else
 * goes on to extraction.
 *
 * Nothing is parsed but the previous run's records (previousIndex.ts): an entry taken is a byte range of the
 * previous index, copied into the new one when it is written; a re-resolved one is read from it and written
 * again.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { LimitFunction } from 'p-limit';
import type { Config } from '../../config/schema.js';
import { importStyleOf, resolutionMayChange, resolveImports, RepoFileSet, type RawImport, type ResolutionMemo } from '../../extract/imports.js';
import { detectLanguage } from '../../extract/languages.js';
import { termsFromFlat, type TermList } from '../../extract/conceptTerms.js';
import { candidateTermsOf, withImportsResolved } from '../../extract/staticProfile.js';
import { detectRole } from '../../extract/role.js';
import { SCHEMA_VERSION, type FileSummary, type SkipReason } from '../../index/types.js';
import { contentHash } from '../../shared/hash.js';
import { VERSION } from '../../shared/version.js';
import { classifyFile, generatedReason, isSecretFileName, type ClassifyOptions, type ReadFile } from '../../extract/classify.js';
import type { EventSink } from '../events.js';
import { acceptPreviousIndex, type LoadedPrevious, type PreviousIndex } from './previousIndex.js';
import { importsDigest, sha256, type EntryShape, type RepoIdentity, type StoredRecord } from './reuseState.js';
import type { WalkedFile } from '../../extract/walkedFile.js';
import type { GitRunner } from '../walk.js';
import type { ReuseStats } from '../writeIndex.js';

/**
 * Bumped whenever `extract/` changes what it produces for the same text, so entries it shaped are
 * recomputed rather than silently kept.
 */
export const EXTRACT_VERSION = 14;

const require = createRequire(import.meta.url);

function packageVersion(name: string): string {
  try {
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** What shapes this run's entries. `modelKey` is everything in the answer cache's key but the content. */
export function entryShape(config: Config, modelKey: string | null): EntryShape {
  const extraction = {
    coderag: VERSION,
    extract: EXTRACT_VERSION,
    parser: packageVersion('web-tree-sitter'),
    grammars: packageVersion('tree-sitter-wasms'),
    // Candidate terms are kept between runs: a change to the function that derives them retires them.
    terms: sha256(candidateTermsOf.toString()),
    max_file_size: config.file_analysis.max_file_size,
    skip_generated: config.file_analysis.skip_generated,
  };
  return { schemaVersion: SCHEMA_VERSION, static: sha256(JSON.stringify(extraction)), model: modelKey === null ? null : sha256(modelKey) };
}

/** How an entry's meaning was written: by the parser, by the parser because the pre-filter passed it by, or by a model. */
export type ProfileKind = 'static' | 'unselected' | 'llm';

export interface ReuseInput {
  root: string;
  /** The files this run profiles (a shard's own). */
  files: readonly WalkedFile[];
  /** Every file the walk listed (in path order): what imports resolve against, in every shard. */
  repoFiles: readonly string[];
  /** `filesDigest(repoFiles)`, which the run also records in its state. */
  repoFilesDigest: string;
  source: 'git' | 'filesystem';
  /** The index file the previous run wrote, being loaded (`loadPreviousIndex`); null for a run from scratch. */
  previous: { file: string; loaded: Promise<LoadedPrevious> } | null;
  shape: EntryShape;
  repo: RepoIdentity;
  goModule: string | null;
  /** How this run profiles a path, so an entry profiled otherwise is recomputed. */
  wanted: (filePath: string) => ProfileKind;
  classify: ClassifyOptions;
  /** The limiter of the files read at once to hash them, created by the orchestrator. */
  limit: LimitFunction;
  git: GitRunner;
  emit: EventSink;
  repoName: string;
  readFile?: ReadFile;
}

/** A previous entry taken for a walked file. */
export interface ReusedEntry {
  file: WalkedFile;
  /** The record of the entry taken: the file's own, or that of the path it was copied or moved from. */
  from: StoredRecord;
  /** The file's blob id today, when known; an entry taken by mtime keeps the one it had. */
  blob: string | null;
  /**
   * Set for a static entry whose imports resolve otherwise than when it was written (a file it imports came,
   * moved or went): its profile with them resolved again, which is what extracting the file would give
   * (`withImportsResolved`), and what its new record keeps (imports as written, exports, candidate terms).
   */
  reresolved?: { summary: FileSummary; imports: RawImport[]; exports: string[]; terms: TermList };
}

export interface ReuseResult {
  reused: ReusedEntry[];
  toExtract: WalkedFile[];
  /** Blob ids of tracked files whose work tree matches the git index, for the records of this run. */
  blobs: ReadonlyMap<string, string>;
  stats: ReuseStats;
  /** The previous index the entries are taken from, open; the caller closes it. Null for a run from scratch. */
  previous: PreviousIndex | null;
}

/**
 * A file modified this close before the previous run started may have been modified again within the same
 * mtime tick after it was read (FAT and HFS+ keep 1-2 s): its mtime proves nothing, its blob or hash does.
 */
export const RACY_MS = 2000;

/** Statuses that follow from the file's name, size and bytes alone, so they hold as long as those do. */
const STABLE_SKIPS: ReadonlySet<string> = new Set<SkipReason>(['too_large', 'binary', 'not_utf8', 'generated', 'secret_file', 'empty']);

export async function reuseStage(input: ReuseInput): Promise<ReuseResult> {
  const stats: ReuseStats = { byMtime: 0, byBlob: 0, byHash: 0, hashed: 0, removed: 0, reresolved: 0 };
  // Asked of git at once when it will be needed, while the previous run's state is read.
  let blobsAsked: Promise<Map<string, string>> | null = null;
  const gitBlobs = () => (blobsAsked ??= input.source === 'git' ? cleanBlobs(input.root, input.git) : Promise.resolve(new Map<string, string>()));
  const previous = input.previous ? await acceptPreviousIndex(await input.previous.loaded, input.previous.file, input.repo, input.emit, input.repoName) : null;
  if (!previous) return { reused: [], toExtract: [...input.files], blobs: await gitBlobs(), stats, previous: null };
  try {
    const { reused, toExtract, blobs } = await takeEntries(input, previous, stats, gitBlobs);
    // The same walked list as last time (its digest) removed nothing.
    if (previous.walkedDigest !== input.repoFilesDigest) {
      const walked = new Set(input.repoFiles);
      for (const path of previous.records.keys()) if (!walked.has(path)) stats.removed++;
    }
    input.emit({
      type: 'info',
      message: `${input.repoName}: ${reused.length} of ${input.files.length} entries reused (${stats.byMtime} by mtime and size, ${stats.byBlob} by git blob, ${stats.byHash} by content hash)${stats.reresolved ? `, ${stats.reresolved} of them with their imports resolved again` : ''}; ${toExtract.length} to extract${stats.removed ? `, ${stats.removed} removed` : ''}`,
    });
    return { reused, toExtract, blobs, stats, previous };
  } catch (error) {
    await previous.close();
    throw error;
  }
}

async function takeEntries(
  input: ReuseInput,
  previous: PreviousIndex,
  stats: ReuseStats,
  gitBlobs: () => Promise<Map<string, string>>,
): Promise<{ reused: ReusedEntry[]; toExtract: WalkedFile[]; blobs: ReadonlyMap<string, string> }> {
  const { records } = previous;
  const byBlob = new Map<string, StoredRecord>();
  const byHash = new Map<string, StoredRecord>();
  for (const record of records.values()) {
    if (record.blob) byBlob.set(record.blob, record);
    if (record.hash) byHash.set(record.hash, record);
  }
  // Imports resolve against every file the walk lists, a shard's or not: when that list changed, every entry's
  // imports are checked again.
  const fileSetChanged = previous.goModule !== input.goModule || previous.walkedDigest !== input.repoFilesDigest;
  let fileSet: RepoFileSet | null = null;
  const currentFiles = (): RepoFileSet => {
    if (!fileSet) {
      fileSet = new RepoFileSet(input.repoFiles);
      fileSet.goModule = input.goModule;
    }
    return fileSet;
  };
  // Where files came or went, when the records list every file (not a shard's): imports that look nowhere near
  // those folders resolve as they did.
  const changedFolders = fileSetChanged && previous.goModule === input.goModule && input.files.length === input.repoFiles.length ? foldersChanged(records, input.files) : null;

  const memo: ResolutionMemo = new Map();
  const take = async (file: WalkedFile, from: StoredRecord | undefined, blob: string | null): Promise<ReusedEntry | null> => {
    if (!from || !stillValid(file, from, input, previous.modelShapeMatches)) return null;
    const moved = from.path !== file.path;
    if ((moved || fileSetChanged) && from.facts.status === 'ok') {
      const imports = await previous.details.imports(from);
      const style = importStyle(file.path);
      const unaffected = !moved && changedFolders !== null && !imports.some((raw) => resolutionMayChange(file.path, raw, style, changedFolders));
      if (!unaffected) {
        const resolved = resolveImports(file.path, imports, style, currentFiles(), memo);
        if (importsDigest(resolved.dependencies, resolved.local) !== from.facts.imports) {
          // A moved entry's path words are among its terms, and a model's answer may rest on its imports.
          const reresolved = moved || from.facts.source !== 'static' ? null : await resolvedAgain(previous, from, resolved);
          if (!reresolved) return null;
          stats.reresolved++;
          return { file, from, blob, reresolved: { ...reresolved, imports } };
        }
      }
    }
    return { file, from, blob };
  };

  const reused: ReusedEntry[] = [];
  const toExtract: WalkedFile[] = [];
  const unmoved: Array<[WalkedFile, StoredRecord]> = [];
  const moved: WalkedFile[] = [];
  // A date and size say nothing of another folder's file: there only blob ids and content hashes do.
  const sameFolder = previous.header.repo.path === input.root;
  for (const file of input.files) {
    const record = records.get(file.path);
    if (sameFolder && record && record.mtimeMs === file.mtimeMs && record.size === file.size && record.mtimeMs < previous.startedAt - RACY_MS) unmoved.push([file, record]);
    else moved.push(file);
  }
  // Git works out blob ids while the entries of files whose mtime held are checked.
  if (moved.length > 0) void gitBlobs();
  for (const [file, record] of unmoved) {
    const entry = await take(file, record, record.blob);
    if (entry) {
      stats.byMtime++;
      reused.push(entry);
    } else toExtract.push(file);
  }
  // Git is asked only when some file's mtime moved, or some file is extracted again and needs its blob id.
  const blobs = moved.length > 0 || toExtract.length > 0 ? await gitBlobs() : new Map<string, string>();
  // When every recorded content came with its blob id, a blob id seen nowhere is content seen nowhere.
  const blobsCoverRecords = [...records.values()].every((r) => !r.hash || r.blob);
  const toHash: WalkedFile[] = [];
  for (const file of moved) {
    const blob = blobs.get(file.path);
    const own = records.get(file.path);
    const sameBlob = blob === undefined ? undefined : own?.blob === blob ? own : byBlob.get(blob);
    const entry = sameBlob === undefined ? null : await take(file, sameBlob, blob ?? null);
    if (entry) {
      stats.byBlob++;
      reused.push(entry);
    } else if (blob !== undefined && sameBlob === undefined && blobsCoverRecords) toExtract.push(file);
    else toHash.push(file);
  }

  const { limit } = input;
  const hashes = await Promise.all(
    toHash.map((file) =>
      limit(async () => {
        if (isSecretFileName(file.path) || file.size > input.classify.maxFileSize) return null;
        const classified = await classifyFile(file, input.classify, input.readFile);
        stats.hashed++;
        return classified.ok ? contentHash(classified.content) : null;
      }),
    ),
  );
  for (const [i, file] of toHash.entries()) {
    const hash = hashes[i];
    const own = records.get(file.path);
    const from = hash ? (own?.hash === hash ? own : byHash.get(hash)) : undefined;
    const entry = await take(file, from, blobs.get(file.path) ?? null);
    if (entry) {
      stats.byHash++;
      reused.push(entry);
    } else toExtract.push(file);
  }
  return { reused, toExtract, blobs };
}

/** Whether a previous entry is what this run would write for `file`, apart from its path-free imports. */
function stillValid(file: WalkedFile, from: StoredRecord, input: ReuseInput, modelShapeMatches: boolean): boolean {
  const { status, reason, source } = from.facts;
  if (status === 'failed') return false;
  if (status === 'skipped') return from.path === file.path && reason !== null && STABLE_SKIPS.has(reason);
  // A static profile kept because a model's answer was unusable or a budget stopped the run is what a model run
  // made of the file: this run asks again, or writes the plain static profile.
  if (reason?.startsWith('parse_error') || reason?.startsWith('llm_unusable') || reason?.startsWith('budget_stop')) return false;
  const kind: ProfileKind = source === 'llm' ? 'llm' : reason === 'not selected by the pre-filter' ? 'unselected' : 'static';
  if (kind !== input.wanted(file.path)) return false;
  if (kind === 'llm' && !modelShapeMatches) return false;
  if (from.path === file.path) return true;
  // A renamed or copied file keeps its entry only when nothing its new path decides has changed (its concepts
  // are chosen again from the entry, new path included). A model's entry is recomputed, from the answer cache.
  // The entry's language and role are those of the path it was extracted under.
  return (
    kind === 'static' &&
    detectLanguage(file.path).name === detectLanguage(from.path).name &&
    detectRole(file.path) === detectRole(from.path) &&
    path.posix.extname(file.path).toLowerCase() === path.posix.extname(from.path).toLowerCase() &&
    !isSecretFileName(file.path) &&
    !(input.classify.skipGenerated && generatedReason(file.path, ''))
  );
}

/** The stored entry of `from` with its imports resolved as `resolved`; null when its record lacks what that takes. */
async function resolvedAgain(
  previous: PreviousIndex,
  from: StoredRecord,
  resolved: { dependencies: string[]; local: string[] },
): Promise<{ summary: FileSummary; exports: string[]; terms: TermList } | null> {
  try {
    const { exports, terms: flat } = await previous.details.detail(from);
    // A version-3 record has no exports; a damaged one may hold anything.
    if (!Array.isArray(exports) || !exports.every((name) => typeof name === 'string') || !Array.isArray(flat)) return null;
    const stored = JSON.parse((await previous.entries.read(from.place.start, from.place.end)).toString('utf8')) as FileSummary;
    const terms = termsFromFlat(flat);
    return { summary: withImportsResolved(stored, resolved, exports, terms), exports, terms };
  } catch {
    // A record or entry that does not read back: the file is extracted again.
    return null;
  }
}

function importStyle(filePath: string) {
  const language = detectLanguage(filePath);
  return importStyleOf(language.grammar ?? language.name);
}

/** The folders of the files added or removed since the previous run. */
function foldersChanged(records: ReadonlyMap<string, StoredRecord>, files: readonly WalkedFile[]): Set<string> {
  const folders = new Set<string>();
  const now = new Set<string>();
  for (const file of files) {
    now.add(file.path);
    if (!records.has(file.path)) folders.add(path.posix.dirname(file.path));
  }
  for (const recorded of records.keys()) if (!now.has(recorded)) folders.add(path.posix.dirname(recorded));
  return folders;
}

/** Blob ids of tracked files, minus those git sees as changed in the work tree (they are hashed instead). */
async function cleanBlobs(root: string, git: GitRunner): Promise<Map<string, string>> {
  const blobs = new Map<string, string>();
  try {
    const [staged, changed] = await Promise.all([
      git(['ls-files', '-z', '--stage'], root),
      git(['diff-files', '-z', '--name-only', '--relative'], root),
    ]);
    for (const line of staged.split('\0')) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const [mode, blob, stage] = line.slice(0, tab).split(' ');
      if (stage !== '0' || !blob || mode === '160000') continue;
      blobs.set(line.slice(tab + 1), blob);
    }
    for (const file of changed.split('\0')) if (file) blobs.delete(file);
  } catch {
    blobs.clear();
  }
  return blobs;
}

/** The repository's identity for a run: its folder and, in a git work tree, its origin remote. */
export async function repoIdentity(root: string, source: 'git' | 'filesystem', git: GitRunner): Promise<RepoIdentity> {
  if (source !== 'git') return { path: root, origin: null };
  try {
    return { path: root, origin: (await git(['config', '--get', 'remote.origin.url'], root)).trim() || null };
  } catch {
    return { path: root, origin: null };
  }
}
