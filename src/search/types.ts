/**
 * The types the search modules share: a loaded index and its pack, a search's request and answer. Loading,
 * ranking, freshness and snippets all speak them, so they live below all of them.
 */
import type { FileRelationship, FileSummary, RepoIndex, SymbolKind } from '../index/types.js';
import type { Bm25fParams } from './bm25f.js';
import type { FieldIndex } from './fieldIndex.js';
import type { PassageParams } from './passages.js';

export interface LoadedIndex {
  /** The file's name without `.json`: DeepCode's key for an index. */
  key: string;
  file: string;
  /** The whole index. When a search pack answered for it, it is read and parsed on first use. */
  index: RepoIndex;
  /** Ranking statistics and profile access, when the index is large enough to have a search pack. */
  packed?: PackedIndex;
}

export interface PackedIndex {
  repoName: string;
  /** What freshness checks need of the index's metadata, kept in the pack: no search reads the index for it. */
  indexed: IndexedState | null;
  relationships: FileRelationship[];
  /**
   * The field index holding this index's documents, `size` of them from `start` on: the index's own (from 0),
   * or the one its folder's combined pack shares among all its indexes (folderPack.ts).
   */
  fieldIndex: FieldIndex;
  start: number;
  size: number;
  /** This index's own mean field lengths. */
  avgLength: Float64Array;
  /** The profile of this index's document `d` (the field index's document `start + d`). */
  profile(d: number): FileSummary;
  /** Where each of this index's profiles sits in its file, as [start, end) pairs. */
  profileRanges(): Float64Array;
}

/** What the check needs of an index's `analysis_metadata`; a search pack keeps it in its header (pack.ts). */
export interface IndexedState {
  repo_path?: string;
  git_commit?: string | null;
  git_dirty?: boolean | null;
  analysis_date?: string;
  duration_ms?: number;
}

/** The first is the default. */
export const SCORERS = ['bm25f', 'deepcode'] as const;
export type ScorerName = (typeof SCORERS)[number];
export const DEFAULT_SCORER: ScorerName = SCORERS[0];
export const ELEMENT_TYPES = ['file', 'function', 'class', 'method', 'interface', 'type', 'enum', 'struct', 'trait', 'module', 'namespace'] as const;
export type ElementType = (typeof ELEMENT_TYPES)[number];
export const GRANULARITIES = ['file', 'symbol'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export interface SearchRequest {
  target?: string;
  keywords?: string[];
  /** Free text, tokenised into keywords. */
  query?: string;
  maxResults?: number;
  /** Narrow the answer to one kind of element. */
  type?: ElementType;
  scorer?: ScorerName;
  /** BM25F weights; the tuned defaults unless a benchmark is searching for better ones. */
  params?: Bm25fParams;
  /** Weights for a task text (an issue report); the defaults unless a benchmark is searching for better ones. */
  taskParams?: TaskParams;
  /** `symbol`: also rank the symbols of the best files, as `symbols` in the answer. */
  granularity?: Granularity;
}

export interface MatchedSymbol {
  kind: SymbolKind;
  name: string;
  ast_path: string;
  start_line: number;
  end_line: number;
  /** The model's one-line description of the symbol, when the index has one. */
  description?: string;
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
  /** Source lines around the matching symbols, when asked for and the repository is on disk (snippets.ts). */
  snippets?: Snippet[];
  /** Why a reference with matching symbols has no snippets. */
  snippet_notice?: string;
}

export interface SearchResponse {
  target_file: string;
  keywords_used: string[];
  scorer: ScorerName;
  references: Reference[];
  relationships: MatchedRelationship[];
  /** With `granularity: symbol`: the symbols most likely to need the change, best first. */
  symbols?: RankedSymbol[];
  /**
   * What the request was read as, when it is a task text: its anchors (paths, names, options) and its size; and,
   * when ranking may read the repositories' files, how many of the first files were read for their passages (0:
   * none could be, so the ranking is the index's alone).
   */
  task?: { anchors: Anchor[]; truncated: boolean; passages_read?: number };
  /** Why the answer is empty, when it is: nothing searchable in the request, nothing indexed, or no match. */
  notice?: string;
}

export type AnchorKind = 'path' | 'symbol' | 'option';

/** Where an anchor came from, strongest first: a frame of a stack trace, code the reporter quoted, prose. */
export type AnchorSource = 'frame' | 'backtick' | 'identifier' | 'code' | 'dotted' | 'error' | 'prose';

/** What a task text points at (taskQuery.ts). */
export interface Anchor {
  kind: AnchorKind;
  /**
   * A path as written (`…/_io/saferepr.py` becomes `_io/saferepr.py`), a name with its qualifiers in dotted form
   * (`QuerySet.filter`, `django.db.models.Q`), or an option's name without its dashes (`ignore-paths`).
   */
  text: string;
  source: AnchorSource;
  /** A frame's path: the line numbers the frames name in it, ascending. */
  lines?: number[];
}

/** The task ranker's weights (taskRank.ts). */
export interface TaskParams {
  bm25f: Bm25fParams;
  /** Saturation of a word's count in the request: weight (k3 + 1) n / (k3 + n), 1 for a word said once. */
  k3: number;
  /** Only this many of the text's words are searched, those of highest idf times weight; 0 for all. */
  maxTerms: number;
  /** Extra weight of the words of the text's first line (an issue's title says what it is about): weight * (1 + title). */
  title: number;
  /** Share of the best text score an anchor of strength 1 adds. */
  anchorBoost: number;
  /** An anchor's weight by where it was found. */
  sources: Record<AnchorSource, number>;
  /** Of a symbol anchor that only matches a name, not its qualifier. */
  unqualified: number;
  /** Of a path anchor matched by its file name alone. */
  basenameOnly: number;
  /**
   * The plain keyword ranking of the same text (BM25F with the default weights, as a short request is ranked, but with the
   * task's role factors, and roles asked for by the title alone, as in the task ranking) fused
   * into the task ranking: `plain` is its weight (0: not fused), `k` the fusion's constant. k > 0: reciprocal-rank
   * fusion, 1 / (k + task rank) + plain / (k + plain rank); k = 0: each ranking's scores divided by its best, summed
   * with the plain ones weighted by `plain`.
   */
  fusion: {
    plain: number;
    k: number;
    /** The plain ranking searches only this many of the text's rarest words (0: all): the common ones cost most and decide least. */
    maxTerms: number;
  };
  /** The first files reordered by their best passage, when the corpus may read them (passages.ts). */
  passages: PassageParams;
  /** A task's definitions: their own words' weight beside their names', and the power their file's relative score counts to. */
  symbols: SymbolParams;
}

/** A symbol ranked as a place likely to need the change (symbolRank.ts). */
export interface RankedSymbol {
  repo_name: string;
  file_path: string;
  kind: SymbolKind;
  name: string;
  ast_path: string;
  start_line: number;
  end_line: number;
  /** Relative to the best symbol of the answer (1). */
  score: number;
  description?: string;
}

export interface MatchedRelationship extends FileRelationship {
  repo_name: string;
}

export interface Snippet {
  kind: string;
  ast_path: string;
  /** The symbol's own lines. */
  start_line: number;
  end_line: number;
  /** The lines shown: up to N before and after the symbol's first line, within the file. */
  from_line: number;
  to_line: number;
  text: string;
}

/** How definitions are ranked (symbolRank.ts). */
export interface SymbolParams {
  /** Weight of a symbol's own words (BM25 over its stored terms) beside its name's match. */
  body: number;
  /** Symbols of the best files first: a file's relative score counts to this power. */
  filePower: number;
  /**
   * A class that lacks a method its sibling classes have, when the request asks for that method, scores this times
   * the method's own score in the class's file: the fix adds the override there (0: never).
   */
  overrides: number;
  /** A function defined inside another function scores at least this times its parent's score (0: its own alone). */
  nested: number;
  /**
   * An overload (a function or method of the same name in the same scope: Java's `resolve(a)` beside
   * `resolve(a, b)`; Python's files have none) scores at least this times its best namesake's score (0: its own alone).
   */
  overloads: number;
  /** Methods of one class that one contract binds (`equals`, `hashCode`) score at least this times the best of them. */
  contracts: number;
}
