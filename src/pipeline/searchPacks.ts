/**
 * The last stage of a run: every index written gets its search pack, so no search pays for building one, and
 * a folder of enough indexes gets its combined pack (search/folderPack.ts). A run from scratch has written
 * each index's pack already, from its profiles tokenised as they were made (indexAssembly.ts); any other pack
 * is built from the written file, entry by entry when the run knows where its entries are: the run keeps no
 * profiles in memory.
 *
 * Tokenising every profile is most of a pack's cost, so a run that changed nothing a search reads keeps it:
 *   - an index the run left as it stood keeps its pack as it is, when that pack is current (it answers for
 *     the index file's size and modification time, and for the pack format);
 *   - an index rewritten with every entry the previous one's under the same path and with the same concepts
 *     (a fresh clone: only dates and the repository's folder changed) gets the previous pack's field index
 *     with its new facts and byte ranges, when that pack was current for the previous index;
 *   - any other rewritten index whose previous pack was current gets that pack updated (packUpdate.ts): only
 *     the entries a search would read differently are tokenised.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { readPack } from '../search/pack.js';
import { prepareFolderPack, prepareSearchPack, writtenLayout } from '../search/preparePacks.js';
import { updatePack, writeIndexPack } from './packUpdate.js';
import type { WrittenRepo } from './writeIndex.js';

/** How each index got its pack: left as it was, its previous field index kept, updated from the previous pack, or built. */
export type PackWay = 'kept' | 'field index kept' | 'updated' | 'built';

export async function writeSearchPacks(written: readonly WrittenRepo[]): Promise<PackWay[]> {
  const ways: PackWay[] = [];
  for (const repo of written) {
    if (repo.packWritten) ways.push('built');
    else if (repo.unchanged && (await packCurrent(repo.outputPath))) ways.push('kept');
    else if (repo.previous && (await keepFieldIndex(repo))) ways.push('field index kept');
    else if (repo.previous && (await updatePack(repo))) ways.push('updated');
    else {
      await prepareSearchPack(repo.outputPath, writtenLayout(repo));
      ways.push('built');
    }
  }
  for (const dir of new Set(written.map((repo) => path.dirname(repo.outputPath)))) await prepareFolderPack(dir);
  return ways;
}

async function packCurrent(indexFile: string): Promise<boolean> {
  const info = await stat(indexFile);
  return readPack(indexFile, { size: info.size, mtimeMs: info.mtimeMs }).status === 'fresh';
}

/**
 * Writes the pack of a rewritten index from the previous pack's field index: its documents must be exactly
 * the new index's searchable entries, in order (each found by where it was in the previous index). False, and
 * nothing written, when the previous pack is missing, stale, damaged or does not match.
 */
async function keepFieldIndex(repo: WrittenRepo): Promise<boolean> {
  const { previous, summaryRanges, index, outputPath } = repo;
  if (!previous || !summaryRanges || summaryRanges.length !== previous.ranges.length) return false;
  const read = readPack(outputPath, previous.source);
  if (read.status !== 'fresh') return false;
  const { pack } = read;
  const { skipped } = index.analysis_metadata.files_by_status;
  if (pack.repoName !== index.repo_name || pack.fieldIndex.size !== index.total_files - skipped) return false;
  const entryAt = new Map<number, number>();
  for (let n = 0; n < previous.ranges.length / 2; n++) entryAt.set(previous.ranges[2 * n] as number, n);
  const before = pack.profileRanges.all();
  const ranges = new Float64Array(before.length);
  let last = -1;
  for (let d = 0; d < before.length / 2; d++) {
    const n = entryAt.get(before[2 * d] as number);
    if (n === undefined || n <= last || previous.ranges[2 * n + 1] !== before[2 * d + 1]) return false;
    last = n;
    ranges[2 * d] = summaryRanges[2 * n] as number;
    ranges[2 * d + 1] = summaryRanges[2 * n + 1] as number;
  }
  return writeIndexPack(outputPath, index, pack.fieldIndex, ranges);
}
