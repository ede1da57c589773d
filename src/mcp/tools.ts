/**
 * What each MCP tool answers, as plain functions over an `IndexCache`: DeepCode's `search_code_references`
 * and `get_indexes_overview` with its argument names and JSON (our fields beside), and a free-text `search`.
 * The server only validates arguments and wraps these answers in MCP results.
 */
import { overviewJson, searchResultJson } from '../search/format.js';
import { checkFreshness, type RepoFreshness } from '../search/freshness.js';
import type { LoadedIndex } from '../search/load.js';
import { DEFAULT_MAX_RESULTS, search, type MatchedSymbol } from '../search/search.js';
import type { IndexCache, IndexSnapshot } from './indexCache.js';

export interface ToolContext {
  cache: IndexCache;
  /** Used when a call gives no `indexes_path`. */
  defaultIndexesDir: string;
  /** Whether each index still matches its repository on disk (default: `checkFreshness`). */
  freshness?: (indexes: readonly LoadedIndex[]) => Promise<RepoFreshness[]>;
}

function freshnessOf(context: ToolContext, indexes: readonly LoadedIndex[]): Promise<RepoFreshness[]> {
  return (context.freshness ?? checkFreshness)(indexes);
}

/** A tool's JSON answer; `isError` answers are DeepCode's `{status: "error", message, …}`. */
export interface ToolAnswer {
  isError: boolean;
  json: Record<string, unknown>;
}

export interface SearchCodeReferencesArgs {
  indexes_path?: string | undefined;
  target_file: string;
  /** Comma-separated, as DeepCode takes them; a list is accepted too. */
  keywords?: string | string[] | undefined;
  max_results?: number | undefined;
}

export interface OverviewArgs {
  indexes_path?: string | undefined;
}

export interface SearchArgs {
  query: string;
  target_file?: string | undefined;
  max_results?: number | undefined;
  indexes_path?: string | undefined;
}

const HINT = 'run `coderag index <repo> --out <dir>` first, or pass indexes_path';

export async function searchCodeReferences(context: ToolContext, args: SearchCodeReferencesArgs): Promise<ToolAnswer> {
  const indexesPath = args.indexes_path || context.defaultIndexesDir;
  const snapshot = await context.cache.get(indexesPath);
  if (snapshot.indexes.length === 0) {
    return failure(`No index files found or failed to load from: ${indexesPath}`, { target_file: args.target_file, indexes_path: indexesPath }, snapshot);
  }
  const response = search(snapshot.corpus, {
    target: args.target_file,
    keywords: splitKeywords(args.keywords),
    maxResults: args.max_results ?? DEFAULT_MAX_RESULTS,
  });
  return { isError: false, json: searchResultJson(response, indexesPath, snapshot.indexes, snapshot.warnings, await freshnessOf(context, snapshot.indexes)) };
}

export async function getIndexesOverview(context: ToolContext, args: OverviewArgs): Promise<ToolAnswer> {
  const indexesPath = args.indexes_path || context.defaultIndexesDir;
  const snapshot = await context.cache.get(indexesPath);
  if (snapshot.indexes.length === 0) {
    return failure(`No index files found in: ${indexesPath}`, { indexes_path: indexesPath }, snapshot);
  }
  return { isError: false, json: overviewJson(indexesPath, snapshot.dir, snapshot.indexes, snapshot.warnings, await freshnessOf(context, snapshot.indexes)) };
}

export interface SearchHit {
  repo: string;
  path: string;
  score: number;
  summary: string;
  main_functions: string[];
  language: string;
  role: string;
  matched_keywords: string[];
  /** Elements whose names match the query, with their lines. */
  symbols: MatchedSymbol[];
}

/** Free text ranked with the default scorer. */
export async function searchText(context: ToolContext, args: SearchArgs): Promise<ToolAnswer> {
  const indexesPath = args.indexes_path || context.defaultIndexesDir;
  const target = args.target_file ?? '';
  const snapshot = await context.cache.get(indexesPath);
  if (snapshot.indexes.length === 0) {
    return failure(`No index files found or failed to load from: ${indexesPath}`, { query: args.query, target_file: target, indexes_path: indexesPath }, snapshot);
  }
  const response = search(snapshot.corpus, { query: args.query, target, maxResults: args.max_results ?? DEFAULT_MAX_RESULTS });
  const results: SearchHit[] = response.references.map((ref) => ({
    repo: ref.repo_name,
    path: ref.file_path,
    score: ref.score,
    summary: ref.summary,
    main_functions: ref.main_functions,
    language: ref.language,
    role: ref.role,
    matched_keywords: ref.matched_keywords,
    symbols: ref.symbols,
  }));
  return {
    isError: false,
    json: {
      status: 'success',
      query: args.query,
      target_file: response.target_file,
      indexes_path: indexesPath,
      keywords_used: response.keywords_used,
      scorer: response.scorer,
      total_results: results.length,
      results,
      indexes_loaded: snapshot.indexes.map((i) => i.key),
      total_indexes_loaded: snapshot.indexes.length,
      warnings: [...snapshot.warnings],
      freshness: await freshnessOf(context, snapshot.indexes),
    },
  };
}

/** DeepCode's keyword parsing: split on commas, trim, drop empties. */
export function splitKeywords(keywords: string | readonly string[] | undefined): string[] {
  const list = typeof keywords === 'string' ? keywords.split(',') : [...(keywords ?? [])];
  return list.map((k) => k.trim()).filter(Boolean);
}

function failure(message: string, fields: Record<string, unknown>, snapshot: IndexSnapshot): ToolAnswer {
  return { isError: true, json: { status: 'error', message, ...fields, indexes_directory: snapshot.dir, warnings: [...snapshot.warnings], hint: HINT } };
}
