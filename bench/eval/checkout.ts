/**
 * Materialises a repository tree at a commit into bench/.work/trees/<repo>@<sha>/ (git archive | tar -x).
 * Trees are immutable once written and reused across runs; cases that share a parent share a tree.
 * A tree is extracted into a temporary sibling directory and renamed into place, so a present directory is complete.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_TREES_DIR = resolve(HERE, '..', '.work', 'trees');

export function treeDirFor(repo: string, sha: string, treesDir: string = DEFAULT_TREES_DIR): string {
  return join(treesDir, `${repo}@${sha}`);
}

/**
 * Returns the tree directory for `repo@sha`, extracting it from `gitDir` when absent.
 * `gitDir` may be undefined when the tree is already cached (no mirror needed then).
 */
export function materialise(repo: string, sha: string, gitDir: string | undefined, treesDir: string = DEFAULT_TREES_DIR): string {
  const dir = treeDirFor(repo, sha, treesDir);
  if (existsSync(dir)) return dir;
  if (!gitDir) throw new Error(`tree ${repo}@${sha} is not cached and no mirror is available`);
  mkdirSync(treesDir, { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    try {
      archive(gitDir, sha, tmp, []);
    } catch (err) {
      // Mirrors may lack some large blobs (e.g. committed binaries). Retry without them and record what is absent.
      const missing = missingBlobs(gitDir, sha);
      if (missing.length === 0) throw err;
      rmSync(tmp, { recursive: true, force: true });
      mkdirSync(tmp, { recursive: true });
      archive(gitDir, sha, tmp, missing);
      writeFileSync(`${dir}.missing.txt`, missing.join('\n') + '\n');
      console.error(`[checkout] ${repo}@${sha.slice(0, 10)}: ${missing.length} blob(s) absent from the mirror, left out: ${missing.join(', ')}`);
    }
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (existsSync(dir)) return dir; // a concurrent run won the race
    throw err;
  }
  return dir;
}

/**
 * `git archive <sha> | tar -x` (honours export-ignore attributes; none of the mined repos mark source files so),
 * all of the tree but `exclude`, or only `include` when given.
 */
function archive(gitDir: string, sha: string, into: string, exclude: readonly string[], include: readonly string[] = []): void {
  const pathspecs = include.length
    ? ['--', ...include.map((p) => `:(literal)${p}`)]
    : exclude.length
      ? ['--', '.', ...exclude.map((p) => `:(exclude,literal)${p}`)]
      : [];
  // A pipeline's status is tar's: when `git archive` stops at an absent blob between two files, tar sees a clean end
  // and the tree would be silently cut short (it happened to a fastjson2 tree: 249 of 4,478 files). So git's own
  // status is recorded beside the directory and checked.
  const script =
    'd="$1"; s="$2"; o="$3"; shift 3; f="$o.archive-failed"; rm -f "$f"; ' +
    '{ git --git-dir="$d" archive --format=tar "$s" "$@" || : > "$f"; } | tar -x -C "$o" || exit 1; ' +
    'if [ -e "$f" ]; then rm -f "$f"; echo "git archive failed" >&2; exit 1; fi';
  execFileSync('sh', ['-c', script, 'sh', gitDir, sha, into, ...pathspecs], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

/** Paths of blobs in `sha`'s tree whose objects the mirror does not have. */
function missingBlobs(gitDir: string, sha: string): string[] {
  const ls = execFileSync('git', [`--git-dir=${gitDir}`, 'ls-tree', '-r', '-z', sha], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const blobs: Array<{ oid: string; path: string }> = [];
  for (const rec of ls.split('\0')) {
    const m = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(rec);
    if (m?.[1] && m[2] !== undefined) blobs.push({ oid: m[1], path: m[2] });
  }
  const check = execFileSync('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch-check'], {
    input: blobs.map((b) => b.oid).join('\n') + '\n',
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  }).split('\n');
  return blobs.filter((_, i) => / missing$/.test(check[i] ?? '')).map((b) => b.path);
}

/**
 * Returns `<into>/<name>`, holding only `files` of `sha` (extracted from `gitDir` when absent). Used by the
 * description set, which indexes a capped list of each repository's files. Like materialise(), the directory is
 * written to a temporary sibling and renamed into place, so a present directory is complete.
 */
export function materialiseFiles(into: string, name: string, sha: string, files: readonly string[], gitDir: string | undefined): string {
  const dir = join(into, name);
  if (existsSync(dir)) return dir;
  if (!gitDir) throw new Error(`files of ${name} are not cached and no mirror is available`);
  mkdirSync(into, { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    archive(gitDir, sha, tmp, [], files);
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (existsSync(dir)) return dir;
    throw err;
  }
  return dir;
}
