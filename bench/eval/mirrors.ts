/**
 * Locating bare git mirrors.
 *
 * Root: the `--mirrors DIR` flag, else $CODERAG_EVAL_MIRRORS. There is no default: a machine's layout is not
 * the evaluation's business, and a missing root is reported with both names (see mirrorRoot).
 * For "owner/name" we look, in order, at
 *   <root>/<owner>+<name>   (the layout the workspace `fetch` tool produces: <root>/<owner>+<name>/repo)
 *   <root>/<owner>/<name>
 *   <root>/<name>
 * and accept the first directory that is itself a git dir or has a git dir child (searched up to two
 * levels deep, children sorted by name). A git dir is a directory holding `HEAD` and `objects/`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TreeHistory } from './types.js';

export const MIRRORS_ENV = 'CODERAG_EVAL_MIRRORS';
export const MIRRORS_FLAG = '--mirrors';

/**
 * The mirror root: the flag's value, else the environment variable. Throws a message naming both when neither is
 * set, or when the directory does not exist.
 */
export function mirrorRoot(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const given = flag ?? env[MIRRORS_ENV];
  if (!given) {
    throw new Error(
      `no git mirrors given: pass ${MIRRORS_FLAG} DIR or set ${MIRRORS_ENV}=DIR ` +
        `(DIR holds <owner>+<name>/ or <owner>/<name>/ git snapshots)`,
    );
  }
  const root = resolve(given);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new Error(`the mirror root ${root} (from ${flag ? MIRRORS_FLAG : MIRRORS_ENV}) is not a directory`);
  }
  return root;
}

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

/** Returns the git dir for `owner/name` under `root`, or undefined when no mirror is present. */
export function findMirror(hint: string, root: string): string | undefined {
  const [owner, name] = hint.split('/');
  if (!owner || !name) throw new Error(`mirror hint must be owner/name, got ${hint}`);
  for (const cand of [join(root, `${owner}+${name}`), join(root, owner, name), join(root, name)]) {
    const hit = findGitDirUnder(cand, 2);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * A lazy mirror finder for runners that need a mirror only for trees not cached yet: the root is resolved (and a
 * missing root reported) on the first look-up, not at start.
 */
export function mirrorFinder(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): (hint: string) => string | undefined {
  let root: string | undefined;
  const found = new Map<string, string | undefined>();
  return (hint) => {
    if (!found.has(hint)) {
      root ??= mirrorRoot(flag, env);
      found.set(hint, findMirror(hint, root));
    }
    return found.get(hint);
  };
}

/**
 * The history a ranker may read for a tree of `hint` at `rev`: the mirror and the commit, or undefined when there
 * is no mirror (or no mirror root: a cached tree needs none, and then has no history). A repository without one is
 * said once (`warn`), since its trees are then indexed, and cached, without history.
 */
export function treeHistory(findMirror: (hint: string) => string | undefined, hint: string, rev: string, warn: (line: string) => void = (l) => console.error(l)): TreeHistory | undefined {
  let gitDir: string | undefined;
  try {
    gitDir = findMirror(hint);
  } catch {
    // No mirror root: a cached tree needs none.
  }
  if (gitDir) return { gitDir, rev };
  if (!warnedWithoutHistory.has(hint)) {
    warnedWithoutHistory.add(hint);
    warn(`[eval] ${hint}: no mirror, so its trees are indexed without commit history (cached under the no-history key)`);
  }
  return undefined;
}

const warnedWithoutHistory = new Set<string>();
