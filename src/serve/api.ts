/**
 * The JSON API: `search`, `overview`, `outline` and `symbol` answering what `coderag … --json` prints, over the
 * indexes a request may read, and `relationships` for the page's picture. `search` and `symbol` take the CLI's
 * scope as parameters (`path` and `role`, each repeatable, and `exclude_tests=true`), within the repositories the
 * request may read. Each handler takes the request's parameters and its view of the indexes and answers a status
 * and a body; the server only routes.
 */
import { splitKeywords } from '../mcp/tools.js';
import type { IndexSnapshot } from '../mcp/indexCache.js';
import { MIN_MAX_TOKENS } from '../search/budget.js';
import { answerOutline, answerSymbolSearch, budgetedSearchJson, overviewJson } from '../search/format.js';
import type { RepoFreshness } from '../search/freshness.js';
import { makeScope, scopedFindSymbol, scopedSearch, type Scope as AnswerScope } from '../search/scope.js';
import { DEFAULT_MAX_RESULTS } from '../search/search.js';
import { DEFAULT_SYMBOL_RESULTS, fileOutline, SYMBOL_KINDS } from '../search/symbols.js';
import { GRANULARITIES, type Granularity, type LoadedIndex } from '../search/types.js';
import { CodeRagError, UsageError } from '../shared/errors.js';
import type { Scope } from './tokens.js';

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface ApiContext {
  /** The request's view of the indexes, for a scope (narrowed further by a `repo` parameter). */
  view(scope: Scope): IndexSnapshot;
  scope: Scope;
  freshness: (indexes: readonly LoadedIndex[]) => Promise<RepoFreshness[]>;
}

export const API_ROUTES = ['search', 'overview', 'outline', 'symbol', 'relationships'] as const;
export type ApiRoute = (typeof API_ROUTES)[number];

/** The parameters a request may give several times (the scope's); any other is read once. */
const REPEATABLE_PARAMS: ReadonlySet<string> = new Set(['path', 'role']);

/** Results a request may ask for at most. */
export const MAX_API_RESULTS = 100;
/** The largest answer budget a request may ask for, in tokens. */
const MAX_API_TOKENS = 1_000_000;
/** Relationships of one repository the picture is given at most, strongest first. */
const MAX_RELATIONSHIPS = 300;

class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export async function answerApi(route: ApiRoute, params: URLSearchParams, context: ApiContext): Promise<ApiAnswer> {
  try {
    switch (route) {
      case 'search':
        return await searchAnswer(params, context);
      case 'overview':
        return await overviewAnswer(params, context);
      case 'outline':
        return outlineAnswer(params, context);
      case 'symbol':
        return symbolAnswer(params, context);
      case 'relationships':
        return relationshipsAnswer(params, context);
    }
  } catch (error) {
    if (error instanceof BadRequest) return failure(error.status, error.message);
    if (error instanceof CodeRagError) return failure(404, error.message, error.hint);
    throw error;
  }
}

async function searchAnswer(params: URLSearchParams, context: ApiContext): Promise<ApiAnswer> {
  const query = params.get('query') ?? '';
  const target = params.get('target') ?? '';
  const keywords = splitKeywords(params.get('keywords') ?? '');
  if (!query.trim() && !target.trim() && keywords.length === 0) throw new BadRequest('nothing to search for: give query, target or keywords');
  const granularity = params.get('granularity');
  if (granularity !== null && !(GRANULARITIES as readonly string[]).includes(granularity)) throw new BadRequest(`granularity must be one of ${GRANULARITIES.join(', ')}`);
  const maxTokens = params.get('max_tokens') ? count(params, 'max_tokens', 0, MAX_API_TOKENS, MIN_MAX_TOKENS) : undefined;
  const view = viewFor(params, context);
  const response = scopedSearch(view.corpus, {
    target,
    keywords,
    ...(query.trim() ? { query } : {}),
    maxResults: count(params, 'max_results', DEFAULT_MAX_RESULTS, MAX_API_RESULTS),
    // As `coderag search`: the definitions most likely to need a change first, unless asked for files alone.
    granularity: (granularity ?? 'symbol') as Granularity,
  }, answerScope(params, view.indexes));
  const freshness = await context.freshness(view.indexes);
  // As `coderag search --json --max-tokens`: the least relevant results left out to fit, and said so.
  return { status: 200, body: budgetedSearchJson(response, view.dir, view.indexes, view.warnings, freshness, maxTokens) };
}

async function overviewAnswer(params: URLSearchParams, context: ApiContext): Promise<ApiAnswer> {
  const view = viewFor(params, context);
  return { status: 200, body: overviewJson(view.dir, view.indexes, view.warnings, await context.freshness(view.indexes)) };
}

function outlineAnswer(params: URLSearchParams, context: ApiContext): ApiAnswer {
  const repo = required(params, 'repo');
  const filePath = required(params, 'path');
  const view = context.view(context.scope);
  const outline = fileOutline(view.indexes, repo, filePath);
  return { status: 200, body: { ...answerOutline(outline), indexes_directory: view.dir, warnings: [...view.warnings] } };
}

function symbolAnswer(params: URLSearchParams, context: ApiContext): ApiAnswer {
  const name = required(params, 'name');
  const kind = params.get('kind');
  if (kind !== null && !(SYMBOL_KINDS as readonly string[]).includes(kind)) throw new BadRequest(`kind must be one of ${SYMBOL_KINDS.join(', ')}`);
  const view = viewFor(params, context);
  const result = scopedFindSymbol(view.indexes, name, { ...(kind ? { kind } : {}), maxResults: count(params, 'max_results', DEFAULT_SYMBOL_RESULTS, MAX_API_RESULTS) }, answerScope(params, view.indexes));
  return { status: 200, body: { ...answerSymbolSearch(result), indexes_directory: view.dir, warnings: [...view.warnings] } };
}

/** Each repository's relationships to the target structure it was indexed for, strongest first, bounded. */
function relationshipsAnswer(params: URLSearchParams, context: ApiContext): ApiAnswer {
  const view = viewFor(params, context);
  const repositories = view.indexes.map((loaded) => {
    const all = loaded.packed?.relationships ?? loaded.index.relationships;
    const relationships = [...all]
      .sort((a, b) => b.confidence_score - a.confidence_score || (a.target_file_path < b.target_file_path ? -1 : 1))
      .slice(0, MAX_RELATIONSHIPS)
      .map(({ repo_file_path, target_file_path, relationship_type, confidence_score, helpful_aspects }) => ({ repo_file_path, target_file_path, relationship_type, confidence_score, helpful_aspects }));
    return { repo_name: loaded.packed?.repoName ?? loaded.index.repo_name, index: loaded.key, total_relationships: all.length, relationships };
  });
  return { status: 200, body: { status: 'success', repositories } };
}

/**
 * The view a request reads: its scope, narrowed to one repository by `repo`. A repository outside the scope is
 * answered as one that does not exist, in the same words.
 */
function viewFor(params: URLSearchParams, context: ApiContext): IndexSnapshot {
  const repo = params.get('repo');
  if (repo === null || repo === '') return context.view(context.scope);
  const allowed = context.scope.all || context.scope.repos.has(repo);
  const view = context.view({ all: false, repos: new Set(allowed ? [repo] : []) });
  if (view.indexes.length === 0) throw new BadRequest(`no repository named ${JSON.stringify(repo.slice(0, 200))} among the indexes you may read`, 404);
  return view;
}

/**
 * A POSTed search's JSON object as the query string would give it: a list is a repeatable parameter given several
 * times (`"role": ["source", "docs"]`), null an absent one. The text of a 400 for anything else: a list of a
 * parameter read once would be cut to its first value, an object read as nothing.
 */
export function searchParamsOf(body: Readonly<Record<string, unknown>>): URLSearchParams | string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) {
    if (value === null) continue;
    if (Array.isArray(value) && !REPEATABLE_PARAMS.has(name)) return `${name} takes one value, not a list (lists: ${[...REPEATABLE_PARAMS].join(', ')})`;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') return `${name} must be a string, a number or true/false${REPEATABLE_PARAMS.has(name) ? ', or a list of them' : ''}`;
      params.append(name, String(item));
    }
  }
  return params;
}

/**
 * The files an answer may hold, as the CLI's `--path`, `--role` and `--exclude-tests` say it (search/scope.ts).
 * The repositories are the view's already: `repo` narrows the view, never past what the request may read.
 */
function answerScope(params: URLSearchParams, indexes: readonly LoadedIndex[]): AnswerScope {
  const excludeTests = params.get('exclude_tests');
  if (excludeTests !== null && !['true', 'false', '1', '0', ''].includes(excludeTests)) throw new BadRequest('exclude_tests must be true or false');
  try {
    return makeScope({ path: params.getAll('path'), role: params.getAll('role'), excludeTests: excludeTests === 'true' || excludeTests === '1' }, indexes);
  } catch (error) {
    // An unknown role or a broken glob is the request's own mistake (400), not a thing that is missing (404).
    if (error instanceof UsageError) throw new BadRequest(error.hint ? `${error.message} (${error.hint})` : error.message);
    throw error;
  }
}

function required(params: URLSearchParams, name: string): string {
  const value = params.get(name)?.trim();
  if (!value) throw new BadRequest(`the ${name} parameter is needed`);
  return value;
}

function count(params: URLSearchParams, name: string, fallback: number, max: number, min = 1): number {
  const raw = params.get(name);
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new BadRequest(`${name} must be a whole number from ${min} to ${max}`);
  return value;
}

export function failure(status: number, message: string, hint?: string): ApiAnswer {
  return { status, body: { status: 'error', message, ...(hint ? { hint } : {}) } };
}

