/**
 * The last stage of a run: every index written gets its search pack, so no search pays for building one, and
 * a folder of enough indexes gets its combined pack (search/folderPack.ts). A pack is built from the written
 * file, entry by entry when the run knows where its entries are: the run keeps no profiles in memory.
 */
import path from 'node:path';
import { prepareFolderPack, prepareSearchPack, writtenLayout } from '../search/preparePacks.js';
import type { WrittenRepo } from './writeIndex.js';

export async function writeSearchPacks(written: readonly WrittenRepo[]): Promise<void> {
  for (const repo of written) await prepareSearchPack(repo.outputPath, writtenLayout(repo));
  for (const dir of new Set(written.map((repo) => path.dirname(repo.outputPath)))) await prepareFolderPack(dir);
}
