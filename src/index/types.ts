/**
 * The RepoIndex format: DeepCode's field names (so its `code_reference_indexer.py` reads our files), plus our
 * additions beside them. Additions only, never renames: this file is a public contract.
 */

export const SCHEMA_VERSION = 2;

/** How a file ended up in the index. Anything but `ok` carries a reason. */
export type FileStatus = 'ok' | 'skipped' | 'failed';

export type SkipReason =
  | 'too_large'
  | 'symlink_outside_repo'
  | 'binary'
  | 'not_utf8'
  | 'generated'
  | 'secret_file'
  | 'unreadable'
  | 'empty';

/** Who wrote the profile's meaning: the parser alone, a model, or none (skipped files). */
export type ProfileSource = 'static' | 'llm' | 'none';

export type SymbolKind =
  | 'function'
  | 'class'
  | 'method'
  | 'interface'
  | 'type'
  | 'enum'
  | 'struct'
  | 'trait'
  | 'module'
  | 'namespace'
  | 'constant'
  | 'variable';

/** One element of a file, with enough to point at lines (seed 003: ast_path joins scopes with '-'). */
export interface CodeSymbol {
  kind: SymbolKind;
  name: string;
  ast_path: string;
  start_line: number;
  end_line: number;
  /** The element's doc comment or docstring, first paragraph, when it has one. */
  doc?: string;
  /** A model's one-line description of the element (model profiles only). */
  description?: string;
  /**
   * The words of the element's own lines (its body less the definitions nested in it: identifiers, string and
   * comment words), in the vocabulary format, most frequent first, bounded (src/extract/symbolTerms.ts).
   */
  terms?: string;
}

export interface FileSummary {
  // DeepCode's fields
  file_path: string;
  file_type: string;
  main_functions: string[];
  key_concepts: string[];
  dependencies: string[];
  summary: string;
  lines_of_code: number;
  last_modified: string;
  // CodeRAG's additions
  language: string;
  role: FileRole;
  status: FileStatus;
  reason?: string;
  profile_source: ProfileSource;
  content_hash: string;
  size_bytes: number;
  symbols: CodeSymbol[];
  /** Repo paths this file imports (resolved local dependencies); a subset of what `dependencies` names. */
  local_imports: string[];
  /**
   * Every word of the file (identifiers, comment and string words) with its count, most frequent first,
   * bounded: `expandIPv6:3 parseIPv4:2 address`. What grep would see, so the index alone can rank by it.
   */
  vocabulary?: string;
  secrets_redacted?: number;
  /**
   * Where a static profile's summary comes from: `doc`, the file's own header comment or docstring; `comment`, the
   * doc comment of its main definition (indexes before extraction 10: its first prose comment); `composed`, a
   * sentence from its definitions, exports and imports. Absent when a model wrote it.
   */
  summary_source?: SummarySource;
  /** A static profile's header too short to be its summary (`// Bulgarian [bg]`): the composed summary opens with it. */
  title?: string;
  /**
   * The subjects of the latest commits that touched the file, most recent first (git history of HEAD, bounded:
   * the `history` settings). Absent outside git, with `--no-history`, or for a file no commit within the bounds touched.
   */
  history?: string[];
}

export type SummarySource = 'doc' | 'comment' | 'composed';

/**
 * What a file is, from its path: `types` is a declaration file (`.d.ts`, `.d.mts`, `.pyi`) beside an
 * implementation; `benchmark` a benchmark (`bench/`, `benches/`); `lockfile` a package manager's lock file.
 */
export const FILE_ROLES = ['source', 'test', 'config', 'entry_point', 'docs', 'build', 'example', 'data', 'generated', 'types', 'benchmark', 'lockfile'] as const;
export type FileRole = (typeof FILE_ROLES)[number];

export interface FileRelationship {
  repo_file_path: string;
  target_file_path: string;
  relationship_type: string;
  confidence_score: number;
  helpful_aspects: string[];
  potential_contributions: string[];
  usage_suggestions: string;
  /**
   * Who inferred it: `static`, the search ranker over the profiles, with no model (pipeline/relate.ts); `model`,
   * a model's answer. Absent in indexes before it was recorded (those are a model's).
   */
  source?: RelationshipSource;
}

export type RelationshipSource = 'static' | 'model';

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Of `prompt_tokens`, those the provider served from its prompt cache (billed at a discount). */
  cached_prompt_tokens?: number;
}

export interface AnalysisMetadata {
  // DeepCode's fields
  analysis_date: string;
  target_structure_analyzed: string;
  total_relationships_found: number;
  high_confidence_relationships: number;
  analyzer_version: string;
  pre_filtering_enabled: boolean;
  files_before_filtering: number;
  files_after_filtering: number;
  filtering_efficiency: number;
  config_file_used: string | null;
  min_confidence_score: number;
  high_confidence_threshold: number;
  concurrent_analysis_used: boolean;
  content_caching_enabled: boolean;
  cache_hits: number;
  // CodeRAG's additions
  schema_version: number;
  tool: 'coderag';
  repo_path: string;
  git_commit: string | null;
  provider: string;
  model: string | null;
  prompt_version: string | null;
  focus: string | null;
  token_usage: TokenUsage;
  llm_calls: number;
  retries: number;
  secrets_redacted: number;
  files_by_status: Record<FileStatus, number>;
  skipped_by_reason: Record<string, number>;
  duration_ms: number;
  /** Whether tracked files differed from `git_commit` when indexed; null outside git. */
  git_dirty?: boolean | null;
  /** Files each `.coderagignore` rule excluded, by rule. */
  excluded_by_rule?: Record<string, number>;
  /** CodeRAG's own output the walk left out (its indexes, caches, search packs), repo-relative, folders ending in `/`. */
  own_output_excluded?: string[];
  /** Folders the walk could not list (permission denied), repo-relative, ending in `/`: their files are missing. */
  unreadable_folders?: string[];
  /**
   * Set when the work tree was a shallow clone (`git rev-parse --is-shallow-repository`): `history` holds only the
   * commits fetched, so entries may have none. Absent otherwise.
   */
  history_shallow?: boolean;
  /**
   * The repository's `origin` remote, normalised (`github.com/pallets/flask`): what names its index, so clones
   * in other folders write and reuse one index. Absent for a repository without one.
   */
  repo_remote?: string;
  /**
   * Folders skipped by name (`skip_directories`; outside git, build output such as `build/`), repo-relative ending
   * in `/`, with the files of supported extensions each held. Absent when none was.
   */
  skipped_folders?: Record<string, number>;
  /** Set on a partial index (`coderag index --shard i/n`); `coderag merge` combines a complete set. */
  shard?: ShardInfo;
  /** Model runs: files whose profile a model answer gave in this run (not from the cache). */
  llm_answered_files?: number;
  /** Model runs: files that kept their static profile because every answer was unusable (reason `llm_unusable: …`). */
  llm_unusable_files?: number;
  /** Model runs: relationships dropped because their target is not a file of the target structure. */
  relationships_outside_target?: number;
  /**
   * `static` when the relationships were inferred without a model, by searching the profiles for each file of the
   * target structure (every relationship then says `source: static`). Absent otherwise.
   */
  relationships_source?: 'static';
}

/** What a partial index must agree on with its siblings before `coderag merge` combines them. */
export interface ShardInfo {
  /** 1-based: shard `index` of `count`. */
  index: number;
  count: number;
  /** How many files the walk listed across all shards, and a digest of their paths. */
  files_total: number;
  files_digest: string;
  /** The settings that shape profiles (schema, analyzer, provider, model, prompts, file analysis, relationships). */
  settings: Record<string, unknown>;
}

export interface RepoIndex {
  repo_name: string;
  total_files: number;
  file_summaries: FileSummary[];
  relationships: FileRelationship[];
  analysis_metadata: AnalysisMetadata;
}
