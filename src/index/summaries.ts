/** Facts about a stored FileSummary that more than one reader needs. */
import type { FileSummary } from './types.js';

/**
 * The static profiler composes a summary from the file's definitions, exports and imports when no comment
 * speaks for it ("Defines functions a, b; uses x."): its words restate other fields, and its boilerplate
 * ("defines", "uses") would match requests by accident. Indexes written before `summary_source` existed
 * started such a summary with the file type.
 */
export function isComposedSummary(file: Pick<FileSummary, 'profile_source' | 'file_type' | 'summary' | 'summary_source'>): boolean {
  if (file.profile_source !== 'static') return false;
  if (file.summary_source) return file.summary_source === 'composed';
  return file.file_type !== '' && file.summary.startsWith(file.file_type);
}

/** The summary's words a search may match: a composed summary's are only its title's (`Bulgarian [bg]`). */
export function searchableSummary(file: Pick<FileSummary, 'profile_source' | 'file_type' | 'summary' | 'summary_source' | 'title'>): string {
  return isComposedSummary(file) ? (file.title ?? '') : file.summary;
}
