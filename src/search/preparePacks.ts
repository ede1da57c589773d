/**
 * Search packs written at index time, right after an index, so no search pays for building one: the pipeline's
 * last stage (pipeline/searchPacks.ts) and `coderag merge` call these. A load writes the packs it finds
 * missing, stale or damaged itself (load.ts); these write them before any load asks.
 */
import { readdirSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { RangeReader } from '../index/fileRanges.js';
import { normalizeRepoIndex, repoIndexProblem } from '../index/serialize.js';
import type { FileRelationship, RepoIndex } from '../index/types.js';
import { isSearchable } from './corpus.js';
import { FieldIndex, FieldIndexBuilder } from './fieldIndex.js';
import { COMBINE_MIN_INDEXES } from './folderPack.js';
import { indexedStateOf, readTrailingMetadata } from './freshness.js';
import { isIndexFileName, loadIndexes, packIndex, profileFromBytes } from './load.js';
import { profileRangesOf, writePack, type PackContents } from './pack.js';

/** Where an index just written put what its search pack needs, so the pack is built without parsing the file. */
export interface WrittenLayout {
  repoName: string;
  totalFiles: number;
  relationships: FileRelationship[];
  /** Each file summary's bytes in the index file, as start, end pairs, in the file's order. */
  summaryRanges: Float64Array;
}

/** The layout of an index a run wrote (runIndex's `written`), when it was written entry by entry. */
export function writtenLayout(written: {
  index: Pick<RepoIndex, 'repo_name' | 'total_files' | 'relationships'>;
  summaryRanges?: Float64Array;
}): WrittenLayout | undefined {
  const { index, summaryRanges } = written;
  return summaryRanges ? { repoName: index.repo_name, totalFiles: index.total_files, relationships: index.relationships, summaryRanges } : undefined;
}

/**
 * Writes the search pack of an index file right after it is written, so no search pays for it. With the
 * `layout` of the file just written, profiles are read and tokenised one at a time, so memory holds the
 * postings being built, not the index (a 50,000-file index parses into gigabytes); without it the file is
 * parsed whole. Answers whether a pack was written (not for a file that is not an index, nor in a folder that
 * cannot be written).
 */
export async function prepareSearchPack(indexFile: string, layout?: WrittenLayout): Promise<boolean> {
  if (layout) return packStreamed(indexFile, layout);
  const [info, bytes] = await Promise.all([stat(indexFile), readFile(indexFile)]);
  const parsed = JSON.parse(bytes.toString('utf8')) as unknown;
  if (repoIndexProblem(parsed)) return false;
  const written = normalizeRepoIndex(parsed as Record<string, unknown>, path.basename(indexFile, '.json'));
  return packIndex(indexFile, { size: info.size, mtimeMs: info.mtimeMs }, written, bytes, true) !== null;
}

/**
 * Readies an indexes folder for the next search after indexes were written into it: loading it writes the
 * folder's combined pack when its indexes are worth combining (folderPack.ts), and does nothing more when the
 * pack is current. What a load would warn about is left for the search to say.
 */
export async function prepareFolderPack(dir: string): Promise<void> {
  // Too few indexes are never combined: not worth a load, which parses any index whose pack is missing.
  const names = readdirSync(dir).filter(isIndexFileName);
  if (names.length >= COMBINE_MIN_INDEXES) await loadIndexes(dir);
}

/** Packs an index file read entry by entry through `layout`'s ranges; false when an entry is no profile. */
async function packStreamed(indexFile: string, layout: WrittenLayout): Promise<boolean> {
  const info = await stat(indexFile);
  const key = path.basename(indexFile, '.json');
  const count = layout.summaryRanges.length / 2;
  const builder = new FieldIndexBuilder();
  const ranges = new Float64Array(2 * count);
  const reader = await RangeReader.open(indexFile);
  try {
    for (let i = 0; i < count; i++) {
      const start = layout.summaryRanges[2 * i] as number;
      const end = layout.summaryRanges[2 * i + 1] as number;
      const summary = profileFromBytes(await reader.read(start, end), key);
      if (!summary) return false;
      if (!isSearchable(summary)) continue;
      ranges[2 * builder.size] = start;
      ranges[2 * builder.size + 1] = end;
      builder.add({ repo: layout.repoName, file: summary });
    }
  } finally {
    await reader.close();
  }
  const contents: PackContents = {
    repoName: layout.repoName,
    indexed: indexedStateOf(readTrailingMetadata(indexFile)),
    totalFiles: layout.totalFiles,
    relationships: layout.relationships,
    fieldIndex: new FieldIndex(builder.finish()),
    profileRanges: profileRangesOf(ranges.slice(0, 2 * builder.size)),
  };
  return writePack(indexFile, { size: info.size, mtimeMs: info.mtimeMs }, contents);
}
