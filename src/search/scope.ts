/**
 * Scoped searches: what part of the indexed code a question is about — some repositories (`--repo`, repeatable),
 * paths (`--path <glob>`), roles (`--role source|test|docs|…`, or `--exclude-tests`). A scope is a filter on the
 * files a search, a symbol look-up or an outline may answer with, never a change to how they rank: the corpus's
 * statistics stay the whole folder's, so a file scores the same with or without a scope, and an answer says which
 * scope it was given (`scope`). The CLI and the MCP tools build one with `makeScope` and ask through here.
 */
import { FILE_ROLES, type FileRole, type FileSummary } from '../index/types.js';
import { UsageError } from '../shared/errors.js';
import { search, type SearchCorpus } from './search.js';
import { fileOutline, findSymbol, type FileOutline, type FindSymbolOptions, type SymbolSearch } from './symbols.js';
import type { LoadedIndex, SearchRequest, SearchResponse } from './types.js';

export interface Scope {
  /** Repository names as the indexes give them; empty: every repository. */
  repos: readonly string[];
  /** Globs over repository-relative paths; empty: every path. */
  paths: readonly string[];
  /** Roles kept; empty: every role (less tests with `excludeTests`). */
  roles: readonly string[];
  excludeTests: boolean;
}

/** What a scope is asked with, from flags or tool arguments: one value or several. */
export interface ScopeInput {
  repo?: string | readonly string[] | undefined;
  path?: string | readonly string[] | undefined;
  role?: string | readonly string[] | undefined;
  excludeTests?: boolean | undefined;
}

/** The scope as an answer states it; absent from answers given no scope. */
export interface ScopeJson {
  repos?: string[];
  paths?: string[];
  roles?: string[];
  exclude_tests?: true;
}

/** Values given once or several times, each also a comma-separated list; a comma inside a glob's `{a,b}` is the glob's. */
const listOf = (value: string | readonly string[] | undefined): string[] =>
  (typeof value === 'string' ? [value] : [...(value ?? [])]).flatMap((v) => v.split(/,(?![^{]*\})/)).map((v) => v.trim()).filter(Boolean);

/**
 * At most this many globs in a scope, each at most this long and with at most this many wildcards: a glob is
 * matched against every ranked path, and a regular expression of many `*` can take time that grows with their
 * number as a power of the path's length. The team server takes scopes from anyone holding a token.
 */
export const MAX_SCOPE_GLOBS = 32;
const MAX_GLOB_LENGTH = 256;
const MAX_GLOB_WILDCARDS = 8;

/**
 * A scope over these indexes. A repository is named as `overview` lists it or by its index's name, in any case; a
 * name that matches none is a usage error listing those indexed, as is an unknown role or a broken glob.
 */
export function makeScope(input: ScopeInput, indexes: readonly LoadedIndex[]): Scope {
  const roles = listOf(input.role);
  for (const role of roles) {
    if (!FILE_ROLES.includes(role as FileRole)) throw new UsageError(`unknown role "${role}"`, { hint: `roles: ${FILE_ROLES.join(', ')}` });
  }
  const paths = listOf(input.path);
  if (paths.length > MAX_SCOPE_GLOBS) throw new UsageError(`at most ${MAX_SCOPE_GLOBS} path globs in one scope, not ${paths.length}`);
  for (const glob of paths) globPattern(glob);
  const repos = listOf(input.repo).map((wanted) => repositoryNamed(wanted, indexes));
  return { repos: [...new Set(repos)], paths, roles, excludeTests: input.excludeTests === true };
}

export const NO_SCOPE: Scope = { repos: [], paths: [], roles: [], excludeTests: false };

export function isScoped(scope: Scope): boolean {
  return scope.repos.length > 0 || scope.paths.length > 0 || scope.roles.length > 0 || scope.excludeTests;
}

export function scopeJson(scope: Scope): ScopeJson | undefined {
  if (!isScoped(scope)) return undefined;
  return {
    ...(scope.repos.length ? { repos: [...scope.repos] } : {}),
    ...(scope.paths.length ? { paths: [...scope.paths] } : {}),
    ...(scope.roles.length ? { roles: [...scope.roles] } : {}),
    ...(scope.excludeTests ? { exclude_tests: true as const } : {}),
  };
}

/** The scope in words, for an answer people read: `repo flask, path src/**, no tests`. */
export function scopeText(scope: ScopeJson): string {
  return [
    ...(scope.repos ? [`repo ${scope.repos.join(', ')}`] : []),
    ...(scope.paths ? [`path ${scope.paths.join(', ')}`] : []),
    ...(scope.roles ? [`role ${scope.roles.join(', ')}`] : []),
    ...(scope.exclude_tests ? ['no tests'] : []),
  ].join('; ');
}

/** A test of whether a file of a repository is in the scope. */
export function scopeFilter(scope: Scope): (repo: string, file: Pick<FileSummary, 'file_path' | 'role'>) => boolean {
  const repos = new Set(scope.repos);
  const globs = scope.paths.map(globPattern);
  const roles = new Set(scope.roles);
  return (repo, file) => {
    if (repos.size && !repos.has(repo)) return false;
    const role = file.role ?? 'source';
    if (roles.size && !roles.has(role)) return false;
    if (scope.excludeTests && role === 'test') return false;
    return globs.length === 0 || globs.some((glob) => glob.test(file.file_path));
  };
}

/** Files ranked a first time for a scoped answer, per result asked for; all of them when too few were in scope. */
const SCOPED_OVERFETCH = 8;
const SCOPED_MIN_RANKED = 100;

/**
 * `search` answered from the files in scope: ranked as the whole folder ranks them, then filtered and cut to the
 * answer's length, relationships and ranked symbols included. A first pass ranks a few times the answer's length;
 * when too few of those are in scope, every file is ranked, unless no indexed file is in the scope at all.
 */
export function scopedSearch(corpus: SearchCorpus, request: SearchRequest, scope: Scope): SearchResponse & { scope?: ScopeJson } {
  if (!isScoped(scope)) return search(corpus, request);
  const max = request.maxResults ?? 10;
  const keep = scopeFilter(scope);
  const ask = (limit: number) => {
    const response = search(corpus, { ...request, maxResults: limit });
    const references = response.references.filter((r) => keep(r.repo_name, { file_path: r.file_path, role: r.role as FileRole }));
    return { response, references, exhausted: response.references.length < limit };
  };
  let pass = ask(Math.max(max * SCOPED_OVERFETCH, SCOPED_MIN_RANKED));
  const short = pass.references.length < max;
  // Ranking every file is a search of the whole folder: not for a scope that holds none of them.
  const empty = pass.references.length === 0 && !corpus.some(keep);
  if (short && !empty && !pass.exhausted) pass = ask(Math.max(corpus.size, 1));
  const { response } = pass;
  const roleOf = new Map(pass.response.references.map((r) => [`${r.repo_name}\0${r.file_path}`, r.role]));
  const symbols = response.symbols?.filter((s) => keep(s.repo_name, { file_path: s.file_path, role: (roleOf.get(`${s.repo_name}\0${s.file_path}`) ?? 'source') as FileRole })).slice(0, max);
  const relationships = response.relationships.filter((r) => keep(r.repo_name, { file_path: r.repo_file_path, role: 'source' }));
  const references = pass.references.slice(0, max);
  const { notice: _unscoped, ...rest } = response;
  const stated = scopeJson(scope) as ScopeJson;
  const notice = references.length || relationships.length
    ? undefined
    : empty
      ? `no indexed file is in scope (${scopeText(stated)})`
      : response.references.length ? `no results in scope (${scopeText(stated)}); ${response.references.length} outside it` : response.notice;
  return { ...rest, references, relationships, ...(symbols ? { symbols } : {}), ...(notice ? { notice } : {}), scope: stated };
}

/** `findSymbol` over the files in scope. */
export function scopedFindSymbol(indexes: readonly LoadedIndex[], name: string, options: FindSymbolOptions, scope: Scope): SymbolSearch & { scope?: ScopeJson } {
  if (!isScoped(scope)) return findSymbol(indexes, name, options);
  return { ...findSymbol(indexes, name, { ...options, include: scopeFilter(scope) }), scope: scopeJson(scope) as ScopeJson };
}

/** `fileOutline`, refused with a usage error when the file is outside the scope. */
export function scopedOutline(indexes: readonly LoadedIndex[], repo: string, filePath: string, scope: Scope): FileOutline & { scope?: ScopeJson } {
  const outline = fileOutline(indexes, repo, filePath);
  if (!isScoped(scope)) return outline;
  const stated = scopeJson(scope) as ScopeJson;
  if (!scopeFilter(scope)(outline.repo_name, { file_path: outline.file_path, role: outline.role as FileRole })) {
    throw new UsageError(`${outline.repo_name} ${outline.file_path} (${outline.role}) is outside the scope asked for (${scopeText(stated)})`);
  }
  return { ...outline, scope: stated };
}

function repositoryNamed(wanted: string, indexes: readonly LoadedIndex[]): string {
  const nameOf = (l: LoadedIndex) => l.packed?.repoName ?? l.index.repo_name;
  const lower = wanted.toLowerCase();
  const hit =
    indexes.find((l) => nameOf(l) === wanted || l.key === wanted) ??
    indexes.find((l) => nameOf(l).toLowerCase() === lower || l.key.toLowerCase() === lower);
  if (hit) return nameOf(hit);
  const names = indexes.map(nameOf);
  throw new UsageError(`no indexed repository named "${wanted}"`, { hint: names.length ? `indexed: ${names.join(', ')}` : 'run `coderag index <repo>` first' });
}

/**
 * A path glob as a test of repository-relative paths: `*` and `?` within a folder, `**` across folders, `{a,b}`
 * either. A glob without `/` also matches a file name anywhere (`*.py`); one ending in `/`, or naming a path
 * without wildcards, matches the folder and everything under it (`src/`, `src/cache`).
 */
export function globPattern(glob: string): RegExp {
  // Runs of stars are one wildcard (`***` is `**`, `**/**/` is `**/`): the same files, fewer ways to backtrack.
  const clean = glob.trim().replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/^\/+/, '').replace(/\*{3,}/g, '**').replace(/(\*\*\/)+/g, '**/');
  if (!clean) throw new UsageError('--path needs a glob, e.g. src/** or *.py');
  if (clean.length > MAX_GLOB_LENGTH) throw new UsageError(`--path ${clean.slice(0, 40)}…: a glob of at most ${MAX_GLOB_LENGTH} characters`);
  if ((clean.match(/\*+|\?/g) ?? []).length > MAX_GLOB_WILDCARDS) throw new UsageError(`--path ${clean}: at most ${MAX_GLOB_WILDCARDS} wildcards in a glob`);
  const folder = clean.endsWith('/') || !/[*?{[]/.test(clean);
  const body = clean.replace(/\/+$/, '');
  let source = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c === '*' && body[i + 1] === '*') {
      const slash = body[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else if (c === '{') {
      const end = body.indexOf('}', i);
      if (end < 0) throw new UsageError(`--path ${glob}: a { without its }`);
      source += `(?:${body.slice(i + 1, end).split(',').map(escape).join('|')})`;
      i = end;
    } else source += escape(c);
  }
  const anywhere = !body.includes('/') ? '(?:.*/)?' : '';
  return new RegExp(`^${anywhere}${source}${folder ? '(?:/.*)?' : ''}$`);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
