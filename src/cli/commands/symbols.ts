/**
 * `coderag outline <repo> <path>` and `coderag symbol <name>`: a file's symbols with their lines, and where a
 * name is defined, read from the indexes alone.
 */
import path from 'node:path';
import { answerOutline, answerSymbolSearch, formatOutlineText, formatSymbolsText } from '../../search/format.js';
import { loadIndexes } from '../../search/load.js';
import { makeScope, scopedFindSymbol, scopedOutline, scopeText } from '../../search/scope.js';
import { indexesDir, noIndexesError } from './search.js';

interface CommonFlags {
  indexes?: string;
  config?: string;
  json: boolean;
  repo?: string[];
  path?: string[];
  role?: string[];
  excludeTests?: boolean;
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
  const outline = scopedOutline(indexes, repo, filePath, makeScope(flags, indexes));
  const text = flags.json ? JSON.stringify({ ...answerOutline(outline), indexes_directory: path.resolve(dir), warnings }, null, 2) : formatOutlineText(outline);
  process.stdout.write(`${text}\n`);
}

export async function symbolCommand(name: string, flags: CommonFlags & { kind?: string; maxResults: number }): Promise<void> {
  const { dir, indexes, warnings } = await loadFolder(flags);
  const result = scopedFindSymbol(indexes, name, { ...(flags.kind ? { kind: flags.kind } : {}), maxResults: flags.maxResults }, makeScope(flags, indexes));
  const text = flags.json ? JSON.stringify({ ...answerSymbolSearch(result), indexes_directory: path.resolve(dir), warnings }, null, 2) : `${result.scope ? `scope: ${scopeText(result.scope)}\n` : ''}${formatSymbolsText(result)}`;
  process.stdout.write(`${text}\n`);
}
