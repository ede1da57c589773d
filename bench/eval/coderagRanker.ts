/**
 * CodeRAG as a Ranker, through the library API:
 *   indexRepo(treeDir, { config? }): Promise<RepoIndex>   (profiles files offline, writes nothing)
 *   search([index], { query?, target?, keywords?, maxResults, scorer? }): { references: [{ repo_name, file_path, score }] }
 *
 * run.ts imports this module lazily and skips the ranker (with a notice) while the API is not there yet.
 * Indexes are cached per tree directory for the life of the ranker (one run). run.ts visits each tree once, so a
 * small LRU bound (default 8 trees) keeps memory flat without ever re-indexing within a run.
 *
 * Indexes are also kept on disk under bench/.work/indexes/<tree>.<key>.json, where the key hashes every file of
 * src/ that can shape an index (everything but src/search, src/cli, src/mcp) plus the config, and whether the
 * index holds commit history. Ranking changes reuse them; a pipeline change re-indexes. Set
 * CODERAG_EVAL_INDEX_CACHE=0 to bypass the disk cache.
 *
 * History: a tree is `git archive` output, without `.git`; given the mirror and the tree's commit (`prepare`'s
 * `history`), the index reads the history of that commit through the library's `historySource`, as
 * `coderag index` reads a work tree's HEAD: nothing after the commit. Without it (no mirror), no history.
 */
import { createHash, type Hash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SearchCorpus, indexRepo, readRepositoryFile, search } from '../../src/lib.js';
import { toPosix } from './paths.js';
import type { RankedSymbol, SymbolRanker } from './issues.js';
import type { RankQuery, TreeHistory } from './types.js';

type RepoIndex = Awaited<ReturnType<typeof indexRepo>>;
type IndexOptions = NonNullable<Parameters<typeof indexRepo>[1]>;
type SearchRequest = Parameters<typeof search>[1];

export interface CodeRagRankerOptions {
  /** Passed to indexRepo as `config` (a partial configuration). */
  config?: IndexOptions['config'];
  /** Passed to search as `scorer`; unknown names are left for search() to reject. */
  scorer?: string;
  /** Ranker name in the results table (default "coderag", or "coderag:<scorer>"). */
  name?: string;
  /** How many tree indexes to keep in memory (default 8). */
  cacheSize?: number;
}

interface Prepared {
  treeDir: string;
  /** Built once per tree (or per set of roots), as a long-lived `coderag mcp` server would, not once per query. */
  corpus: SearchCorpus;
  /** With roots: each index's repo_name → its root folder under treeDir. */
  rootOf: Map<string, string> | null;
}

/** Repo-relative POSIX path for a reference, whether the index stored it relative or absolute. */
export function normaliseRefPath(treeDir: string, filePath: string): string {
  const p = isAbsolute(filePath) ? relative(treeDir, filePath) : filePath;
  return toPosix(p).replace(/^\/+/, '');
}

const HERE = dirname(fileURLToPath(import.meta.url));
const SRC_DIR = resolve(HERE, '..', '..', 'src');
export const INDEX_CACHE_DIR = resolve(HERE, '..', '.work', 'indexes');
/** Folders of src/ that read indexes but never shape them. */
const NOT_SHAPING = new Set(['search', 'cli', 'mcp', 'serve']);

/**
 * The sources that shape an index, hashed once (the process ranks with the sources it loaded at its start);
 * each key continues a copy of that hash.
 */
let sourcesHash: Hash | null = null;

function shapingSources(): Hash {
  if (sourcesHash) return sourcesHash;
  const hash = createHash('sha256');
  const walk = (dir: string, rel: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!(rel === '' && NOT_SHAPING.has(entry.name))) walk(join(dir, entry.name), childRel);
      } else if (entry.name.endsWith('.ts')) {
        hash.update(childRel).update('\0').update(readFileSync(join(dir, entry.name))).update('\0');
      }
    }
  };
  walk(SRC_DIR, '');
  sourcesHash = hash;
  return sourcesHash;
}

/** A hash of the sources that shape an index, of the config passed to indexRepo, and of whether it read history. */
export function indexCacheKey(config: unknown, history = false): string {
  const hash = shapingSources().copy();
  hash.update(JSON.stringify(config ?? null));
  if (history) hash.update('\0history');
  return hash.digest('hex').slice(0, 12);
}

/**
 * Reads the indexes run.ts cached, for the tuners: a tree's index built by the current sources (with its
 * history, else without), else its newest (ranking weights are tuned over indexes whose content the sources
 * outside src/search rarely change; `stale` counts those).
 */
export class IndexCache {
  private readonly files = existsSync(INDEX_CACHE_DIR) ? readdirSync(INDEX_CACHE_DIR).filter((f) => f.endsWith('.json')) : [];
  private readonly keys: readonly string[];
  stale = 0;

  /** `config`: the index configuration run.ts passed for the set (part of the cache key). */
  constructor(config?: unknown) {
    this.keys = [indexCacheKey(config, true), indexCacheKey(config)];
  }

  /** The cached index file of a tree (a folder name under bench/.work), or undefined when none was cached. */
  find(tree: string): string | undefined {
    const current = this.keys.map((key) => `${tree}.${key}.json`).find((f) => this.files.includes(f));
    if (current) return join(INDEX_CACHE_DIR, current);
    const older = this.files
      .filter((f) => f.startsWith(`${tree}.`))
      .map((f) => join(INDEX_CACHE_DIR, f))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
    if (older) this.stale++;
    return older;
  }

  read(tree: string): { file: string; index: RepoIndex } {
    const file = this.find(tree);
    if (!file) throw new Error(`no cached index for ${tree}: run bench/eval/run.ts first`);
    return { file, index: JSON.parse(readFileSync(file, 'utf8')) as RepoIndex };
  }
}

async function indexWithDiskCache(treeDir: string, config: IndexOptions['config'], key: string | null, history: TreeHistory | undefined): Promise<RepoIndex> {
  const options: IndexOptions = { ...(config ? { config } : {}), ...(history ? { historySource: history } : {}) };
  if (key === null) return indexRepo(treeDir, options);
  const file = join(INDEX_CACHE_DIR, `${basename(treeDir)}.${key}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as RepoIndex;
  const index = await indexRepo(treeDir, options);
  mkdirSync(INDEX_CACHE_DIR, { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(index));
  renameSync(tmp, file);
  return index;
}

export function createCodeRagRanker(opts: CodeRagRankerOptions = {}): SymbolRanker {
  const cacheSize = Math.max(1, opts.cacheSize ?? 8);
  const cache = new Map<string, Promise<RepoIndex>>();
  const noDiskCache = process.env.CODERAG_EVAL_INDEX_CACHE === '0';

  async function indexFor(treeDir: string, history?: TreeHistory): Promise<RepoIndex> {
    let p = cache.get(treeDir);
    if (p) {
      cache.delete(treeDir); // refresh LRU position
    } else {
      p = indexWithDiskCache(treeDir, opts.config, noDiskCache ? null : indexCacheKey(opts.config, history !== undefined), history);
      p.catch(() => cache.delete(treeDir));
    }
    cache.set(treeDir, p);
    while (cache.size > cacheSize) {
      const oldest = cache.keys().next().value;
      if (oldest === undefined) break;
      cache.delete(oldest);
    }
    return p;
  }

  /**
   * The files search() returns, best first, and its ranked symbols (`granularity: symbol`: the symbols of the best
   * files, best first, as `coderag search --granularity symbol` gives them).
   */
  async function rankWithSymbols(prepared: Prepared, q: RankQuery, k: number): Promise<{ files: string[]; symbols: RankedSymbol[] }> {
    const { treeDir, corpus, rootOf } = prepared;
    // Query mode sends the free-text query alone (search() tokenises it); target mode sends target + keywords,
    // the form agents use.
    const request: SearchRequest = {
      maxResults: k,
      granularity: 'symbol',
      ...(q.query ? { query: q.query } : {}),
      ...(q.target ? { target: q.target, keywords: q.keywords } : {}),
      ...(opts.scorer ? { scorer: opts.scorer as SearchRequest['scorer'] } : {}),
    };
    const res = await search(corpus, request);
    const pathOf = (repo: string, filePath: string): string => {
      const root = rootOf?.get(repo);
      return root ? `${root}/${normaliseRefPath(join(treeDir, root), filePath)}` : normaliseRefPath(treeDir, filePath);
    };
    const out = [...new Set(res.references.map((ref) => pathOf(ref.repo_name, ref.file_path)))];
    const symbols: RankedSymbol[] = (res.symbols ?? []).map((s) => ({ file: pathOf(s.repo_name, s.file_path), name: s.name, ast_path: s.ast_path, start_line: s.start_line, end_line: s.end_line, kind: s.kind }));
    return { files: out.slice(0, k), symbols };
  }

  return {
    name: opts.name ?? (opts.scorer ? `coderag:${opts.scorer}` : 'coderag'),
    async prepare(treeDir: string, _files: string[], roots?: readonly string[], history?: TreeHistory): Promise<Prepared> {
      const corpusOf = (indexes: readonly RepoIndex[]): SearchCorpus =>
        new SearchCorpus(indexes.map((index) => ({ key: index.repo_name, file: '', index })), { readFile: readRepositoryFile });
      if (!roots) return { treeDir, corpus: corpusOf([await indexFor(treeDir, history)]), rootOf: null };
      const indexes: RepoIndex[] = [];
      const rootOf = new Map<string, string>();
      // One at a time: each indexRepo call already uses every core.
      for (const root of roots) {
        const index = await indexFor(join(treeDir, root));
        indexes.push(index);
        rootOf.set(index.repo_name, root);
      }
      return { treeDir, corpus: corpusOf(indexes), rootOf };
    },
    async rank(prepared: unknown, q: RankQuery, k: number): Promise<string[]> {
      return (await rankWithSymbols(prepared as Prepared, q, k)).files;
    },
    rankWithSymbols(prepared: unknown, q: RankQuery, k: number): Promise<{ files: string[]; symbols: RankedSymbol[] }> {
      return rankWithSymbols(prepared as Prepared, q, k);
    },
  };
}

export default createCodeRagRanker;
