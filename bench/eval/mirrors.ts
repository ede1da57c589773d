/**
 * Locating bare git mirrors.
 *
 * Root: $CODERAG_EVAL_MIRRORS, else /work/.mirror. For "owner/name" we look, in order, at
 *   <root>/<owner>+<name>   (the layout the workspace `fetch` tool produces: <root>/<owner>+<name>/repo)
 *   <root>/<owner>/<name>
 *   <root>/<name>
 * and accept the first directory that is itself a git dir or has a git dir child (searched up to two
 * levels deep, children sorted by name). A git dir is a directory holding `HEAD` and `objects/`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const DEFAULT_MIRROR_ROOT = process.env.CODERAG_EVAL_MIRRORS ?? '/work/.mirror';

function isGitDir(dir: string): boolean {
  return existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects')) && statSync(join(dir, 'objects')).isDirectory();
}

function findGitDirUnder(dir: string, depth: number): string | undefined {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
  if (isGitDir(dir)) return dir;
  if (depth === 0) return undefined;
  const children = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  // Prefer conventional names first.
  children.sort((a, b) => rankName(a) - rankName(b));
  for (const c of children) {
    const hit = findGitDirUnder(join(dir, c), depth - 1);
    if (hit) return hit;
  }
  return undefined;
}

function rankName(n: string): number {
  if (n === 'repo') return 0;
  if (n === '.git' || n.endsWith('.git')) return 1;
  return 2;
}

/** Returns the git dir for `owner/name`, or undefined when no mirror is present. */
export function findMirror(hint: string, root: string = DEFAULT_MIRROR_ROOT): string | undefined {
  const [owner, name] = hint.split('/');
  if (!owner || !name) throw new Error(`mirror hint must be owner/name, got ${hint}`);
  for (const cand of [join(root, `${owner}+${name}`), join(root, owner, name), join(root, name)]) {
    const hit = findGitDirUnder(cand, 2);
    if (hit) return hit;
  }
  return undefined;
}
