/** Facts about a stored FileSummary that more than one reader needs. */
import type { FileSummary } from './types.js';

/**
 * The static profiler composes a summary from the file's type, symbols and imports when the file has no doc
 * comment ("TypeScript source defining functions a, b. Uses x."): its words restate other fields.
 */
export function isComposedSummary(file: Pick<FileSummary, 'profile_source' | 'file_type' | 'summary'>): boolean {
  return file.profile_source === 'static' && file.file_type !== '' && file.summary.startsWith(file.file_type);
}
