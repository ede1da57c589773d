/**
 * Reuse: the stage between walk and extract that takes entries from the previous index instead of
 * recomputing them. A file's previous entry is taken whole when, in this order,
 *   1. its path, mtime and size match the previous run's record (nothing is read),
 *   2. inside a git work tree, its blob id from `git ls-files --stage` matches a recorded one (a fresh clone
 *      with new mtimes reads nothing; files that differ from the git index are left to step 3),
 *   3. its content hash matches a recorded one (the file is read, never parsed: renames and copies).
 * and the entry is still what a full run would write: it was shaped by the same extraction (and model
 * settings, for model profiles), its status does not depend on the moment (failures are retried), and its
 * imports resolve to the same files against today's file list. Anything else goes on to extraction.
 *
 * The previous index is ignored, with a warning, when it is corrupt, of another schema or of another
 * repository; the run then rebuilds it.
 */
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import type { Config } from '../config/schema.js';
import { importStyleOf, resolveImports, RepoFileSet } from '../extract/imports.js';
import { detectLanguage } from '../extract/languages.js';
import { candidateTermsOf } from '../extract/staticProfile.js';
import { detectRole } from '../extract/role.js';
import { SCHEMA_VERSION, type FileRelationship, type FileSummary, type RepoIndex, type SkipReason } from '../index/types.js';
import { repoIndexProblem } from '../index/serialize.js';
import { contentHash } from '../shared/hash.js';
import { VERSION } from '../shared/version.js';
import { classifyFile, generatedReason, isSecretFileName, type ClassifyOptions, type ReadFile } from '../extract/classify.js';
import type { EventSink } from './events.js';
import { isoDate } from './profile.js';
import { loadReuseState, sha256, type EntryShape, type FileRecord, type RepoIdentity } from './reuseState.js';
import type { GitRunner, WalkedFile } from './walk.js';

/**
 * Bumped whenever `extract/` changes what it produces for the same text, so entries it shaped are
 * recomputed rather than silently kept.
 */
export const EXTRACT_VERSION = 4;

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
  files: readonly WalkedFile[];
  source: 'git' | 'filesystem';
  /** The index file the previous run wrote; null or absent means a run from scratch. */
  previousIndex: string | null;
  shape: EntryShape;
  repo: RepoIdentity;
  goModule: string | null;
  /** How this run profiles a path, so an entry profiled otherwise is recomputed. */
  wanted: (filePath: string) => ProfileKind;
  classify: ClassifyOptions;
  git: GitRunner;
  emit: EventSink;
  repoName: string;
  readFile?: ReadFile;
}

export interface ReusedEntry {
  summary: FileSummary;
  relationships: FileRelationship[];
  record: FileRecord;
}

export interface ReuseStats {
  byMtime: number;
  byBlob: number;
  byHash: number;
  /** Files read to compute their hash (step 3). */
  hashed: number;
}

export interface ReuseResult {
  reused: ReusedEntry[];
  toExtract: WalkedFile[];
  /** Blob ids of tracked files whose work tree matches the git index, for the records of this run. */
  blobs: ReadonlyMap<string, string>;
  stats: ReuseStats;
}

/**
 * A file modified this close before the previous run started may have been modified again within the same
 * mtime tick after it was read (FAT and HFS+ keep 1-2 s): its mtime proves nothing, its blob or hash does.
 */
const RACY_MS = 2000;

/** Statuses that follow from the file's name, size and bytes alone, so they hold as long as those do. */
const STABLE_SKIPS: ReadonlySet<SkipReason> = new Set(['too_large', 'binary', 'not_utf8', 'generated', 'secret_file', 'empty']);

export async function reuseStage(input: ReuseInput): Promise<ReuseResult> {
  const stats: ReuseStats = { byMtime: 0, byBlob: 0, byHash: 0, hashed: 0 };
  const gitBlobs = () => (input.source === 'git' ? cleanBlobs(input.root, input.git) : Promise.resolve(new Map<string, string>()));
  const previous = input.previousIndex ? await loadPrevious(input.previousIndex, input) : null;
  if (!previous) return { reused: [], toExtract: [...input.files], blobs: await gitBlobs(), stats };

  const { records, summaries, relationships } = previous;
  const byBlob = new Map<string, string>();
  const byHash = new Map<string, string>();
  for (const record of records.values()) {
    if (record.blob) byBlob.set(record.blob, record.path);
    if (record.hash) byHash.set(record.hash, record.path);
  }
  const fileSetChanged =
    previous.goModule !== input.goModule || records.size !== input.files.length || input.files.some((f) => !records.has(f.path));
  let fileSet: RepoFileSet | null = null;
  const currentFiles = (): RepoFileSet => {
    if (!fileSet) {
      fileSet = new RepoFileSet(input.files.map((f) => f.path));
      fileSet.goModule = input.goModule;
    }
    return fileSet;
  };

  /** `blob` is the file's blob id today, when known; an entry taken by mtime keeps the one it had. */
  const take = (file: WalkedFile, from: string, blob: string | null): ReusedEntry | null => {
    const summary = summaries.get(from);
    const record = records.get(from);
    if (!summary || !record) return null;
    if (!stillValid(file, from, summary, input, previous.modelShapeMatches)) return null;
    const moved = from !== file.path;
    if ((moved || fileSetChanged) && summary.status === 'ok' && !sameImports(file.path, summary, record, currentFiles())) return null;
    const reused: FileSummary = { ...summary, file_path: file.path, last_modified: isoDate(file.mtimeMs), size_bytes: file.size };
    if (summary.profile_source === 'static') reused.key_concepts = [];
    const { terms, ...identity } = record;
    return {
      summary: reused,
      relationships: summary.profile_source === 'llm' ? (relationships.get(from) ?? []) : [],
      // Candidate terms include words of the path: a moved entry's are derived again.
      record: { ...identity, path: file.path, mtimeMs: file.mtimeMs, size: file.size, blob, ...(terms && !moved ? { terms } : {}) },
    };
  };

  const reused: ReusedEntry[] = [];
  const toExtract: WalkedFile[] = [];
  const moved: WalkedFile[] = [];
  for (const file of input.files) {
    const record = records.get(file.path);
    if (record && record.mtimeMs === file.mtimeMs && record.size === file.size && record.mtimeMs < previous.startedAt - RACY_MS) {
      const entry = take(file, file.path, record.blob);
      if (entry) {
        stats.byMtime++;
        reused.push(entry);
      } else toExtract.push(file);
    } else moved.push(file);
  }
  // Git is asked only when some file's mtime moved, or some file is extracted again and needs its blob id.
  const blobs = moved.length > 0 || toExtract.length > 0 ? await gitBlobs() : new Map<string, string>();
  // When every recorded content came with its blob id, a blob id seen nowhere is content seen nowhere.
  const blobsCoverRecords = [...records.values()].every((r) => !r.hash || r.blob);
  const toHash: WalkedFile[] = [];
  for (const file of moved) {
    const blob = blobs.get(file.path);
    const sameBlob = blob === undefined ? undefined : records.get(file.path)?.blob === blob ? file.path : byBlob.get(blob);
    const entry = sameBlob === undefined ? null : take(file, sameBlob, blob ?? null);
    if (entry) {
      stats.byBlob++;
      reused.push(entry);
    } else if (blob !== undefined && sameBlob === undefined && blobsCoverRecords) toExtract.push(file);
    else toHash.push(file);
  }

  const limit = pLimit(8);
  const hashed = await Promise.all(
    toHash.map((file) =>
      limit(async () => {
        if (isSecretFileName(file.path) || file.size > input.classify.maxFileSize) return null;
        const classified = await classifyFile(file, input.classify, input.readFile);
        stats.hashed++;
        if (!classified.ok) return null;
        const hash = contentHash(classified.content);
        const from = records.get(file.path)?.hash === hash ? file.path : byHash.get(hash);
        return from === undefined ? null : take(file, from, blobs.get(file.path) ?? null);
      }),
    ),
  );
  hashed.forEach((entry, i) => {
    if (entry) {
      stats.byHash++;
      reused.push(entry);
    } else toExtract.push(toHash[i] as WalkedFile);
  });
  input.emit({
    type: 'info',
    message: `${input.repoName}: ${reused.length} of ${input.files.length} entries reused (${stats.byMtime} by mtime and size, ${stats.byBlob} by git blob, ${stats.byHash} by content hash); ${toExtract.length} to extract`,
  });
  return { reused, toExtract, blobs, stats };
}

/** Whether a previous entry is what this run would write for `file`, apart from its path-free imports. */
function stillValid(file: WalkedFile, from: string, summary: FileSummary, input: ReuseInput, modelShapeMatches: boolean): boolean {
  if (summary.status === 'failed') return false;
  if (summary.status === 'skipped') return from === file.path && STABLE_SKIPS.has(summary.reason as SkipReason);
  if (summary.reason?.startsWith('parse_error')) return false;
  const kind: ProfileKind = summary.profile_source === 'llm' ? 'llm' : summary.reason === 'not selected by the pre-filter' ? 'unselected' : 'static';
  if (kind !== input.wanted(file.path)) return false;
  if (kind === 'llm' && !modelShapeMatches) return false;
  if (from === file.path) return true;
  // A renamed or copied file keeps its entry only when nothing its new path decides has changed (its concepts
  // are chosen again from the entry, new path included). A model's entry is recomputed, from the answer cache.
  return (
    kind === 'static' &&
    detectLanguage(file.path).name === summary.language &&
    detectRole(file.path) === summary.role &&
    path.posix.extname(file.path).toLowerCase() === path.posix.extname(from).toLowerCase() &&
    !isSecretFileName(file.path) &&
    !(input.classify.skipGenerated && generatedReason(file.path, ''))
  );
}

/** Whether the file's imports, as written, still resolve to what its entry says against today's files. */
function sameImports(filePath: string, summary: FileSummary, record: FileRecord, files: RepoFileSet): boolean {
  const language = detectLanguage(filePath);
  const resolved = resolveImports(filePath, record.imports, importStyleOf(language.grammar ?? language.name), files);
  return sameList(resolved.dependencies, summary.dependencies) && sameList(resolved.local, summary.local_imports);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

interface PreviousRun {
  records: Map<string, FileRecord>;
  summaries: Map<string, FileSummary>;
  relationships: Map<string, FileRelationship[]>;
  goModule: string | null;
  startedAt: number;
  modelShapeMatches: boolean;
}

/** The previous index and its state, or null (with a warning when the index was there but unusable). */
async function loadPrevious(indexFile: string, input: ReuseInput): Promise<PreviousRun | null> {
  const ignore = (why: string): null => {
    input.emit({ type: 'warning', message: `${input.repoName}: previous index ${indexFile} ${why}; ignored, every file is indexed again` });
    return null;
  };
  let bytes: Buffer;
  try {
    bytes = await readFile(indexFile);
  } catch {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return ignore('is corrupt (not valid JSON)');
  }
  const problem = repoIndexProblem(parsed);
  if (problem) return ignore(`is corrupt (${problem})`);
  const index = parsed as RepoIndex;
  const schema = index.analysis_metadata?.schema_version;
  if (schema !== undefined && schema !== SCHEMA_VERSION) return ignore(`has schema version ${String(schema)}, not ${SCHEMA_VERSION}`);
  const state = await loadReuseState(indexFile, sha256(bytes));
  if (!state.ok) {
    input.emit({ type: 'info', message: `${input.repoName}: previous index ${indexFile}: ${state.problem}; every file is indexed again` });
    return null;
  }
  if (state.shape.schemaVersion !== SCHEMA_VERSION) return ignore(`has schema version ${state.shape.schemaVersion}, not ${SCHEMA_VERSION}`);
  if (!sameRepository(state.repo, input.repo)) return ignore(`describes another repository (${state.repo.origin ?? state.repo.path})`);
  if (state.shape.static !== input.shape.static) {
    input.emit({ type: 'info', message: `${input.repoName}: extraction changed since the previous index (tool, parser, grammars or options); every file is indexed again` });
    return null;
  }
  const summaries = new Map<string, FileSummary>();
  for (const summary of index.file_summaries) summaries.set(summary.file_path, summary);
  const relationships = new Map<string, FileRelationship[]>();
  for (const relationship of index.relationships ?? []) {
    const list = relationships.get(relationship.repo_file_path);
    if (list) list.push(relationship);
    else relationships.set(relationship.repo_file_path, [relationship]);
  }
  return { records: state.records, summaries, relationships, goModule: state.goModule, startedAt: state.startedAt, modelShapeMatches: state.shape.model === input.shape.model };
}

/** The same folder, or clones of one origin (a local origin may be the other's folder). */
export function sameRepository(a: RepoIdentity, b: RepoIdentity): boolean {
  if (a.path === b.path) return true;
  if (a.origin && b.origin) return a.origin === b.origin;
  return localOrigin(a.origin) === b.path || localOrigin(b.origin) === a.path;
}

function localOrigin(origin: string | null): string | null {
  if (origin === null) return null;
  const local = origin.startsWith('file://') ? origin.slice('file://'.length) : origin;
  return path.isAbsolute(local) ? path.resolve(local) : null;
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
