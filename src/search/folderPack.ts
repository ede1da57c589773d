/**
 * A folder's combined search pack, `<indexes>/.coderag-search/.folder.pack`: the field indexes of every index in
 * the folder joined into one (fieldIndex.ts `combineFieldIndexes`), with each index's own facts beside it. A cold
 * search over a folder of many small indexes then opens one file and looks each query word up once, where it
 * would open a pack per index and look every word up in each; that cost about a millisecond per index.
 *
 * The pack records every index file of the folder with its size and modification time. It answers only when
 * the folder's `.json` files are exactly those, unchanged; any other load reads the indexes one by one (their
 * own packs) and writes the combined pack again. So it is a cache of the per-index packs, never the only copy
 * of anything, and a folder answers the same with or without it: ranking keeps each index's mean field lengths
 * and structural maxima apart (bm25f's `SegmentPart`), and documents keep their numbers.
 *
 * Only folders of several small indexes are combined: that is where the per-index cost is most of a search.
 * A folder holding a large index gains nothing worth rebuilding a large combined pack every time it changes.
 */
import path from 'node:path';
import { relationshipsOf } from '../index/serialize.js';
import type { FileRelationship } from '../index/types.js';
import { combineFieldIndexes, FieldIndex } from './fieldIndex.js';
import { FIELD_COUNT } from './profileTokens.js';
import { indexedStateOf } from './freshness.js';
import type { IndexedState } from './types.js';
import { PACK_DIR, profileRangesOf, readPackFile, writePackFile, type Currency, type PackSource, type ProfileRanges, type Read } from './pack.js';

/** Folders of fewer indexes gain too little to keep a second copy of their packs. */
export const COMBINE_MIN_INDEXES = 4;
/** Indexes with more profiled files than this are not combined (nor is their folder). */
export const COMBINE_MAX_FILES = 5_000;

/** A `.json` file of the folder as the combined pack saw it: index files and run reports alike. */
export interface FolderFile extends PackSource {
  name: string;
}

/** One index of a combined pack: its facts, and its documents `[start, start + size)` of the combined field index. */
export interface FolderMember {
  /** The index file's name in the folder. */
  name: string;
  repoName: string;
  indexed: IndexedState | null;
  relationships: FileRelationship[];
  start: number;
  size: number;
  /** The index's own mean field lengths (the combined field index's are over all members). */
  avgLength: Float64Array;
}

export interface FolderPack {
  members: FolderMember[];
  fieldIndex: FieldIndex;
  /** Where each document's profile sits in its member's index file. */
  profileRanges: ProfileRanges;
}

/** What combining needs of an index: its facts, its own field index, and where its profiles sit. */
export interface CombinedIndex extends Omit<FolderMember, 'start' | 'size' | 'avgLength'> {
  fieldIndex: FieldIndex;
  profileRanges: Float64Array;
}

export function folderPackPath(dir: string): string {
  return path.join(dir, PACK_DIR, '.folder.pack');
}

/** Whether a folder's indexes are worth combining: enough of them, none large. */
export function worthCombining(sizes: readonly number[]): boolean {
  return sizes.length >= COMBINE_MIN_INDEXES && sizes.every((size) => size <= COMBINE_MAX_FILES);
}

/** The folder's combined pack, when it was made from exactly `files` as they are now. */
export function readFolderPack(dir: string, files: readonly FolderFile[]): Read<FolderPack> {
  const currency = (facts: Record<string, unknown>): Currency => (!Array.isArray(facts.files) ? 'misshapen' : sameFiles(facts.files, files) ? 'current' : 'stale');
  return readPackFile(folderPackPath(dir), currency, ({ facts, fieldIndex, profileRanges }) => {
    const members = membersOf(facts.members, fieldIndex.size, new Set(files.map((file) => file.name)));
    return members && profileRanges.length === fieldIndex.size ? { members, fieldIndex, profileRanges } : null;
  });
}

/** Writes the combined pack of `indexes`, the folder's indexes in load order; false when it cannot be written. */
export function writeFolderPack(dir: string, files: readonly FolderFile[], indexes: readonly CombinedIndex[]): boolean {
  const members: Array<Record<string, unknown>> = [];
  let start = 0;
  for (const { fieldIndex, profileRanges: _ranges, ...facts } of indexes) {
    members.push({ ...facts, start, size: fieldIndex.size, avgLength: [...fieldIndex.avgLength] });
    start += fieldIndex.size;
  }
  const ranges = new Float64Array(2 * start);
  let at = 0;
  for (const index of indexes) {
    ranges.set(index.profileRanges, at);
    at += index.profileRanges.length;
  }
  const fieldIndex = new FieldIndex(combineFieldIndexes(indexes.map((index) => index.fieldIndex)));
  const facts = { files: files.map(({ name, size, mtimeMs }) => ({ name, size, mtimeMs })), members };
  return writePackFile(folderPackPath(dir), facts, { fieldIndex, profileRanges: profileRangesOf(ranges) });
}

function sameFiles(recorded: readonly unknown[], files: readonly FolderFile[]): boolean {
  if (recorded.length !== files.length) return false;
  return files.every((file, i) => {
    const other = recorded[i] as Partial<FolderFile> | null;
    return typeof other === 'object' && other !== null && other.name === file.name && other.size === file.size && other.mtimeMs === file.mtimeMs;
  });
}

/**
 * The members a header lists, or null unless they are well-formed, tile the field index's documents in order, and
 * name each a different one of the folder's files.
 */
function membersOf(value: unknown, documents: number, names: ReadonlySet<string>): FolderMember[] | null {
  if (!Array.isArray(value)) return null;
  const members: FolderMember[] = [];
  const named = new Set<string>();
  let next = 0;
  for (const raw of value as unknown[]) {
    if (typeof raw !== 'object' || raw === null) return null;
    const m = raw as Record<string, unknown>;
    const { name, repoName, relationships, start, size, avgLength } = m;
    if (typeof name !== 'string' || !names.has(name) || named.has(name) || typeof repoName !== 'string' || !Array.isArray(relationships)) return null;
    named.add(name);
    if (start !== next || typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return null;
    if (!Array.isArray(avgLength) || avgLength.length !== FIELD_COUNT || !avgLength.every((x): x is number => typeof x === 'number')) return null;
    members.push({
      name,
      repoName,
      indexed: indexedStateOf(m.indexed),
      relationships: relationshipsOf(relationships),
      start: next,
      size,
      avgLength: Float64Array.from(avgLength),
    });
    next += size;
  }
  return next === documents ? members : null;
}
