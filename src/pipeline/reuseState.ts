/**
 * What a run records beside its index so the next run can skip unchanged files without reading them: one
 * small record per file (path, mtime, size, git blob id, content hash, the imports as written, the candidate
 * concept terms of a static entry) and what shaped the entries. The index stays the store of the entries themselves; this file
 * only says which of them may be taken as they are.
 *
 * Written as NDJSON beside the index (`.<index file>.state`, hidden, so index loaders never take it for a
 * repository), after the index, and tied to it by the index's SHA-256: a state that does not describe the
 * index next to it is ignored.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { RawImport } from '../extract/imports.js';
import { writeFileAtomic } from '../index/serialize.js';

export const STATE_FORMAT = 'coderag-reuse-state';
export const STATE_VERSION = 1;

/** What shapes an entry: a change retires the entries it shaped. */
export interface EntryShape {
  schemaVersion: number;
  /** Extraction: tool, parser and grammar versions, classification options. */
  static: string;
  /** Model profiles: provider, model, prompt version and every option in the answer cache's key; null offline. */
  model: string | null;
}

export interface RepoIdentity {
  path: string;
  /** The `origin` remote, when the repository has one: a fresh clone elsewhere is still the same repository. */
  origin: string | null;
}

export interface FileRecord {
  path: string;
  mtimeMs: number;
  size: number;
  /** The git blob id of a tracked file whose work tree matches the git index; null otherwise. */
  blob: string | null;
  /** The content hash recorded in the entry ('' for files never read). */
  hash: string;
  imports: RawImport[];
  /** The entry's candidate concept terms (`candidateTermsOf`), kept so a re-run need not derive them again. */
  terms?: Array<[string, number]>;
}

export interface ReuseState {
  /** When the run started (ms since the epoch): files modified shortly before it have untrustworthy mtimes. */
  startedAt: number;
  shape: EntryShape;
  repo: RepoIdentity;
  goModule: string | null;
  records: FileRecord[];
}

interface StateHeader {
  format: typeof STATE_FORMAT;
  version: number;
  index_sha256: string;
  started_ms: number;
  shape: EntryShape;
  repo: RepoIdentity;
  go_module: string | null;
  files: number;
}

type RecordLine = [string, number, number, string | null, string, RawImport[], Array<[string, number]>?];

export function stateFileFor(indexFile: string): string {
  return path.join(path.dirname(indexFile), `.${path.basename(indexFile)}.state`);
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Records the state of the index just written at `indexFile`, whose SHA-256 is `indexSha256`. */
export async function saveReuseState(indexFile: string, indexSha256: string, state: ReuseState): Promise<void> {
  const header: StateHeader = {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    index_sha256: indexSha256,
    started_ms: state.startedAt,
    shape: state.shape,
    repo: state.repo,
    go_module: state.goModule,
    files: state.records.length,
  };
  const lines = [JSON.stringify(header)];
  for (const r of state.records) {
    const line: RecordLine = [r.path, r.mtimeMs, r.size, r.blob, r.hash, r.imports];
    if (r.terms) line.push(r.terms);
    lines.push(JSON.stringify(line));
  }
  await writeFileAtomic(stateFileFor(indexFile), `${lines.join('\n')}\n`);
}

export type LoadedState =
  | { ok: true; startedAt: number; shape: EntryShape; repo: RepoIdentity; goModule: string | null; records: Map<string, FileRecord> }
  | { ok: false; problem: string };

/** Reads the state recorded for the index whose SHA-256 is `indexSha256`, line by line. */
export async function loadReuseState(indexFile: string, indexSha256: string): Promise<LoadedState> {
  const file = stateFileFor(indexFile);
  let header: StateHeader | null = null;
  const records = new Map<string, FileRecord>();
  try {
    const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line) continue;
      if (!header) {
        header = JSON.parse(line) as StateHeader;
        if (header.format !== STATE_FORMAT || header.version !== STATE_VERSION) return { ok: false, problem: 'its reuse state has another format' };
        if (header.index_sha256 !== indexSha256) return { ok: false, problem: 'its reuse state describes another index' };
        continue;
      }
      const [p, mtimeMs, size, blob, hash, imports, terms] = JSON.parse(line) as RecordLine;
      records.set(p, terms ? { path: p, mtimeMs, size, blob, hash, imports, terms } : { path: p, mtimeMs, size, blob, hash, imports });
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, problem: 'it has no reuse state' };
    return { ok: false, problem: `its reuse state is unreadable (${(error as Error).message})` };
  }
  if (!header) return { ok: false, problem: 'its reuse state is empty' };
  if (records.size !== header.files) return { ok: false, problem: 'its reuse state is truncated' };
  return { ok: true, startedAt: header.started_ms, shape: header.shape, repo: header.repo, goModule: header.go_module, records };
}
