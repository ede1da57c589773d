/**
 * The previous run's output for a repository, as the reuse stage takes it: its reuse state (the records), and
 * the index file itself, opened for its entries' bytes. Neither is parsed whole: the state says where each
 * entry is, and its digest and size say it describes the index beside it.
 *
 * Ignored, with a warning, when the index is corrupt or of another schema; ignored
 * with a note when only the state is missing or stale, or when extraction changed since. The run then
 * rebuilds the index.
 */
import { normalizeRemote } from '../../shared/gitRemote.js';
import { createHash } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { RangeReader } from '../../index/fileRanges.js';
import { DIGEST } from '../../shared/atomicFile.js';
import { repoIndexProblem, type JsonStyle } from '../../index/serialize.js';
import { SCHEMA_VERSION, type FileRelationship } from '../../index/types.js';
import type { EventSink } from '../events.js';
import { loadReuseState, type EntryShape, type RepoIdentity, type StateDetails, type StateHeader, type StoredRecord } from './reuseState.js';

export interface PreviousIndex {
  file: string;
  records: Map<string, StoredRecord>;
  /** Reads records' details (imports as written, candidate terms, exported names) from the state file. */
  details: StateDetails;
  /** Reads entries' bytes from the index file. */
  entries: RangeReader;
  goModule: string | null;
  /** A digest of every file the previous walk listed (`filesDigest`): what its imports resolved against. */
  walkedDigest: string;
  startedAt: number;
  modelShapeMatches: boolean;
  /** How its entries are written: copied as they are into an index of the same style, else written again. */
  style: JsonStyle;
  /** The index file's size and modification time when it was opened: what its search pack answers for. */
  source: { size: number; mtimeMs: number };
  /** What its state's header recorded of the run and the index: an index left as it stands keeps them. */
  header: Pick<StateHeader, 'index_digest' | 'index_bytes' | 'shape' | 'repo' | 'relationships' | 'history'>;
  /** The previous index's relationships, by the file they relate (read on first use). */
  relationships(): Promise<Map<string, FileRelationship[]>>;
  /** The document frequencies recorded with the previous index, as JSON (`DocumentFrequencies.toJson`). */
  frequencies(): Promise<Buffer>;
  /** Closes both files; again is a no-op. */
  close(): Promise<void>;
}

/**
 * The previous run's output as loaded, before it is checked against this repository: the index, or why there
 * is none to use (`warning` when the index itself is unusable, `note` when only its state is).
 */
export type LoadedPrevious = { ok: true; previous: PreviousIndex; repo: RepoIdentity } | { ok: false; warning?: string; note?: string };

/**
 * Reads the previous run's state and checks it against the index beside it, without the repository: this runs
 * while the repository is walked. `shape` is what shapes this run's entries.
 */
export async function loadPreviousIndex(indexFile: string, shape: EntryShape): Promise<LoadedPrevious> {
  // Never rejects: it runs unawaited beside the walk, and an unreadable previous index only means a full run.
  try {
    return await load(indexFile, shape);
  } catch (error) {
    return { ok: false, note: `it could not be read (${(error as Error).message})` };
  }
}

async function load(indexFile: string, shape: EntryShape): Promise<LoadedPrevious> {
  let size: number;
  let mtimeMs: number;
  try {
    ({ size, mtimeMs } = await stat(indexFile));
  } catch {
    return { ok: false };
  }
  const state = await loadReuseState(indexFile, async (header) =>
    header.index_bytes === size && (await fileDigest(indexFile)) === header.index_digest ? null : 'its reuse state describes another index',
  );
  if (!state.ok) {
    // Only an index no state vouches for is read whole, to say what is wrong with it.
    const problem = await indexProblem(indexFile);
    return problem ? { ok: false, warning: problem } : { ok: false, note: state.problem };
  }
  const { header, records, details, frequencies } = state;
  const refuse = async (answer: LoadedPrevious): Promise<LoadedPrevious> => {
    await details.close();
    return answer;
  };
  if (header.shape.schemaVersion !== SCHEMA_VERSION) return refuse({ ok: false, warning: `has schema version ${header.shape.schemaVersion}, not ${SCHEMA_VERSION}` });
  if (header.shape.static !== shape.static) return refuse({ ok: false, note: 'extraction changed since the previous index (tool, parser, grammars or options)' });
  let entries: RangeReader;
  try {
    entries = await RangeReader.open(indexFile);
  } catch (error) {
    // The index went between its stat and now: the state file opened for it is closed, not left behind.
    await details.close();
    throw error;
  }
  let relationships: Promise<Map<string, FileRelationship[]>> | null = null;
  let closed: Promise<void> | null = null;
  const previous: PreviousIndex = {
    file: indexFile,
    records,
    details,
    entries,
    goModule: header.go_module,
    walkedDigest: header.walked_digest,
    startedAt: header.started_ms,
    modelShapeMatches: header.shape.model === shape.model,
    style: header.style,
    source: { size, mtimeMs },
    header: { index_digest: header.index_digest, index_bytes: header.index_bytes, shape: header.shape, repo: header.repo, relationships: header.relationships, history: header.history ?? null },
    relationships: () => (relationships ??= readRelationships(entries, header.relationships)),
    // Copied: a read answers a window of the file that the next read reuses.
    frequencies: async () => Buffer.from(await details.range(frequencies)),
    close: () => (closed ??= Promise.all([details.close(), entries.close()]).then(() => undefined)),
  };
  return { ok: true, previous, repo: header.repo };
}

/**
 * The previous index, when it describes this repository; else null, with a warning or a note saying why every
 * file is indexed again (and the loaded index closed).
 */
export async function acceptPreviousIndex(loaded: LoadedPrevious, indexFile: string, repo: RepoIdentity, emit: EventSink, repoName: string): Promise<PreviousIndex | null> {
  if (loaded.ok && !sameRepository(loaded.repo, repo)) {
    // Every entry is keyed by what its file holds, so a fork's, a mirror's or another folder's index serves
    // as well; only the mtime shortcut needs the same folder, and the reuse stage uses it only there.
    const from = loaded.repo.origin ? `another clone, in ${loaded.repo.path} (${loaded.repo.origin})` : `another folder (${loaded.repo.path})`;
    emit({ type: 'info', message: `${repoName}: previous index ${indexFile} was made from ${from}; its entries are reused where a git blob or content hash matches` });
  }
  if (loaded.ok) return loaded.previous;
  if (loaded.warning) emit({ type: 'warning', message: `${repoName}: previous index ${indexFile} ${loaded.warning}; ignored, every file is indexed again` });
  if (loaded.note) emit({ type: 'info', message: `${repoName}: previous index ${indexFile}: ${loaded.note}; every file is indexed again` });
  return null;
}

async function readRelationships(entries: RangeReader, range: [number, number] | null): Promise<Map<string, FileRelationship[]>> {
  const byFile = new Map<string, FileRelationship[]>();
  if (!range) return byFile;
  // The range runs from the first element to the end of the last one.
  const list = JSON.parse(`[${(await entries.read(range[0], range[1])).toString('utf8')}]`) as FileRelationship[];
  for (const relationship of list) {
    const forFile = byFile.get(relationship.repo_file_path);
    if (forFile) forFile.push(relationship);
    else byFile.set(relationship.repo_file_path, [relationship]);
  }
  return byFile;
}

/** What is wrong with an index file, read whole: corrupt, or of another schema; null when nothing is. */
async function indexProblem(indexFile: string): Promise<string | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(indexFile, 'utf8'));
  } catch {
    return 'is corrupt (not valid JSON)';
  }
  const problem = repoIndexProblem(parsed);
  if (problem) return `is corrupt (${problem})`;
  const schema = (parsed as { analysis_metadata?: { schema_version?: unknown } }).analysis_metadata?.schema_version;
  if (schema !== undefined && schema !== SCHEMA_VERSION) return `has schema version ${String(schema)}, not ${SCHEMA_VERSION}`;
  return null;
}

/** The file's digest (writeStream.ts DIGEST), read a megabyte at a time into one buffer. */
export async function fileDigest(file: string): Promise<string> {
  const hash = createHash(DIGEST);
  const handle = await open(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (let read = (await handle.read(chunk, 0, chunk.length)).bytesRead; read > 0; read = (await handle.read(chunk, 0, chunk.length)).bytesRead) {
      hash.update(chunk.subarray(0, read));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

/** The same folder, or clones of one origin (a local origin may be the other's folder). */
export function sameRepository(a: RepoIdentity, b: RepoIdentity): boolean {
  if (a.path === b.path) return true;
  if (a.origin && b.origin) return normalizeRemote(a.origin, a.path) === normalizeRemote(b.origin, b.path);
  return localOrigin(a.origin) === b.path || localOrigin(b.origin) === a.path;
}

function localOrigin(origin: string | null): string | null {
  if (origin === null) return null;
  const local = origin.startsWith('file://') ? origin.slice('file://'.length) : origin;
  return path.isAbsolute(local) ? path.resolve(local) : null;
}
