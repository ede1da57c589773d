/**
 * Loads every RepoIndex in a folder. Run reports (`indexing_summary.json`, `indexing_statistics.json`) and
 * other JSON that is not an index are passed over; a corrupt index is named in a warning and the others
 * still answer.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { RepoIndex } from '../index/types.js';
import { normalizeRepoIndex, repoIndexProblem } from '../index/serialize.js';
import { CodeRagError } from '../shared/errors.js';

export interface LoadedIndex {
  /** The file's name without `.json`: DeepCode's key for an index. */
  key: string;
  file: string;
  index: RepoIndex;
}

export interface LoadResult {
  indexes: LoadedIndex[];
  warnings: string[];
}

const REPORT_KEYS = ['indexing_completion_time', 'report_generation_time'];

export async function loadIndexes(dir: string): Promise<LoadResult> {
  let names: string[];
  try {
    const info = await stat(dir);
    if (!info.isDirectory()) throw new CodeRagError(`not a folder: ${dir}`);
    names = await readdir(dir);
  } catch (error) {
    if (error instanceof CodeRagError) throw error;
    throw new CodeRagError(`indexes folder not found: ${dir}`, { cause: error, hint: 'run `coderag index <repo>` first, or pass --indexes <dir>' });
  }
  const indexes: LoadedIndex[] = [];
  const warnings: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort()) {
    const file = path.join(dir, name);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      warnings.push(`skipped ${name}: ${error instanceof SyntaxError ? 'not valid JSON' : (error as Error).message}`);
      continue;
    }
    if (isRunReport(parsed)) continue;
    const problem = repoIndexProblem(parsed);
    if (problem) {
      warnings.push(`skipped ${name}: not a repository index (${problem})`);
      continue;
    }
    const key = name.slice(0, -'.json'.length);
    indexes.push({ key, file, index: normalizeRepoIndex(parsed as Record<string, unknown>, key) });
  }
  return { indexes, warnings };
}

function isRunReport(value: unknown): boolean {
  return typeof value === 'object' && value !== null && REPORT_KEYS.some((k) => k in value) && !('file_summaries' in value);
}
