/**
 * Loads every RepoIndex in a folder. Run reports (`indexing_summary.json`, `indexing_statistics.json`) and
 * other JSON that is not an index are passed over; a corrupt index is named in a warning and the others
 * still answer.
 *
 * Every index has a search pack beside it (pack.ts): the run that wrote the index wrote it too
 * (preparePacks.ts), and a load that finds it missing, stale or damaged builds it from the JSON and writes it
 * again. Loads read the pack instead of the
 * JSON: ranking needs nothing else, the profiles an answer shows are parsed one by one from their bytes, and
 * the whole index is parsed only if something asks for it (`overview`, DeepCode's scorer).
 */
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileSummary, RepoIndex } from '../index/types.js';
import { normalizeRepoIndex, repoIndexProblem, schemaNote, schemaVersionOf } from '../index/serialize.js';
import { SCHEMA_VERSION } from '../index/types.js';
import { CodeRagError, UsageError, errorMessage } from '../shared/errors.js';
import { isSearchable } from './corpus.js';
import { DamagedPartError, FieldIndex } from './fieldIndex.js';
import { indexedStateOf } from './freshness.js';
import { folderPackPath, readFolderPack, worthCombining, writeFolderPack, type FolderFile, type FolderMember, type FolderPack } from './folderPack.js';
import type { LoadedIndex, PackedIndex } from './types.js';
import { packPathFor, profileRangesOf, readPack, summaryRanges, writePack, type PackContents, type PackSource, type ProfileRanges } from './pack.js';

/** What a LoadedIndex is answered from: a pack's field index and profile ranges, and the index's facts. */
interface PackView extends Pick<PackedIndex, 'repoName' | 'indexed' | 'relationships' | 'fieldIndex' | 'start' | 'size' | 'avgLength'> {
  /** Ranges of every document of the field index, this index's from `start` on. */
  ranges: ProfileRanges;
}

/** What to do when a folder holds no index, whether or not `--indexes` named it. */
export const INDEXES_HINT = 'run `coderag index <repo> --out <dir>` first, or point --indexes at the folder it wrote';

export interface LoadResult {
  indexes: LoadedIndex[];
  warnings: string[];
}

export interface LoadOptions {
  /** Read and write search packs (default true). */
  packs?: boolean;
  /**
   * The size and modification time a search file must have recorded for an index file to be current (default: the
   * file's own). A server that copies indexes vouches for each copy with its original's.
   */
  sourceOf?: (file: string) => PackSource;
}

/** Whether a folder entry may be an index (or a run report): a `.json` file, not hidden. */
export function isIndexFileName(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.');
}

const REPORT_KEYS = ['indexing_completion_time', 'report_generation_time'];

export async function loadIndexes(dir: string, options: LoadOptions = {}): Promise<LoadResult> {
  const usePacks = options.packs ?? true;
  // File-system calls are synchronous here: a search over many small indexes makes dozens of them, and each
  // asynchronous one waits its turn in libuv's thread pool, which cost more than the calls themselves.
  let names: string[];
  try {
    const info = statSync(dir);
    // Exit code 2, as for a repository that is not there: the command line named something that is not.
    if (!info.isDirectory()) throw new UsageError(`not a folder: ${dir}`);
    names = readdirSync(dir);
  } catch (error) {
    if (error instanceof CodeRagError) throw error;
    throw new UsageError(`indexes folder not found: ${dir}`, { cause: error, hint: INDEXES_HINT });
  }
  names = names.filter(isIndexFileName).sort();
  const files = usePacks ? folderFiles(dir, names, options.sourceOf) : null;
  const whole = files && files.every((file): file is FolderFile => file !== null) ? files : null;
  const warnings: string[] = [];
  if (whole) {
    const folder = readFolderPack(dir, whole);
    if (folder.status === 'fresh') return { indexes: folder.pack.members.map((member) => memberIndex(dir, member, folder.pack)), warnings };
    if (folder.status === 'corrupt') warnings.push(`the combined search file of ${dir} was damaged (${folder.problem}); reading the indexes one by one`);
  }
  const warnedBefore = warnings.length;
  const indexes: LoadedIndex[] = [];
  for (const [i, name] of names.entries()) {
    const file = path.join(dir, name);
    const key = name.slice(0, -'.json'.length);
    const source = files?.[i] ?? null;
    if (source) {
      try {
        const read = readPack(file, source);
        if (read.status === 'fresh') {
          indexes.push(packedIndex(key, file, { ...read.pack, start: 0, size: read.pack.fieldIndex.size, avgLength: read.pack.fieldIndex.avgLength, ranges: read.pack.profileRanges }));
          continue;
        }
        if (read.status === 'corrupt') warnings.push(`the search file of ${name} was damaged (${read.problem}); rebuilt it from the index`);
      } catch {
        // Read the JSON below.
      }
    }
    let bytes: Buffer;
    let parsed: unknown;
    try {
      bytes = await readFile(file);
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      warnings.push(`skipped ${name}: ${error instanceof SyntaxError ? 'not valid JSON' : (error as Error).message}`);
      continue;
    }
    if (isRunReport(parsed)) continue;
    const problem = repoIndexProblem(parsed);
    if (problem) {
      const version = schemaVersionOf(parsed);
      warnings.push(`skipped ${name}: not a repository index (${problem})${version === null ? '' : `, though it names index schema ${version} (this CodeRAG writes ${SCHEMA_VERSION})`}`);
      continue;
    }
    const shard = partialIndexShard(parsed);
    if (shard) {
      warnings.push(`skipped ${name}: a partial index (shard ${shard}); combine the shards with \`coderag merge\``);
      continue;
    }
    const schema = schemaNote(parsed);
    if (schema) warnings.push(`${name}: ${schema}`);
    const index = normalizeRepoIndex(parsed as Record<string, unknown>, key);
    const loaded: LoadedIndex = { key, file, index };
    if (source) {
      const packed = packIndex(file, source, index, bytes);
      if (packed) loaded.packed = packed;
    }
    indexes.push(loaded);
  }
  // A folder read index by index without a word to say about it is combined for the next search.
  if (whole && warnings.length === warnedBefore) combineFolder(dir, whole, indexes, warnings);
  return { indexes, warnings };
}

/** The folder's `.json` files with their sizes and modification times; null for one that cannot be read. */
function folderFiles(dir: string, names: readonly string[], sourceOf: (file: string) => PackSource = statSync): Array<FolderFile | null> {
  return names.map((name) => {
    try {
      const info = sourceOf(path.join(dir, name));
      return { name, size: info.size, mtimeMs: info.mtimeMs };
    } catch {
      return null;
    }
  });
}

/**
 * Writes the folder's combined pack when its indexes are all packed and worth combining. It is a cache: when it
 * cannot be made, the search goes on with the indexes read one by one, and says why. An index whose own pack
 * turns out damaged where a search had not looked loses that pack, which the next search rebuilds from the JSON.
 */
function combineFolder(dir: string, files: readonly FolderFile[], indexes: readonly LoadedIndex[], warnings: string[]): void {
  const packs = indexes.map((loaded) => loaded.packed);
  if (!packs.every((p): p is PackedIndex => p !== undefined && p.start === 0 && p.size === p.fieldIndex.size)) return;
  if (!worthCombining(packs.map((p) => p.size))) return;
  try {
    writeFolderPack(
      dir,
      files,
      indexes.map((loaded, i) => {
        const p = packs[i] as PackedIndex;
        return { name: path.basename(loaded.file), repoName: p.repoName, indexed: p.indexed, relationships: p.relationships, fieldIndex: p.fieldIndex, profileRanges: p.profileRanges() };
      }),
    );
  } catch (error) {
    const damaged = error instanceof DamagedPartError ? indexes[error.part] : undefined;
    if (damaged) {
      rmSync(packPathFor(damaged.file), { force: true });
      warnings.push(`the search file of ${path.basename(damaged.file)} was damaged (${errorMessage(error)}); the next search rebuilds it from the index`);
    } else {
      warnings.push(`could not combine the indexes of ${dir} into one search file (${errorMessage(error)}); they are read one by one`);
    }
  }
}

/** A LoadedIndex answered by the folder's combined pack. */
function memberIndex(dir: string, member: FolderMember, pack: FolderPack): LoadedIndex {
  const file = path.join(dir, member.name);
  const key = member.name.slice(0, -'.json'.length);
  return packedIndex(key, file, { ...member, fieldIndex: pack.fieldIndex, ranges: pack.profileRanges });
}

/** Builds the field index once, writes it as a pack for the next process, and keeps it for this one. */
export function packIndex(file: string, source: PackSource, index: RepoIndex, bytes: Buffer, mustWrite = false): PackedIndex | null {
  const ranges = summaryRanges(bytes);
  if (!ranges || ranges.length !== index.file_summaries.length * 2) return null;
  const profiled: FileSummary[] = [];
  const profileRanges: number[] = [];
  index.file_summaries.forEach((summary, i) => {
    if (!isSearchable(summary)) return;
    profiled.push(summary);
    profileRanges.push(ranges[2 * i] as number, ranges[2 * i + 1] as number);
  });
  const fieldIndex = FieldIndex.build(profiled.map((f) => ({ repo: index.repo_name, file: f })));
  const indexed = indexedStateOf(index.analysis_metadata);
  const ownRanges = Float64Array.from(profileRanges);
  const contents: PackContents = {
    repoName: index.repo_name,
    indexed,
    totalFiles: index.total_files,
    relationships: index.relationships,
    fieldIndex,
    profileRanges: profileRangesOf(ownRanges),
  };
  if (!writePack(file, source, contents) && mustWrite) return null;
  return {
    repoName: index.repo_name,
    indexed,
    relationships: index.relationships,
    fieldIndex,
    start: 0,
    size: fieldIndex.size,
    avgLength: fieldIndex.avgLength,
    profile: (d) => profiled[d] as FileSummary,
    profileRanges: () => ownRanges,
  };
}

/**
 * A search file named a file its index does not hold (damaged, or left by another index of the same name). It is
 * removed where it is found, and loading the folder again rebuilds it from the index; when it cannot be removed
 * (a read-only folder), loading without search files reads the indexes themselves. The search commands do one or
 * the other, once.
 */
export class PackMismatchError extends CodeRagError {
  override name = 'PackMismatchError';

  constructor(
    readonly indexFile: string,
    readonly removed: boolean,
  ) {
    super(`the search file of ${path.basename(indexFile)} did not match the index${removed ? ' and was removed' : ', and could not be removed'}`, {
      hint: removed ? 'search again: the next search rebuilds it from the index' : `delete ${packPathFor(indexFile)} or make its folder writable`,
    });
  }

  /** What a search that loaded the folder again did. */
  get retried(): string {
    return `${this.message}; ${this.removed ? 'rebuilt from the index' : 'this search read the index without it'}`;
  }
}

/** A LoadedIndex answered by a pack: the whole index and single profiles are read from the JSON on demand. */
function packedIndex(key: string, file: string, pack: PackView): LoadedIndex {
  let whole: RepoIndex | null = null;
  const wholeIndex = (): RepoIndex => {
    if (!whole) {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      const problem = repoIndexProblem(parsed);
      if (problem) throw new CodeRagError(`${file} changed and is no longer a repository index (${problem})`);
      whole = normalizeRepoIndex(parsed as Record<string, unknown>, key);
    }
    return whole;
  };
  const { fieldIndex, start, size, ranges } = pack;
  const recent = new RecentProfiles();
  const profile = (d: number): FileSummary => {
    if (!(d >= 0 && d < size)) throw new RangeError(`no document ${d} in ${file}`);
    const kept = recent.get(d);
    if (kept) return kept;
    const filePath = fieldIndex.paths.at(start + d);
    const range = ranges.at(start + d);
    const found = range ? readProfile(file, range[0], range[1], key) : null;
    if (found && found.file_path === filePath) return recent.add(d, found, (range?.[1] ?? 0) - (range?.[0] ?? 0));
    // The index changed since its pack was read (or the pack's ranges were damaged): look in the whole file.
    const byPath = wholeIndex().file_summaries.find((f) => f.file_path === filePath);
    if (!byPath) {
      // The pack names a file the index does not hold (a damaged pack, or a stale one): drop it, so the next
      // load rebuilds it from the JSON. The index's own pack and the folder's combined pack hold the same
      // copy of its paths, whichever of them answered, so both go.
      let removed = true;
      try {
        rmSync(packPathFor(file), { force: true });
        rmSync(folderPackPath(path.dirname(file)), { force: true });
      } catch {
        // An unwritable folder: the pack stays, and searches read the index without it.
        removed = false;
      }
      throw new PackMismatchError(file, removed);
    }
    return byPath;
  };
  const loaded: LoadedIndex = {
    key,
    file,
    get index() {
      return wholeIndex();
    },
    // The pack's header carries the relationships unchecked; normalising drops any a damaged header mangled.
    packed: {
      repoName: pack.repoName,
      indexed: pack.indexed,
      relationships: normalizeRepoIndex({ relationships: pack.relationships }, key).relationships,
      fieldIndex,
      start,
      size,
      avgLength: pack.avgLength,
      profile,
      profileRanges: () => ranges.all().subarray(2 * start, 2 * (start + size)),
    },
  };
  return loaded;
}

/** Bytes of parsed profiles a packed index keeps: a warm server's next search reads the same files again. */
const RECENT_PROFILE_BYTES = 32 * 1024 * 1024;

/**
 * The profiles read last, least recently used dropped first once their JSON passes RECENT_PROFILE_BYTES (a Map
 * keeps insertion order; a hit is moved to its end). Not lru-cache: its import costs a cold search its load time.
 */
export class RecentProfiles {
  private readonly kept = new Map<number, { profile: FileSummary; bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes = RECENT_PROFILE_BYTES) {}

  get(d: number): FileSummary | undefined {
    const entry = this.kept.get(d);
    if (!entry) return undefined;
    this.kept.delete(d);
    this.kept.set(d, entry);
    return entry.profile;
  }

  add(d: number, profile: FileSummary, bytes: number): FileSummary {
    if (bytes > this.maxBytes) return profile;
    this.kept.set(d, { profile, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.kept.delete(oldest);
      this.bytes -= entry.bytes;
    }
    return profile;
  }
}

function readProfile(file: string, start: number, end: number, key: string): FileSummary | null {
  // A damaged pack can hold any numbers here: a range outside the file is no profile.
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) return null;
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r');
    if (end > fstatSync(fd).size) return null;
    const buffer = Buffer.alloc(end - start);
    readSync(fd, buffer, 0, buffer.length, start);
    return profileFromBytes(buffer, key);
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** A profile from its JSON bytes, normalised as in a whole index; null when they are not one. */
export function profileFromBytes(bytes: Buffer, key: string): FileSummary | null {
  try {
    const raw = JSON.parse(bytes.toString('utf8')) as unknown;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
    return normalizeRepoIndex({ file_summaries: [raw] }, key).file_summaries[0] ?? null;
  } catch {
    return null;
  }
}

/** `i/n` when the value is a partial index written by `coderag index --shard i/n`. */
function partialIndexShard(value: unknown): string | null {
  const shard = (value as { analysis_metadata?: { shard?: { index?: unknown; count?: unknown } } }).analysis_metadata?.shard;
  return shard ? `${String(shard.index)}/${String(shard.count)}` : null;
}

function isRunReport(value: unknown): boolean {
  return typeof value === 'object' && value !== null && REPORT_KEYS.some((k) => k in value) && !('file_summaries' in value);
}
