/**
 * History as a search field: the subjects of the commits that touched a file, from `git log` of HEAD only,
 * bounded, carried forward from run to run.
 */
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultConfig, type Config } from '../../src/config/schema.js';
import type { RepoIndex } from '../../src/index/types.js';
import type { IndexEvent } from '../../src/pipeline/events.js';
import { readHistory, streamGit, subjectsByFile, WIDE_COMMIT, type GitLines, type HistorySettings } from '../../src/pipeline/history.js';
import { indexRepository, runIndex } from '../../src/pipeline/runIndex.js';
import { runGit } from '../../src/pipeline/walk.js';
import { packPathFor } from '../../src/search/pack.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../support/tempRepo.js';

const DAY = 86_400;
const SETTINGS: HistorySettings = { maxSubjects: 10, maxCommits: 5000, maxAgeDays: 1095 };

/** A commit of everything in the work tree, dated `seconds` after 2001-09-09 (author and committer). */
function commit(repo: TempRepo, subject: string, seconds: number): void {
  const date = `@${1_000_000_000 + seconds} +0000`;
  repo.git('add', '-A');
  execGit(repo, ['commit', '-qm', subject, '--allow-empty'], date);
}

function execGit(repo: TempRepo, args: string[], date: string): void {
  process.env.GIT_COMMITTER_DATE = date;
  process.env.GIT_AUTHOR_DATE = date;
  try {
    repo.git(...args);
  } finally {
    delete process.env.GIT_COMMITTER_DATE;
    delete process.env.GIT_AUTHOR_DATE;
  }
}

/** A repository of three commits touching `core.py`, the last also `cli.py`. */
function threeCommits(): TempRepo {
  const repo = makeTempRepo({ 'core.py': 'def parse(text):\n    return text\n' });
  repo.git('init', '-q');
  commit(repo, 'Add the parser', 0);
  repo.write('core.py', 'def parse(text):\n    return text.strip()\n');
  commit(repo, 'Strip whitespace before parsing', DAY);
  repo.write('cli.py', 'from core import parse\n');
  repo.write('core.py', 'def parse(text):\n    return text.strip().lower()\n');
  commit(repo, 'Lowercase tokens in the command line', 2 * DAY);
  return repo;
}

async function indexWith(root: string, configure: (config: Config) => void = () => {}, events: IndexEvent[] = []): Promise<RepoIndex> {
  const config = defaultConfig();
  configure(config);
  return indexRepository(root, { config, onEvent: (e) => events.push(e) });
}

function historyOf(index: RepoIndex, file: string): string[] | undefined {
  return index.file_summaries.find((s) => s.file_path === file)?.history;
}

describe('commit history in the index', () => {
  it('gives each file the subjects of the commits that touched it, most recent first', async () => {
    const index = await indexWith(threeCommits().root);
    expect(historyOf(index, 'core.py')).toEqual(['Lowercase tokens in the command line', 'Strip whitespace before parsing', 'Add the parser']);
    expect(historyOf(index, 'cli.py')).toEqual(['Lowercase tokens in the command line']);
  });

  it('screens subjects for secrets, as it screens a file\'s words', async () => {
    const repo = threeCommits();
    repo.write('core.py', 'def parse(text):\n    return text\n');
    commit(repo, 'Revert the key AKIAABCDEFGHIJKLMNOP committed by mistake', 3 * DAY);
    const [latest] = historyOf(await indexWith(repo.root), 'core.py') ?? [];
    expect(latest).toMatch(/^Revert the key \[REDACTED:aws_access_key\] committed by mistake$/);
  });

  it('never reads a commit HEAD does not reach: another branch, or commits after a checkout of an older one', async () => {
    const repo = threeCommits();
    repo.git('checkout', '-q', '-b', 'later');
    repo.write('core.py', 'def parse(text):\n    return text.upper()\n');
    commit(repo, 'Shout every token on the later branch', 3 * DAY);
    repo.git('checkout', '-q', 'main');
    const onMain = await indexWith(repo.root);
    expect(JSON.stringify(onMain)).not.toContain('Shout every token');

    // HEAD moved back: the commits after it are in the repository, not in HEAD's history.
    repo.git('checkout', '-q', '--detach', 'HEAD~1');
    const out = makeTempDir();
    const { written } = await runIndex([repo.root], { config: defaultConfig(), outDir: out });
    const bytes = readFileSync(written[0]!.outputPath, 'utf8');
    expect(bytes).toContain('Strip whitespace before parsing');
    expect(bytes).not.toContain('Lowercase tokens');
    expect(bytes).not.toContain('Shout every token');
    expect(readFileSync(packPathFor(written[0]!.outputPath)).includes('lowercas')).toBe(false);
  });

  it('keeps at most max_subjects per file, reads at most max_commits, and none older than max_age_days before HEAD\'s date', async () => {
    const repo = threeCommits();
    const few = await indexWith(repo.root, (c) => (c.history.max_subjects = 2));
    expect(historyOf(few, 'core.py')).toEqual(['Lowercase tokens in the command line', 'Strip whitespace before parsing']);
    const recent = await indexWith(repo.root, (c) => (c.history.max_commits = 1));
    expect(historyOf(recent, 'core.py')).toEqual(['Lowercase tokens in the command line']);
    // Measured from HEAD's commit date (2001), not today's: a day back reaches the second commit, not the first.
    const young = await indexWith(repo.root, (c) => (c.history.max_age_days = 1));
    expect(historyOf(young, 'core.py')).toEqual(['Lowercase tokens in the command line', 'Strip whitespace before parsing']);
  });

  it('follows a rename, leaves merges out, and attributes a commit touching very many files to none', async () => {
    const repo = threeCommits();
    repo.git('mv', 'core.py', 'parser.py');
    commit(repo, 'Rename core to parser', 3 * DAY);
    repo.git('checkout', '-q', '-b', 'side');
    repo.write('side.py', 'x = 1\n');
    commit(repo, 'Side work', 4 * DAY);
    repo.git('checkout', '-q', 'main');
    execGit(repo, ['merge', '-q', '--no-ff', '-m', 'Merge the side branch', 'side'], `@${1_000_000_000 + 5 * DAY} +0000`);
    for (let i = 0; i <= WIDE_COMMIT; i++) repo.write(`many/m${i}.py`, `m = ${i}\n`);
    repo.write('side.py', 'x = 2\n');
    commit(repo, 'Reformat everything', 6 * DAY);
    const index = await indexWith(repo.root);
    expect(historyOf(index, 'parser.py')).toEqual(['Rename core to parser', 'Lowercase tokens in the command line', 'Strip whitespace before parsing', 'Add the parser']);
    expect(historyOf(index, 'side.py')).toEqual(['Side work']);
    expect(historyOf(index, 'many/m0.py')).toBeUndefined();
  });

  it('is left out with --no-history (history.enabled: false), and a folder outside git just has none', async () => {
    const off = await indexWith(threeCommits().root, (c) => (c.history.enabled = false));
    expect(off.file_summaries.every((s) => s.history === undefined)).toBe(true);
    const events: IndexEvent[] = [];
    const plain = await indexWith(makeTempRepo({ 'core.py': 'x = 1\n' }).root, () => {}, events);
    expect(plain.file_summaries.map((s) => s.file_path)).toEqual(['core.py']);
    expect(plain.file_summaries[0]!.history).toBeUndefined();
    expect(events).toContainEqual({ type: 'info', message: 'repo: no commit history (not a git work tree)' });
    expect(events.some((e) => e.type === 'warning')).toBe(false);
  });

  it('ranks a file by the subjects of the commits that touched it', async () => {
    const repo = threeCommits();
    const found = (index: RepoIndex) => search(new SearchCorpus([{ key: index.repo_name, file: '', index }]), { query: 'whitespace', maxResults: 3 }).references.map((r) => r.file_path);
    expect(found(await indexWith(repo.root))[0]).toBe('core.py');
    expect(found(await indexWith(repo.root, (c) => (c.history.enabled = false)))).toEqual([]);
  });

  it('reads history from a git directory at a revision, for a tree exported without its .git', async () => {
    const repo = threeCommits();
    const exported = makeTempRepo({ 'core.py': 'def parse(text):\n    return text.strip()\n' }).root;
    const rev = repo.git('rev-parse', 'HEAD~1').trim();
    const index = await indexRepository(exported, { config: defaultConfig(), historySource: { gitDir: `${repo.root}/.git`, rev } });
    expect(index.file_summaries[0]!.history).toEqual(['Strip whitespace before parsing', 'Add the parser']);
  });
});

describe('history read again on the next run', () => {
  /** Counts the `git log` reads of commits, and the ranges they asked for. */
  function countingLines(): { lines: GitLines; ranges: string[] } {
    const ranges: string[] = [];
    return {
      ranges,
      lines: (args, onLine) => {
        if (args.includes('--name-status')) ranges.push(args.at(-2) as string);
        return streamGit(args, onLine);
      },
    };
  }

  it('reads only the commits since the previous HEAD, and gives what a full read gives', async () => {
    const repo = threeCommits();
    const settings = { ...SETTINGS, maxCommits: 3 };
    const first = await readHistory({ workTree: repo.root }, settings, null, runGit);
    if (!first.state) throw new Error('no history');
    repo.write('cli.py', 'from core import parse\nprint(parse("x"))\n');
    commit(repo, 'Print what was parsed', 3 * DAY);
    const counted = countingLines();
    const next = await readHistory({ workTree: repo.root }, settings, first.state, runGit, counted.lines);
    const full = await readHistory({ workTree: repo.root }, settings, null, runGit);
    expect(next).toMatchObject({ how: 'since previous' });
    expect(counted.ranges).toEqual([`${first.state.head}..${next.state?.head}`]);
    expect(next.state).toEqual(full.state);
    // The cap of three commits let the oldest go.
    expect(subjectsByFile(next.state!.commits, 10).get('core.py')).toEqual(['Lowercase tokens in the command line', 'Strip whitespace before parsing']);
    // The same HEAD again: nothing is read.
    const again = countingLines();
    expect(await readHistory({ workTree: repo.root }, settings, next.state, runGit, again.lines)).toMatchObject({ how: 'kept' });
    expect(again.ranges).toEqual([]);
  });

  it('reads it all again after a rewrite, when the previous HEAD is no ancestor', async () => {
    const repo = threeCommits();
    const first = await readHistory({ workTree: repo.root }, SETTINGS, null, runGit);
    execGit(repo, ['commit', '-q', '--amend', '-m', 'Lowercase every token'], `@${1_000_000_000 + 3 * DAY} +0000`);
    const next = await readHistory({ workTree: repo.root }, SETTINGS, first.state, runGit);
    expect(next).toMatchObject({ how: 'full' });
    expect(next.state).toEqual((await readHistory({ workTree: repo.root }, SETTINGS, null, runGit)).state);
    expect(JSON.stringify(next.state)).not.toContain('Lowercase tokens in the command line');
  });

  it('leaves an unchanged git work tree\'s index and pack as they were; a new commit rewrites only what it changed', async () => {
    const repo = threeCommits();
    const out = makeTempDir();
    const first = await runIndex([repo.root], { config: defaultConfig(), outDir: out });
    const file = first.written[0]!.outputPath;
    const before = { index: readFileSync(file), date: statSync(file).mtimeMs, pack: readFileSync(packPathFor(file)) };
    const again = await runIndex([repo.root], { config: defaultConfig(), outDir: out });
    expect(again.packs).toEqual(['kept']);
    expect(readFileSync(file).equals(before.index)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.date);
    expect(readFileSync(packPathFor(file)).equals(before.pack)).toBe(true);

    // A commit to cli.py alone, with three commits read at most: core.py's bytes stay, its oldest subject goes.
    const capped = defaultConfig();
    capped.history.max_commits = 3;
    await runIndex([repo.root], { config: capped, outDir: out });
    repo.write('cli.py', 'from core import parse\nprint(parse("x"))\n');
    commit(repo, 'Print what was parsed', 3 * DAY);
    const next = await runIndex([repo.root], { config: capped, outDir: out });
    expect(next.written[0]!.reuse).toMatchObject({ extracted: 1 });
    const index = JSON.parse(readFileSync(file, 'utf8')) as RepoIndex;
    expect(historyOf(index, 'core.py')).toEqual(['Lowercase tokens in the command line', 'Strip whitespace before parsing']);
    const full = await runIndex([repo.root], { config: capped, outDir: makeTempDir(), reuse: false });
    const timeless = (f: string) => readFileSync(f, 'utf8').replace(/"(analysis_date|duration_ms)": [^,\n]+/g, '');
    expect(timeless(file)).toBe(timeless(full.written[0]!.outputPath));
  });
});
