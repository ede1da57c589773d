/**
 * What each MCP tool answers, as plain functions over an `IndexCache`: DeepCode's `search_code_references`
 * and `get_indexes_overview` with its argument names and JSON (our fields beside), and a free-text `search`.
 * The server only validates arguments and wraps these answers in MCP results.
 */
import { answerOutline, answerSymbolSearch, overviewJson, searchResultJson } from '../search/format.js';
import { withQualifiedName, type WithQualifiedName } from '../index/qualifiedName.js';
import { checkFreshness, type RepoFreshness } from '../search/freshness.js';
import { DEFAULT_MAX_RESULTS } from '../search/search.js';
import { makeScope, scopedFindSymbol, scopedOutline, scopedSearch, type Scope, type ScopeInput } from '../search/scope.js';
import { PackMismatchError } from '../search/load.js';
import { addSnippets } from '../search/snippets.js';
import { DEFAULT_MAX_TOKENS, fitResponse } from '../search/budget.js';
import type { Granularity, LoadedIndex, MatchedSymbol, Reference, SearchResponse, Snippet } from '../search/types.js';
import { DEFAULT_SYMBOL_RESULTS } from '../search/symbols.js';
import { CodeRagError } from '../shared/errors.js';
import { clipped } from '../shared/text.js';
import type { IndexSnapshot, IndexSource } from './indexCache.js';

export interface ToolContext {
  cache: IndexSource;
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

/** The arguments that scope an answer (search/scope.ts); each list may be one value. */
export interface ScopeArgs {
  repo?: string | string[] | undefined;
  path?: string | string[] | undefined;
  role?: string | string[] | undefined;
  exclude_tests?: boolean | undefined;
}

function scopeOf(args: ScopeArgs, indexes: readonly LoadedIndex[]): Scope {
  const input: ScopeInput = { repo: args.repo, path: args.path, role: args.role, excludeTests: args.exclude_tests };
  return makeScope(input, indexes);
}

/** The scope the arguments ask for, or the error answer (with `fields`) for one that names nothing indexed. */
function scopeOrAnswer(args: ScopeArgs, snapshot: IndexSnapshot, fields: Record<string, unknown>): Scope | ToolAnswer {
  try {
    return scopeOf(args, snapshot.indexes);
  } catch (error) {
    if (error instanceof CodeRagError) return notFound(error, fields, snapshot);
    throw error;
  }
}

export interface SearchCodeReferencesArgs extends ScopeArgs {
  indexes_path?: string | undefined;
  target_file: string;
  /** Comma-separated, as DeepCode takes them; a list is accepted too. */
  keywords?: string | string[] | undefined;
  max_results?: number | undefined;
  /** The answer's budget in tokens (estimated): its last references are left out to fit. */
  max_tokens?: number | undefined;
}

export interface OverviewArgs {
  indexes_path?: string | undefined;
}

export interface SearchArgs extends ScopeArgs {
  query: string;
  target_file?: string | undefined;
  max_results?: number | undefined;
  indexes_path?: string | undefined;
  /** Lines around each matching symbol's first line, read from the repository when it is unchanged on disk. */
  snippets?: number | undefined;
  /** `file`: rank files only; `symbol` (the default) also ranks the definitions most likely to need a change. */
  granularity?: Granularity | undefined;
  /** The answer's budget in tokens (estimated): its last definitions and references are left out to fit. */
  max_tokens?: number | undefined;
}

const HINT = 'run `coderag index <repo> --out <dir>` first, or pass indexes_path';
/** Characters of a request's text an answer quotes back, at most. */
const MAX_ECHOED = 200;

/**
 * `answer` over the folder's loaded indexes. A search file found not to match its index is removed as it is found
 * (load.ts); the folder is then loaded again, which rebuilds it (or, when it could not be removed, without search
 * files), and answered once more with a warning that says so.
 */
async function withIndexes(context: ToolContext, indexesPath: string, answer: (snapshot: IndexSnapshot) => Promise<ToolAnswer>): Promise<ToolAnswer> {
  const snapshot = await context.cache.get(indexesPath);
  try {
    return await answer(snapshot);
  } catch (error) {
    if (!(error instanceof PackMismatchError)) throw error;
    context.cache.forget(indexesPath, snapshot);
    const again = await context.cache.get(indexesPath, { packs: error.removed });
    return answer({ ...again, warnings: [error.retried, ...again.warnings] });
  }
}

export async function searchCodeReferences(context: ToolContext, args: SearchCodeReferencesArgs): Promise<ToolAnswer> {
  const indexesPath = args.indexes_path || context.defaultIndexesDir;
  return withIndexes(context, indexesPath, async (snapshot) => {
    if (snapshot.indexes.length === 0) {
      return failure(`No index files found or failed to load from: ${indexesPath}`, { target_file: args.target_file }, snapshot);
    }
    const scope = scopeOrAnswer(args, snapshot, { target_file: args.target_file });
    if ('isError' in scope) return scope;
    const response = scopedSearch(snapshot.corpus, {
      target: args.target_file,
      keywords: splitKeywords(args.keywords),
      maxResults: args.max_results ?? DEFAULT_MAX_RESULTS,
      granularity: 'symbol',
    }, scope);
    const freshness = await freshnessOf(context, snapshot.indexes);
    // DeepCode's keys, with the references as locations: formatted_content already says what each file is.
    const render = (cut: SearchResponse) => {
      const json = searchResultJson(cut, snapshot.dir, snapshot.indexes, snapshot.warnings, freshness);
      return { ...json, references: cut.references.map(locationOf), ...(response.scope ? { scope: response.scope } : {}) };
    };
    return { isError: false, json: budgeted(response, render, args.max_tokens ?? DEFAULT_MAX_TOKENS) };
  });
}

export async function getIndexesOverview(context: ToolContext, args: OverviewArgs): Promise<ToolAnswer> {
  const indexesPath = args.indexes_path || context.defaultIndexesDir;
  const snapshot = await context.cache.get(indexesPath);
  if (snapshot.indexes.length === 0) {
    return failure(`No index files found in: ${indexesPath}`, {}, snapshot);
  }
  return { isError: false, json: overviewJson(snapshot.dir, snapshot.indexes, snapshot.warnings, await freshnessOf(context, snapshot.indexes)) };
}

/** A reference as the `search` tool answers it: where, how relevant, what the file is in a line, and its matching definitions. */
export interface SearchHit {
  repo_name: string;
  file_path: string;
  score: number;
  role: string;
  language: string;
  summary: string;
  /** Its main functions, the matching ones first, at most HIT_MAIN_FUNCTIONS. */
  main_functions: string[];
  /** Its definitions that match the request best, with their lines and dotted qualified names. */
  symbols: Array<WithQualifiedName<MatchedSymbol>>;
  snippets?: Array<WithQualifiedName<Snippet>>;
  snippet_notice?: string;
}

const HIT_SUMMARY_CHARS = 160;
const HIT_MAIN_FUNCTIONS = 6;
const HIT_SYMBOLS = 4;
/** A task's keywords quoted back, at most: enough to show what was read. */
const ECHOED_KEYWORDS = 16;

function searchHit(ref: Reference): SearchHit {
  return {
    repo_name: ref.repo_name,
    file_path: ref.file_path,
    score: ref.score,
    role: ref.role,
    language: ref.language,
    summary: clipped(ref.summary, HIT_SUMMARY_CHARS),
    main_functions: ref.main_functions.slice(0, HIT_MAIN_FUNCTIONS),
    symbols: ref.symbols.slice(0, HIT_SYMBOLS).map(withQualifiedName),
    ...(ref.snippets ? { snippets: ref.snippets.map(withQualifiedName) } : {}),
    ...(ref.snippet_notice ? { snippet_notice: ref.snippet_notice } : {}),
  };
}

/** A reference's place alone, for answers whose text already describes it. */
function locationOf(ref: Reference) {
  return { repo_name: ref.repo_name, file_path: ref.file_path, score: ref.score, role: ref.role, symbols: ref.symbols.map(({ kind, ast_path, start_line, end_line }) => withQualifiedName({ kind, ast_path, start_line, end_line })) };
}

/** `render`'s answer of `response` cut to `maxTokens`, with `truncated` saying what was left out. */
function budgeted(response: SearchResponse, render: (cut: SearchResponse) => Record<string, unknown>, maxTokens: number): Record<string, unknown> {
  return fitResponse(response, (cut, leftOut) => ({ ...render(cut), ...(leftOut ? { truncated: leftOut } : {}) }), (json) => JSON.stringify(json), maxTokens);
}

/** Free text ranked with the default scorer. */
export async function searchText(context: ToolContext, args: SearchArgs): Promise<ToolAnswer> {
  const indexesPath = args.indexes_path || context.defaultIndexesDir;
  const target = args.target_file ?? '';
  return withIndexes(context, indexesPath, (snapshot) => searchSnapshot(context, args, indexesPath, target, snapshot));
}

async function searchSnapshot(context: ToolContext, args: SearchArgs, indexesPath: string, target: string, snapshot: IndexSnapshot): Promise<ToolAnswer> {
  if (snapshot.indexes.length === 0) {
    return failure(`No index files found or failed to load from: ${indexesPath}`, { query: clipped(args.query, MAX_ECHOED), target_file: target }, snapshot);
  }
  const scope = scopeOrAnswer(args, snapshot, { query: clipped(args.query, MAX_ECHOED), target_file: target });
  if ('isError' in scope) return scope;
  const ranked = scopedSearch(snapshot.corpus, { query: args.query, target, maxResults: args.max_results ?? DEFAULT_MAX_RESULTS, granularity: args.granularity ?? 'symbol' }, scope);
  const response = args.snippets ? await addSnippets(ranked, snapshot.indexes, { lines: args.snippets }) : ranked;
  const freshness = await freshnessOf(context, snapshot.indexes);
  const render = (cut: SearchResponse): Record<string, unknown> => ({
    status: 'success',
    // Quoted back clipped: a 2 MB issue text would otherwise come back whole in the answer.
    query: clipped(args.query, MAX_ECHOED),
    target_file: cut.target_file,
    indexes_directory: snapshot.dir,
    keywords_used: cut.keywords_used.slice(0, ECHOED_KEYWORDS),
    scorer: cut.scorer,
    // The definitions first: what an agent opens; then the files they are in and the others.
    ...(cut.symbols ? { symbols: cut.symbols.map(withQualifiedName) } : {}),
    total_references_found: response.references.length,
    references: cut.references.map(searchHit),
    ...(cut.task ? { task: cut.task } : {}),
    ...(cut.notice ? { notice: cut.notice } : {}),
    ...(ranked.scope ? { scope: ranked.scope } : {}),
    indexes_loaded: snapshot.indexes.map((i) => i.key),
    total_indexes_loaded: snapshot.indexes.length,
    warnings: [...snapshot.warnings],
    freshness,
  });
  return { isError: false, json: budgeted(response, render, args.max_tokens ?? DEFAULT_MAX_TOKENS) };
}

export interface FileOutlineArgs extends Pick<ScopeArgs, 'role' | 'exclude_tests'> {
  repo_name?: string | undefined;
  file_path?: string | undefined;
  /** The names this tool took before `repo_name` and `file_path`, still accepted: an agent's saved configuration may use them. */
  repo?: unknown;
  path?: unknown;
  indexes_path?: string | undefined;
}

export interface FindSymbolArgs extends ScopeArgs {
  name: string;
  kind?: string | undefined;
  max_results?: number | undefined;
  indexes_path?: string | undefined;
}

/** The symbols of one file with their kinds, lines, nesting and docs, read from its index. */
export async function getFileOutline(context: ToolContext, args: FileOutlineArgs): Promise<ToolAnswer> {
  const indexesPath = args.indexes_path || context.defaultIndexesDir;
  const repoName = args.repo_name ?? oldName(args.repo);
  const filePath = args.file_path ?? oldName(args.path);
  const snapshot = await context.cache.get(indexesPath);
  const fields = { repo_name: repoName ?? null, file_path: filePath ?? null };
  if (repoName === undefined || filePath === undefined) {
    const missing = [repoName === undefined ? 'repo_name' : '', filePath === undefined ? 'file_path' : ''].filter(Boolean);
    // Worded as the SDK words the other tools' argument errors, which it checks before a tool runs.
    const message = `Invalid arguments for tool get_file_outline: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required`;
    return { isError: true, json: { status: 'error', message, ...fields, indexes_directory: snapshot.dir, warnings: [...snapshot.warnings], hint: 'pass repo_name (as get_indexes_overview lists it) and file_path (relative to the repository root)' } };
  }
  if (snapshot.indexes.length === 0) return failure(`No index files found or failed to load from: ${indexesPath}`, fields, snapshot);
  try {
    // The file's own status (ok, failed, skipped) is `file_status`: `status` is the answer's, as in every tool.
    const { status: fileStatus, ...outline } = scopedOutline(snapshot.indexes, repoName, filePath, scopeOf({ role: args.role, exclude_tests: args.exclude_tests }, snapshot.indexes));
    return {
      isError: false,
      json: { status: 'success', ...answerOutline(outline), file_status: fileStatus, indexes_directory: snapshot.dir, warnings: [...snapshot.warnings] },
    };
  } catch (error) {
    if (error instanceof CodeRagError) return notFound(error, fields, snapshot);
    throw error;
  }
}

/** Where a name is defined across the folder's indexes: exact matches first, bounded. */
export async function findSymbolTool(context: ToolContext, args: FindSymbolArgs): Promise<ToolAnswer> {
  const indexesPath = args.indexes_path || context.defaultIndexesDir;
  const snapshot = await context.cache.get(indexesPath);
  const fields = { name: clipped(args.name, MAX_ECHOED), kind: args.kind ?? null };
  if (snapshot.indexes.length === 0) return failure(`No index files found or failed to load from: ${indexesPath}`, fields, snapshot);
  try {
    const result = scopedFindSymbol(snapshot.indexes, args.name, { ...(args.kind ? { kind: args.kind } : {}), maxResults: args.max_results ?? DEFAULT_SYMBOL_RESULTS }, scopeOf(args, snapshot.indexes));
    return {
      isError: false,
      json: { status: 'success', ...answerSymbolSearch(result), indexes_directory: snapshot.dir, total_indexes_loaded: snapshot.indexes.length, warnings: [...snapshot.warnings] },
    };
  } catch (error) {
    if (error instanceof CodeRagError) return notFound(error, fields, snapshot);
    throw error;
  }
}

/** An old argument name's value, when it is a name at all (the schema checks only the new names). */
function oldName(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** DeepCode's keyword parsing: split on commas, trim, drop empties. */
export function splitKeywords(keywords: string | readonly string[] | undefined): string[] {
  const list = typeof keywords === 'string' ? keywords.split(',') : [...(keywords ?? [])];
  return list.map((k) => k.trim()).filter(Boolean);
}

function failure(message: string, fields: Record<string, unknown>, snapshot: IndexSnapshot): ToolAnswer {
  return { isError: true, json: { status: 'error', message, ...fields, indexes_directory: snapshot.dir, warnings: [...snapshot.warnings], hint: HINT } };
}

function notFound(error: CodeRagError, fields: Record<string, unknown>, snapshot: IndexSnapshot): ToolAnswer {
  return { isError: true, json: { status: 'error', message: error.message, ...fields, indexes_directory: snapshot.dir, warnings: [...snapshot.warnings], hint: error.hint ?? HINT } };
}
