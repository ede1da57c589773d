/**
 * `coderag outline <repo> <path>` and `coderag symbol <name>`: a file's symbols with their lines, and where a
 * name is defined, read from the indexes alone.
 */
import { formatOutlineText, formatSymbolsText } from '../../search/format.js';
import { loadIndexes } from '../../search/load.js';
import { fileOutline, findSymbol } from '../../search/symbols.js';
import { indexesDir, noIndexesError } from './search.js';

interface CommonFlags {
  indexes?: string;
  config?: string;
  json: boolean;
}

async function loadFolder(flags: CommonFlags) {
  const dir = await indexesDir(flags.indexes, flags.config);
  const { indexes, warnings } = await loadIndexes(dir);
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
  if (indexes.length === 0) throw await noIndexesError(dir, warnings);
  return { dir, indexes, warnings };
}

export async function outlineCommand(repo: string, filePath: string, flags: CommonFlags): Promise<void> {
  const { dir, indexes, warnings } = await loadFolder(flags);
  const outline = fileOutline(indexes, repo, filePath);
  const text = flags.json ? JSON.stringify({ ...outline, total_symbols: outline.symbols.length, indexes_path: dir, warnings }, null, 2) : formatOutlineText(outline);
  process.stdout.write(`${text}\n`);
}

export async function symbolCommand(name: string, flags: CommonFlags & { kind?: string; maxResults: number }): Promise<void> {
  const { dir, indexes, warnings } = await loadFolder(flags);
  const result = findSymbol(indexes, name, { ...(flags.kind ? { kind: flags.kind } : {}), maxResults: flags.maxResults });
  const text = flags.json ? JSON.stringify({ ...result, indexes_path: dir, warnings }, null, 2) : formatSymbolsText(result);
  process.stdout.write(`${text}\n`);
}
