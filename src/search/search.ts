/**
 * Search: rank the indexed files for a target file, keywords and free text, and find the target's
 * relationships. Pure over loaded indexes: no model call, no I/O. A `SearchCorpus` is built once and can
 * answer many queries (the MCP server keeps one).
 */
import type { CodeSymbol, FileSummary, SymbolKind } from '../index/types.js';
import { STOPWORDS, splitIdentifier, stem, tokens, words } from '../shared/text.js';
import { deepcodeScore, isRelevant, nameTokens, searchableTokens } from './deepcodeScore.js';
import type { LoadedIndex } from './load.js';
import { findRelationships, type MatchedRelationship } from './relationships.js';

export const SCORERS = ['deepcode'] as const;
export type ScorerName = (typeof SCORERS)[number];
export const ELEMENT_TYPES = ['file', 'function', 'class', 'method', 'interface', 'type', 'enum', 'struct', 'trait', 'module', 'namespace'] as const;
export type ElementType = (typeof ELEMENT_TYPES)[number];

export interface SearchRequest {
  target?: string;
  keywords?: string[];
  /** Free text, tokenised into keywords. */
  query?: string;
  maxResults?: number;
  /** Narrow the answer to one kind of element. */
  type?: ElementType;
  scorer?: ScorerName;
}

export interface MatchedSymbol {
  kind: SymbolKind;
  name: string;
  ast_path: string;
  start_line: number;
  end_line: number;
}

export interface Reference {
  repo_name: string;
  file_path: string;
  score: number;
  file_type: string;
  main_functions: string[];
  key_concepts: string[];
  dependencies: string[];
  summary: string;
  lines_of_code: number;
  role: string;
  language: string;
  symbols: MatchedSymbol[];
  matched_keywords: string[];
}

export interface SearchResponse {
  target_file: string;
  keywords_used: string[];
  scorer: ScorerName;
  references: Reference[];
  relationships: MatchedRelationship[];
}

interface SearchDoc {
  repo: string;
  file: FileSummary;
  searchable: Set<string>;
}

export class SearchCorpus {
  readonly indexes: readonly LoadedIndex[];
  private docsCache: SearchDoc[] | null = null;

  constructor(indexes: readonly LoadedIndex[]) {
    this.indexes = indexes;
  }

  /** Profiled files only: a skipped file has nothing to recommend it. Token sets are built on first use. */
  get docs(): SearchDoc[] {
    this.docsCache ??= this.indexes.flatMap(({ index }) =>
      index.file_summaries
        .filter((file) => file.status === 'ok')
        .map((file) => ({ repo: index.repo_name, file, searchable: searchableTokens(file) })),
    );
    return this.docsCache;
  }
}

export const DEFAULT_MAX_RESULTS = 10;

/** Comma-separated keywords plus the words of the free-text query, de-duplicated, in order. */
export function keywordsOf(request: SearchRequest): string[] {
  const fromList = (request.keywords ?? []).map((k) => k.trim()).filter(Boolean);
  const fromQuery = request.query ? queryWords(request.query) : [];
  const seen = new Set<string>();
  return [...fromList, ...fromQuery].filter((k) => {
    const key = k.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The words of free text worth searching for, as written (stemming happens at match time). */
export function queryWords(text: string): string[] {
  return [...new Set(words(text).filter((w) => w.length >= 2 && !STOPWORDS.has(w) && !/^\d+$/.test(w)))];
}

export function search(corpus: SearchCorpus, request: SearchRequest): SearchResponse {
  const target = request.target?.trim() ?? '';
  const keywords = keywordsOf(request);
  const maxResults = request.maxResults ?? DEFAULT_MAX_RESULTS;
  const scorer = request.scorer ?? 'deepcode';
  const wanted = new Set([...keywords.flatMap((k) => tokens(k)), ...nameTokens(target)]);

  const scored: Reference[] = [];
  for (const doc of corpus.docs) {
    const result = deepcodeScore(target, doc.file, keywords, doc.searchable);
    if (!isRelevant(result)) continue;
    const symbols = matchingSymbols(doc.file.symbols, wanted, request.type);
    if (request.type && request.type !== 'file' && symbols.length === 0) continue;
    scored.push(toReference(doc, result.score, result.matchedKeywords, request.type === 'file' ? [] : symbols));
  }
  scored.sort((a, b) => b.score - a.score || roleRank(a.role) - roleRank(b.role) || a.file_path.localeCompare(b.file_path));
  return {
    target_file: target,
    keywords_used: keywords,
    scorer,
    references: scored.slice(0, maxResults),
    relationships: target ? findRelationships(target, corpus.indexes) : [],
  };
}

/** Among equal scores, source before tests and docs. */
function roleRank(role: string): number {
  return role === 'source' || role === 'entry_point' ? 0 : role === 'test' || role === 'docs' || role === 'example' ? 2 : 1;
}

const MAX_SYMBOLS_PER_REFERENCE = 8;

/** The symbols whose names (or doc comments) carry a wanted token, so an answer can point at lines. */
export function matchingSymbols(symbols: readonly CodeSymbol[], wanted: ReadonlySet<string>, type?: ElementType): MatchedSymbol[] {
  const out: MatchedSymbol[] = [];
  for (const symbol of symbols) {
    if (type && type !== 'file' && symbol.kind !== type) continue;
    const nameHit = splitIdentifier(symbol.name).some((w) => wanted.has(stem(w)));
    const docHit = !nameHit && symbol.doc ? tokens(symbol.doc).some((t) => wanted.has(t)) : false;
    if (!nameHit && !docHit) continue;
    out.push({ kind: symbol.kind, name: symbol.name, ast_path: symbol.ast_path, start_line: symbol.start_line, end_line: symbol.end_line });
    if (out.length >= MAX_SYMBOLS_PER_REFERENCE) break;
  }
  return out;
}

function toReference(doc: SearchDoc, score: number, matched: string[], symbols: MatchedSymbol[]): Reference {
  const f = doc.file;
  return {
    repo_name: doc.repo,
    file_path: f.file_path,
    score: Math.round(score * 10000) / 10000,
    file_type: f.file_type,
    main_functions: f.main_functions,
    key_concepts: f.key_concepts,
    dependencies: f.dependencies,
    summary: f.summary,
    lines_of_code: f.lines_of_code,
    role: f.role ?? 'source',
    language: f.language ?? '',
    symbols,
    matched_keywords: matched,
  };
}
