/**
 * Symbol look-ups over loaded indexes, for agents that want lines rather than whole files: a file's outline
 * (every symbol with its kind, lines, nesting and doc) and where a name is defined across all indexes. Both
 * read only the index; nothing here opens the repository.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { CodeSymbol, FileSummary, SymbolKind } from '../index/types.js';
import { UsageError } from '../shared/errors.js';
import { clipped } from '../shared/text.js';
import type { LoadedIndex } from './types.js';

export const SYMBOL_KINDS: readonly SymbolKind[] = ['function', 'class', 'method', 'interface', 'type', 'enum', 'struct', 'trait', 'module', 'namespace', 'constant', 'variable'];

export interface OutlineSymbol {
  kind: string;
  name: string;
  /** Enclosing scopes and the name, joined with '-': `LruCache-get`. */
  ast_path: string;
  start_line: number;
  end_line: number;
  /** How many scopes enclose it (0 at the top of the file). */
  depth: number;
  doc?: string;
}

export interface FileOutline {
  repo_name: string;
  /** The index file's name without `.json`. */
  index: string;
  file_path: string;
  language: string;
  role: string;
  status: string;
  lines_of_code: number;
  summary: string;
  symbols: OutlineSymbol[];
}

/**
 * `filePath` relative to the repository: as given, or an absolute path with the indexed folder's path taken off,
 * compared as written (normalised, a drive letter in either case) and then with symbolic links resolved.
 */
function relativePath(filePath: string, repoPath: unknown, repoName: string): string {
  if (!/^(?:[A-Za-z]:)?[\\/]/.test(filePath.trim())) return cleanPath(filePath);
  const root = typeof repoPath === 'string' ? repoPath : '';
  // As written first; the file system is asked to resolve links only when that fails.
  const relative = under(filePath.trim(), root) ?? under(realOrSame(filePath.trim()), realOrSame(root));
  if (relative !== null) return relative;
  throw new UsageError(`no file ${filePath} in ${repoName}: it is outside the folder the repository was indexed in${root ? ` (${root})` : ''}`, {
    hint: 'give the path relative to the repository root, e.g. src/cache.ts',
  });
}

/** `given` relative to `base`, both normalised, a drive letter in either case; null when it is not under it. */
function under(given: string, base: string): string | null {
  const wanted = absoluteKey(given);
  const prefix = absoluteKey(base);
  return prefix && wanted.startsWith(`${prefix}/`) ? wanted.slice(prefix.length + 1) : null;
}

/** An absolute path as forward slashes, `.` and `..` resolved, no trailing slash, its drive letter lower-case. */
function absoluteKey(p: string): string {
  return p ? path.posix.normalize(p.replace(/\\/g, '/')).replace(/\/+$/, '').replace(/^[A-Z]:/, (drive) => drive.toLowerCase()) : '';
}

function realOrSame(p: string): string {
  try {
    return p ? realpathSync(p) : p;
  } catch {
    return p;
  }
}

/**
 * The outline of one indexed file, symbols in line order. `repo` is a repository name or an index's key;
 * `filePath` is repository-relative (a leading `./` or backslashes are fine, and a path suffix that names one file
 * is enough) or absolute within the folder the repository was indexed in. Throws a UsageError naming what is
 * indexed when the repository or file is not.
 */
export function fileOutline(indexes: readonly LoadedIndex[], repo: string, filePath: string): FileOutline {
  const loaded = findIndex(indexes, repo);
  const wanted = relativePath(filePath, loaded.index.analysis_metadata?.repo_path ?? '', loaded.index.repo_name);
  const files = loaded.index.file_summaries;
  let file = files.find((f) => f.file_path === wanted);
  if (!file) {
    const bySuffix = wanted ? files.filter((f) => f.file_path.endsWith(`/${wanted}`)) : [];
    if (bySuffix.length === 1) file = bySuffix[0];
    else {
      const inFolder = wanted ? files.filter((f) => f.file_path.startsWith(`${wanted}/`)) : [];
      const base = wanted.slice(wanted.lastIndexOf('/') + 1);
      const near = (bySuffix.length ? bySuffix : inFolder.length ? inFolder : files.filter((f) => base && f.file_path.endsWith(base))).slice(0, 5).map((f) => f.file_path);
      const why = bySuffix.length > 1 ? ` (the path ends ${bySuffix.length} files)` : inFolder.length ? ` (a folder of ${inFolder.length} indexed files; outline takes one file)` : '';
      throw new UsageError(`no file ${filePath || '(empty path)'} in ${loaded.index.repo_name}${why}`, {
        hint: near.length ? `did you mean ${near.join(', ')}?` : 'paths are relative to the repository root, e.g. src/cache.ts',
      });
    }
  }
  const found = file as (typeof files)[number];
  return {
    repo_name: loaded.index.repo_name,
    index: loaded.key,
    file_path: found.file_path,
    language: found.language ?? '',
    role: found.role ?? 'source',
    status: found.status,
    lines_of_code: found.lines_of_code,
    summary: found.summary,
    symbols: [...found.symbols].sort((a, b) => a.start_line - b.start_line || b.end_line - a.end_line).map(outlineSymbol),
  };
}

export type SymbolMatchKind = 'exact' | 'qualified' | 'case_insensitive' | 'suffix';

export interface SymbolMatch extends OutlineSymbol {
  repo_name: string;
  index: string;
  file_path: string;
  /** How the name matched: the symbol's own name, its whole or trailing ast_path, the same ignoring case, or a part of the name. */
  match: SymbolMatchKind;
}

export interface SymbolSearch {
  name: string;
  kind: string | null;
  total_matches: number;
  /** True when more matched than `matches` holds. */
  truncated: boolean;
  matches: SymbolMatch[];
  /** Why there are no matches, when there are none. */
  notice?: string;
}

export interface FindSymbolOptions {
  kind?: string;
  /** At most this many matches (default 20). */
  maxResults?: number;
  /** Only the files this keeps (a scope, scope.ts); every file by default. */
  include?: (repo: string, file: FileSummary) => boolean;
}

export const DEFAULT_SYMBOL_RESULTS = 20;

const MATCH_ORDER: readonly SymbolMatchKind[] = ['exact', 'qualified', 'case_insensitive', 'suffix'];
/** Characters of a searched name an answer quotes back, at most. */
const MAX_QUOTED_NAME = 200;

/**
 * Where a name is defined, across all indexes: exact names first, then ast_paths that end with it (so
 * `LruCache.get`, `LruCache::get` and `LruCache-get` find the method), then the same ignoring case, then names
 * that end with it as an identifier part (`get` finds `cacheGet`, `get_value` is not a match). Within a rank,
 * source files come before tests and docs, then by repository, path and line.
 */
export function findSymbol(indexes: readonly LoadedIndex[], name: string, options: FindSymbolOptions = {}): SymbolSearch {
  const query = name.trim();
  if (!query) throw new UsageError('a symbol name is needed, e.g. LruCache or LruCache.get');
  const kind = options.kind?.trim() || null;
  if (kind && !SYMBOL_KINDS.includes(kind as SymbolKind)) throw new UsageError(`unknown symbol kind "${kind}"`, { hint: `kinds: ${SYMBOL_KINDS.join(', ')}` });
  const max = options.maxResults ?? DEFAULT_SYMBOL_RESULTS;
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxResults must be a whole number of at least 1, not ${max}`);

  const path = query.replace(/::|\.|#|\//g, '-');
  const lowerName = query.toLowerCase();
  const lowerPath = path.toLowerCase();
  const found: Array<SymbolMatch & { rank: number; roleRank: number }> = [];
  for (const loaded of indexes) {
    const { index } = loaded;
    for (const file of index.file_summaries) {
      if (options.include && !options.include(index.repo_name, file)) continue;
      for (const symbol of file.symbols) {
        if (kind && symbol.kind !== kind) continue;
        const match = matchOf(symbol, query, path, lowerName, lowerPath);
        if (!match) continue;
        found.push({
          ...outlineSymbol(symbol),
          repo_name: index.repo_name,
          index: loaded.key,
          file_path: file.file_path,
          match,
          rank: MATCH_ORDER.indexOf(match),
          roleRank: roleRank(file.role),
        });
      }
    }
  }
  found.sort(
    (a, b) =>
      a.rank - b.rank ||
      a.roleRank - b.roleRank ||
      (a.repo_name < b.repo_name ? -1 : a.repo_name > b.repo_name ? 1 : 0) ||
      (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : 0) ||
      a.start_line - b.start_line,
  );
  // The name is quoted back clipped: an agent's context should not get megabytes of its own input.
  const quoted = clipped(query, MAX_QUOTED_NAME);
  return {
    name: quoted,
    kind,
    total_matches: found.length,
    truncated: found.length > max,
    matches: found.slice(0, max).map(({ rank: _rank, roleRank: _role, ...match }) => match),
    ...(found.length === 0 ? { notice: `no symbol named "${quoted}"${kind ? ` of kind ${kind}` : ''} in ${indexes.length} index(es); try the name's last part (get finds LruCache.get and cacheGet), or a search` } : {}),
  };
}

function matchOf(symbol: CodeSymbol, query: string, path: string, lowerName: string, lowerPath: string): SymbolMatchKind | null {
  if (symbol.name === query) return 'exact';
  if (symbol.ast_path === path || symbol.ast_path.endsWith(`-${path}`)) return 'qualified';
  const name = symbol.name.toLowerCase();
  const astPath = symbol.ast_path.toLowerCase();
  if (name === lowerName || astPath === lowerPath || astPath.endsWith(`-${lowerPath}`)) return 'case_insensitive';
  // A trailing identifier part: `cacheGet` or `cache_get` for `get`, not `forget`.
  if (lowerName.length >= 3 && name.endsWith(lowerName) && name.length > lowerName.length) {
    const before = symbol.name[symbol.name.length - query.length - 1] as string;
    const first = symbol.name[symbol.name.length - query.length] as string;
    if (before === '_' || before === '$' || (first !== first.toLowerCase() && before === before.toLowerCase())) return 'suffix';
  }
  return null;
}

function outlineSymbol(symbol: CodeSymbol): OutlineSymbol {
  const out: OutlineSymbol = {
    kind: symbol.kind,
    name: symbol.name,
    ast_path: symbol.ast_path,
    start_line: symbol.start_line,
    end_line: symbol.end_line,
    depth: symbol.ast_path === symbol.name ? 0 : symbol.ast_path.split('-').length - 1,
  };
  if (symbol.doc) out.doc = symbol.doc;
  return out;
}

function findIndex(indexes: readonly LoadedIndex[], repo: string): LoadedIndex {
  const wanted = repo.trim();
  const hit =
    indexes.find((l) => l.key === wanted) ??
    indexes.find((l) => (l.packed?.repoName ?? l.index.repo_name) === wanted) ??
    indexes.find((l) => (l.packed?.repoName ?? l.index.repo_name).toLowerCase() === wanted.toLowerCase());
  if (hit) return hit;
  const names = indexes.map((l) => l.packed?.repoName ?? l.index.repo_name);
  throw new UsageError(`no index for repository "${repo}"`, { hint: names.length ? `indexed: ${names.join(', ')}` : 'run `coderag index <repo>` first' });
}

function cleanPath(filePath: string): string {
  return filePath.trim().replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/^\/+/, '').replace(/\/+$/, '');
}

/** Source first, then everything else, tests and docs last. */
function roleRank(role: string | undefined): number {
  if (role === 'lockfile') return 3;
  return !role || role === 'source' || role === 'entry_point' ? 0 : role === 'test' || role === 'docs' || role === 'example' || role === 'benchmark' ? 2 : 1;
}
