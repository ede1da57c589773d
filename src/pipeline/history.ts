/**
 * History: the subjects of the past commits that touched each file, a search field (the index's `history`).
 *
 * Read from `git log` of one commit only, HEAD (or, for a tree exported without its `.git`, a revision of a git
 * directory kept elsewhere): never another ref, never a commit HEAD does not reach. Merges are left out, renames
 * followed (`-M`), and the read is bounded: at most `max_commits` commits, none older than `max_age_days` before
 * HEAD's commit date (not the clock, so an old checkout reads the same history whenever it is indexed). git's
 * output is read line by line and only the bounded list of commits is kept.
 *
 * The commits read are kept in the reuse state with the HEAD they were read at. The next run reads only
 * `previous..HEAD` when the previous HEAD is an ancestor of the new one, and merges: the commits newest first,
 * cut by the same bounds, are then those a full read gives (git lists a history newest first; commit dates that
 * go backwards, a skewed clock, are the one case where a full read may differ). Any other move of HEAD (a
 * rewrite, a checkout of an older commit) reads it all again.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { redactSecrets } from '../shared/secrets.js';
import type { GitRunner } from './walk.js';

export interface HistorySettings {
  maxSubjects: number;
  maxCommits: number;
  maxAgeDays: number;
}

/** A work tree's HEAD, or a revision of a git directory (a tree exported with `git archive` has no `.git`). */
export type HistorySource = { workTree: string } | { gitDir: string; rev: string };

/**
 * One commit: its id, committer time (seconds), subject, the paths it touched (as named after it; none for a
 * commit touching more than WIDE_COMMIT files, whose subject says nothing about any one of them), and its renames.
 */
export type HistoryCommit = [sha: string, time: number, subject: string, paths: string[], renamed: Array<[from: string, to: string]>];

/** The commits read, and what they were read at and within: what the reuse state keeps for the next run. */
export interface HistoryState {
  head: string;
  /** HEAD's committer time, seconds. */
  time: number;
  maxCommits: number;
  maxAgeDays: number;
  commits: HistoryCommit[];
}

export interface ReadHistory {
  state: HistoryState;
  /** The previous state kept as it was (same HEAD), only the commits since it read, or everything read. */
  how: 'kept' | 'since previous' | 'full';
}

/** A commit touching more files than this (a reformat, a licence header, a vendored import) is attributed to none. */
export const WIDE_COMMIT = 100;
/** Subjects are cut to this many characters. */
const MAX_SUBJECT = 200;
const DAY_SECONDS = 86_400;

/** Reads git's output line by line; fails when git does (or is missing). */
export type GitLines = (args: string[], onLine: (line: string) => void) => Promise<void>;

export const streamGit: GitLines = (args, onLine) =>
  new Promise((resolve, reject) => {
    const child = spawn('git', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2048) stderr += chunk.toString('utf8');
    });
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', onLine);
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(stderr.trim() || `git exited with ${code}`))));
  });

/**
 * The history of `source` within `settings`' bounds, taking what `previous` read when it can; null when there is
 * none to read (not a git work tree, an ignored folder, no commit yet, git missing), with why in `reason`.
 */
export async function readHistory(
  source: HistorySource,
  settings: HistorySettings,
  previous: HistoryState | null,
  git: GitRunner,
  lines: GitLines = streamGit,
): Promise<ReadHistory | { state: null; reason: string }> {
  const base = 'workTree' in source ? ['-C', source.workTree] : [`--git-dir=${source.gitDir}`];
  if ('workTree' in source) {
    const inside = await git(['rev-parse', '--is-inside-work-tree'], source.workTree).then((out) => out.trim() === 'true', () => false);
    if (!inside) return { state: null, reason: 'not a git work tree' };
    // A folder git ignores (a dependency folder indexed as a corpus) has no history of its own.
    const ignored = await git(['check-ignore', '-q', '.'], source.workTree).then(() => true, () => false);
    if (ignored) return { state: null, reason: 'a folder git ignores' };
  }
  const rev = 'rev' in source ? source.rev : 'HEAD';
  let head = '';
  try {
    await lines([...base, 'log', '-1', '--format=%H %ct', rev, '--'], (line) => (head ||= line));
  } catch (error) {
    return { state: null, reason: `git log failed (${firstLine((error as Error).message)})` };
  }
  const [sha = '', seconds] = head.split(' ');
  const time = Number(seconds);
  if (!/^[0-9a-f]{40,64}$/.test(sha) || !Number.isSafeInteger(time)) return { state: null, reason: 'no commit to read' };
  const { maxCommits, maxAgeDays } = settings;
  const cutoff = time - maxAgeDays * DAY_SECONDS;
  const state = (commits: HistoryCommit[]): HistoryState => ({ head: sha, time, maxCommits, maxAgeDays, commits: bounded(commits, cutoff, maxCommits) });
  const log = async (range: string): Promise<HistoryCommit[]> => {
    const relative = 'workTree' in source ? ['--relative'] : [];
    const args = [...base, '-c', 'core.quotePath=false', 'log', '--no-merges', '-M', '--name-status', `--format=${RECORD}%H${UNIT}%ct${UNIT}%s`];
    return parseLog(lines, [...args, `--max-count=${maxCommits}`, `--since=@${cutoff}`, ...relative, range, '--']);
  };
  const same = previous && previous.maxCommits === maxCommits && previous.maxAgeDays === maxAgeDays;
  if (same && previous.head === sha) return { state: previous, how: 'kept' };
  // The previous read covers what a full read would take of it only when its cutoff is not later than this one's.
  if (same && previous.time <= time && (await isAncestor(base, previous.head, sha, lines))) {
    try {
      return { state: state([...(await log(`${previous.head}..${sha}`)), ...previous.commits]), how: 'since previous' };
    } catch {
      // Read it all below.
    }
  }
  try {
    return { state: state(await log(sha)), how: 'full' };
  } catch (error) {
    return { state: null, reason: `git log failed (${firstLine((error as Error).message)})` };
  }
}

const RECORD = '%x1e';
const UNIT = '%x1f';

async function isAncestor(base: string[], ancestor: string, of: string, lines: GitLines): Promise<boolean> {
  return lines([...base, 'merge-base', '--is-ancestor', ancestor, of], () => undefined).then(() => true, () => false);
}

/** Commits of `git log --name-status` in the format above, as git lists them (newest first). */
async function parseLog(lines: GitLines, args: string[]): Promise<HistoryCommit[]> {
  const commits: HistoryCommit[] = [];
  let current: HistoryCommit | null = null;
  let touched = 0;
  await lines(args, (line) => {
    if (line.startsWith('\x1e')) {
      const [sha = '', time = '', ...subject] = line.slice(1).split('\x1f');
      // Screened like the vocabulary: an index is shared like code is, and a subject may quote a key.
      current = [sha, Number(time), redactSecrets(subject.join(' ').trim().slice(0, MAX_SUBJECT)).text, [], []];
      commits.push(current);
      touched = 0;
      return;
    }
    if (!current || line === '') return;
    const [status = '', from = '', to] = line.split('\t');
    // A path git had to quote (control characters, quotes) is left out.
    if (from.startsWith('"') || to?.startsWith('"')) return;
    const paths = current[3];
    if (status.startsWith('R') && to !== undefined) current[4].push([from, to]);
    if (++touched > WIDE_COMMIT) paths.length = 0;
    else paths.push(to ?? from);
  });
  return commits;
}

/** Newest first (a stable sort: git's order among equal dates), none before `cutoff`, at most `max`. */
function bounded(commits: HistoryCommit[], cutoff: number, max: number): HistoryCommit[] {
  return commits
    .filter((c) => c[1] >= cutoff)
    .sort((a, b) => b[1] - a[1])
    .slice(0, max);
}

/**
 * Each file's subjects, most recent first, at most `maxSubjects`, each once, under the file's name at HEAD: a
 * commit older than a rename counts for the file's new name.
 */
export function subjectsByFile(commits: readonly HistoryCommit[], maxSubjects: number): Map<string, string[]> {
  const out = new Map<string, string[]>();
  /** An older name -> the file's name at HEAD. */
  const renamedTo = new Map<string, string>();
  const current = (p: string): string => renamedTo.get(p) ?? p;
  for (const [, , subject, paths, renamed] of commits) {
    if (subject) {
      for (const p of paths) {
        const name = current(p);
        const list = out.get(name);
        if (!list) out.set(name, [subject]);
        else if (list.length < maxSubjects && !list.includes(subject)) list.push(subject);
      }
    }
    for (const [from, to] of renamed) renamedTo.set(from, current(to));
  }
  return out;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}
