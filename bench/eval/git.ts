/** Thin synchronous wrappers around the git CLI for bare mirrors. */
import { execFileSync } from 'node:child_process';

export function git(gitDir: string, args: readonly string[], input?: string): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], {
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 512,
    input,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

export interface FileChange {
  /** A, M, D, R, C, T (first letter of git's status). */
  status: string;
  /** Path at the parent (undefined for additions). */
  oldPath?: string;
  /** Path at the commit (undefined for deletions). */
  newPath?: string;
}

/** `git diff-tree -r -M --name-status -z parent commit`, parsed. */
export function diffTree(gitDir: string, parent: string, commit: string): FileChange[] {
  const out = git(gitDir, ['diff-tree', '-r', '-M', '--name-status', '-z', '--no-commit-id', parent, commit]);
  const f = out.split('\0');
  const changes: FileChange[] = [];
  for (let i = 0; i < f.length; ) {
    const st = f[i++];
    if (!st) continue;
    const s = st[0] ?? '';
    if (s === 'R' || s === 'C') {
      const a = f[i++] ?? '';
      const b = f[i++] ?? '';
      changes.push(s === 'R' ? { status: s, oldPath: a, newPath: b } : { status: s, newPath: b });
    } else {
      const p = f[i++] ?? '';
      if (s === 'A') changes.push({ status: s, newPath: p });
      else if (s === 'D') changes.push({ status: s, oldPath: p });
      else changes.push({ status: s, oldPath: p, newPath: p });
    }
  }
  return changes;
}
