/**
 * The last stage of a run: every index written gets its search pack, so no search pays for building one, and
 * a folder of enough indexes gets its combined pack (search/folderPack.ts). A pack is built from the written
 * file, entry by entry when the run knows where its entries are: the run keeps no profiles in memory. An index
 * the run left as it stood keeps its pack, when that pack is current (it answers for the index file's size
 * and modification time, and for the pack format).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { readPack } from '../search/pack.js';
import { prepareFolderPack, prepareSearchPack, writtenLayout } from '../search/preparePacks.js';
import type { WrittenRepo } from './writeIndex.js';

export async function writeSearchPacks(written: readonly WrittenRepo[]): Promise<void> {
  for (const repo of written) {
    if (repo.unchanged && (await packCurrent(repo.outputPath))) continue;
    await prepareSearchPack(repo.outputPath, writtenLayout(repo));
  }
  for (const dir of new Set(written.map((repo) => path.dirname(repo.outputPath)))) await prepareFolderPack(dir);
}

async function packCurrent(indexFile: string): Promise<boolean> {
  const info = await stat(indexFile);
  return readPack(indexFile, { size: info.size, mtimeMs: info.mtimeMs }).status === 'fresh';
}
