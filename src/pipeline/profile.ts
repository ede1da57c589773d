/**
 * Profile: one FileSummary per file. The static profile is complete on its own (facts from the parser,
 * meaning from doc comments and identifiers); a model, when configured, replaces the meaning and keeps the
 * facts. Skipped files get a summary that says why, in DeepCode's fields, so its readers show them sensibly.
 */
import type { FileSummary, SkipReason } from '../index/types.js';
import { detectLanguage } from '../extract/languages.js';
import { detectRole, describeFileType } from '../extract/role.js';
import type { StaticFacts } from '../extract/staticProfile.js';
import type { WalkedFile } from './walk.js';

export function isoDate(ms: number): string {
  return new Date(ms).toISOString();
}

/** A summary built from static facts alone; `key_concepts` are filled in once the whole repository is seen. */
export function staticSummary(file: WalkedFile, hash: string, facts: StaticFacts): FileSummary {
  const summary: FileSummary = {
    file_path: file.path,
    file_type: facts.file_type,
    main_functions: facts.main_functions,
    key_concepts: [],
    dependencies: facts.dependencies,
    summary: facts.summary,
    lines_of_code: facts.lines_of_code,
    last_modified: isoDate(file.mtimeMs),
    language: facts.language,
    role: facts.role,
    status: 'ok',
    profile_source: 'static',
    content_hash: hash,
    size_bytes: file.size,
    symbols: facts.symbols,
    local_imports: facts.local_imports,
  };
  if (facts.parse_error) summary.reason = `parse_error: ${facts.parse_error}`;
  return summary;
}

export function skippedSummary(file: WalkedFile, reason: SkipReason, detail: string): FileSummary {
  const language = detectLanguage(file.path).name;
  const role = detectRole(file.path);
  return {
    file_path: file.path,
    file_type: `${describeFileType(language, role)} (skipped: ${reason.replace(/_/g, ' ')})`,
    main_functions: [],
    key_concepts: [],
    dependencies: [],
    summary: `File skipped: ${detail}.`,
    lines_of_code: 0,
    last_modified: isoDate(file.mtimeMs),
    language,
    role,
    status: 'skipped',
    reason,
    profile_source: 'none',
    content_hash: '',
    size_bytes: file.size,
    symbols: [],
    local_imports: [],
  };
}
