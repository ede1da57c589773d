/**
 * `coderag overview`: what is indexed (DeepCode's get_indexes_overview).
 */
import path from 'node:path';
import { formatOverviewText, overviewJson } from '../../search/format.js';
import { checkFreshness } from '../../search/freshness.js';
import { loadIndexes } from '../../search/load.js';
import { indexesDir, noIndexesError } from './search.js';

export async function overviewCommand(flags: { indexes?: string; config?: string; json: boolean }): Promise<void> {
  const dir = await indexesDir(flags.indexes, flags.config);
  const { indexes, warnings } = await loadIndexes(dir);
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
  if (indexes.length === 0) throw await noIndexesError(dir, warnings);
  const overview = overviewJson(path.resolve(dir), indexes, warnings, await checkFreshness(indexes));
  process.stdout.write(flags.json ? `${JSON.stringify(overview, null, 2)}\n` : `${formatOverviewText(overview)}\n`);
}
