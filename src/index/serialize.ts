/**
 * RepoIndex (de)serialisation. Writing is atomic (shared/atomicFile.ts), so a reader, or a crash, never sees
 * half an index. Reading validates the shape DeepCode's readers depend on, so a corrupt
 * file is named and skipped instead of breaking every query.
 */
import { SCHEMA_VERSION, type AnalysisMetadata, type CodeSymbol, type FileRelationship, type FileStatus, type FileSummary, type RepoIndex } from './types.js';

export interface JsonStyle {
  indent: number;
  ensureAscii: boolean;
}

export function toJson(value: unknown, style: JsonStyle): string {
  const text = JSON.stringify(value, null, style.indent);
  return style.ensureAscii ? escapeNonAscii(text) : text;
}

/** `output.ensure_ascii`: every character past ASCII as a \u escape, as Python's json.dumps writes it. */
export function escapeNonAscii(json: string): string {
  return json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Why a parsed JSON value is not a RepoIndex, or null when it is one. */
export function repoIndexProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const index = value as Record<string, unknown>;
  if (!Array.isArray(index.file_summaries)) return 'no file_summaries array';
  if (index.relationships !== undefined && !Array.isArray(index.relationships)) return 'relationships is not an array';
  for (const summary of index.file_summaries) {
    if (typeof summary !== 'object' || summary === null || typeof (summary as { file_path?: unknown }).file_path !== 'string') {
      return 'a file summary has no file_path';
    }
  }
  return null;
}

/** The index schema a parsed index says it was written with, when it says so with a whole number. */
export function schemaVersionOf(value: unknown): number | null {
  if (typeof value !== 'object' || value === null) return null;
  const metadata = (value as { analysis_metadata?: unknown }).analysis_metadata;
  const version = typeof metadata === 'object' && metadata !== null ? (metadata as { schema_version?: unknown }).schema_version : undefined;
  return typeof version === 'number' && Number.isSafeInteger(version) && version >= 0 ? version : null;
}

/**
 * What a reader should know about an index's schema: a newer one than this CodeRAG writes is read as far as
 * its fields are understood, and said so. Older schemas and DeepCode's indexes (no version) are read as they
 * are, their missing fields filled in, so they need no note.
 */
export function schemaNote(value: unknown): string | null {
  const version = schemaVersionOf(value);
  if (version === null || version <= SCHEMA_VERSION) return null;
  return `written by a newer CodeRAG (index schema ${version}; this one writes schema ${SCHEMA_VERSION}): read as far as its fields are understood; upgrade coderag to use all of it`;
}

/**
 * Fills the fields older or foreign (DeepCode-written) indexes lack, and drops or replaces values of the wrong
 * type (a symbol without a name, a count that is not a number), so search code can rely on the declared types
 * whatever the file held.
 */
export function normalizeRepoIndex(raw: Record<string, unknown>, fallbackName: string): RepoIndex {
  const index = raw as unknown as RepoIndex;
  const rawSummaries: unknown[] = Array.isArray(raw.file_summaries) ? raw.file_summaries : [];
  const summaries = rawSummaries.filter(isFileSummaryLike).map((s) => {
    const summary: FileSummary = {
      ...s,
      file_type: typeof s.file_type === 'string' ? s.file_type : '',
      main_functions: stringList(s.main_functions),
      key_concepts: stringList(s.key_concepts),
      dependencies: stringList(s.dependencies),
      summary: typeof s.summary === 'string' ? s.summary : '',
      lines_of_code: finiteNumber(s.lines_of_code, 0),
      symbols: Array.isArray(s.symbols) ? symbolsOf(s.symbols) : [],
      local_imports: stringList(s.local_imports),
      status: FILE_STATUSES.includes(s.status) ? s.status : 'ok',
    };
    for (const key of OPTIONAL_STRINGS) if (key in summary && typeof summary[key] !== 'string') delete summary[key];
    if ('size_bytes' in summary && !Number.isFinite(summary.size_bytes)) delete (summary as Partial<FileSummary>).size_bytes;
    return summary;
  });
  const relationships: unknown[] = Array.isArray(raw.relationships) ? raw.relationships : [];
  const metadata = raw.analysis_metadata;
  return {
    ...index,
    repo_name: typeof index.repo_name === 'string' && index.repo_name ? index.repo_name : fallbackName,
    total_files: finiteNumber(index.total_files, summaries.length),
    file_summaries: summaries,
    relationships: relationshipsOf(relationships),
    analysis_metadata: (typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? metadata : {}) as AnalysisMetadata,
  };
}

const FILE_STATUSES: readonly unknown[] = ['ok', 'skipped', 'failed'] satisfies FileStatus[];
const OPTIONAL_STRINGS = ['last_modified', 'language', 'role', 'reason', 'profile_source', 'content_hash', 'vocabulary'] as const;

function isFileSummaryLike(value: unknown): value is FileSummary {
  return typeof value === 'object' && value !== null && typeof (value as { file_path?: unknown }).file_path === 'string';
}

/** The list as it is when every symbol is well formed (the common case, and no copy), else repaired. */
function symbolsOf(values: readonly unknown[]): CodeSymbol[] {
  if (values.every(isWellFormedSymbol)) return values as CodeSymbol[];
  return values.flatMap(symbolOf);
}

function isWellFormedSymbol(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Partial<Record<keyof CodeSymbol, unknown>>;
  return (
    typeof s.name === 'string' &&
    typeof s.kind === 'string' &&
    typeof s.ast_path === 'string' &&
    Number.isFinite(s.start_line) &&
    Number.isFinite(s.end_line) &&
    (s.doc === undefined || typeof s.doc === 'string') &&
    (s.terms === undefined || typeof s.terms === 'string')
  );
}

/** A symbol with a name, a kind and finite lines; its path defaults to its name. */
function symbolOf(value: unknown): CodeSymbol[] {
  if (typeof value !== 'object' || value === null) return [];
  const s = value as Partial<Record<keyof CodeSymbol, unknown>>;
  if (typeof s.name !== 'string' || typeof s.kind !== 'string') return [];
  const start = finiteNumber(s.start_line, 0);
  const symbol: CodeSymbol = {
    kind: s.kind as CodeSymbol['kind'],
    name: s.name,
    ast_path: typeof s.ast_path === 'string' ? s.ast_path : s.name,
    start_line: start,
    end_line: finiteNumber(s.end_line, start),
  };
  if (typeof s.doc === 'string') symbol.doc = s.doc;
  if (typeof s.terms === 'string') symbol.terms = s.terms;
  return [symbol];
}

/**
 * The relationships among `values` that name both paths, each with its other fields given their types' empty
 * values when wrong: what a reader may rely on, from an index or from a search pack's header alike.
 */
export function relationshipsOf(values: readonly unknown[]): FileRelationship[] {
  return values.flatMap(relationshipOf);
}

function relationshipOf(value: unknown): FileRelationship[] {
  if (typeof value !== 'object' || value === null) return [];
  const r = value as Partial<Record<keyof FileRelationship, unknown>>;
  if (typeof r.repo_file_path !== 'string' || typeof r.target_file_path !== 'string') return [];
  const { source, ...rest } = value as FileRelationship;
  return [
    {
      ...rest,
      // Who inferred it, when it says so in words a reader knows; anything else is dropped.
      ...(source === 'static' || source === 'model' ? { source } : {}),
      relationship_type: typeof r.relationship_type === 'string' ? r.relationship_type : 'reference',
      confidence_score: finiteNumber(r.confidence_score, 0),
      helpful_aspects: stringList(r.helpful_aspects),
      potential_contributions: stringList(r.potential_contributions),
      usage_suggestions: typeof r.usage_suggestions === 'string' ? r.usage_suggestions : '',
    },
  ];
}

function finiteNumber(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
