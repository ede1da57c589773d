/**
 * An indexed file's current text, read from its repository (the index's `repo_path`): what a task's first files
 * are reordered by (passages.ts). Synchronous, as ranking is: it reads a handful of files per task.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Reads `filePath` (repository-relative) under `root`; undefined when it cannot or should not be read. */
export type RepositoryFileReader = (root: string, filePath: string) => string | undefined;

/** Larger files (bundles, generated tables) are not read: their passages would cost more than they tell. */
export const MAX_SOURCE_BYTES = 1024 * 1024;

/** The file as it is now: not a regular file, above MAX_SOURCE_BYTES, binary (a NUL byte), outside `root` or unreadable gives undefined. */
export function readRepositoryFile(root: string, filePath: string): string | undefined {
  const base = path.resolve(root);
  const file = path.resolve(base, filePath);
  if (!file.startsWith(`${base}${path.sep}`)) return undefined;
  try {
    const stats = statSync(file);
    if (!stats.isFile() || stats.size > MAX_SOURCE_BYTES) return undefined;
    const bytes = readFileSync(file);
    return bytes.includes(0) ? undefined : bytes.toString('utf8');
  } catch {
    return undefined;
  }
}
