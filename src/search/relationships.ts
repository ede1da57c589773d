/**
 * The target file's relationships, matched with DeepCode's path normalisation (strip slashes, then the first
 * of `src/`, `core/`, `lib/`, `main/`, `./`; equal or contained either way), except that an empty path no
 * longer matches every target.
 */
import type { LoadedIndex, MatchedRelationship } from './types.js';

const COMMON_PREFIXES = ['src/', 'core/', 'lib/', 'main/', './'];

export function normalizeTargetPath(filePath: string): string {
  const trimmed = filePath.replace(/\\/g, '/').replace(/^\/+|\/+$/g, '');
  const prefix = COMMON_PREFIXES.find((p) => trimmed.startsWith(p));
  return prefix ? trimmed.slice(prefix.length) : trimmed;
}

export function targetPathsMatch(target: string, relationshipTarget: string): boolean {
  if (!target.trim() || !relationshipTarget.trim()) return false;
  const a = normalizeTargetPath(target);
  const b = normalizeTargetPath(relationshipTarget);
  return a === b || a.includes(b) || b.includes(a) || target.includes(relationshipTarget) || relationshipTarget.includes(target);
}

export function findRelationships(target: string, indexes: readonly LoadedIndex[]): MatchedRelationship[] {
  const found: MatchedRelationship[] = [];
  for (const loaded of indexes) {
    // A packed index carries its relationships, so this does not parse the whole index.
    const repoName = loaded.packed?.repoName ?? loaded.index.repo_name;
    for (const relationship of loaded.packed?.relationships ?? loaded.index.relationships) {
      if (targetPathsMatch(target, relationship.target_file_path)) found.push({ ...relationship, repo_name: repoName });
    }
  }
  return found.sort((a, b) => b.confidence_score - a.confidence_score);
}
