import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mayBeInGitRepository, runGit, walkRepository, type WalkOptions } from '../../src/pipeline/walk.js';
import { defaultConfig } from '../../src/config/schema.js';
import { readdirDenying } from '../support/deniedFs.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../support/tempRepo.js';

const defaults = defaultConfig().file_analysis;
const options: WalkOptions = {
  supportedExtensions: defaults.supported_extensions,
  skipDirectories: defaults.skip_directories,
  respectGitignore: true,
};

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
});

function repoWith(files: Record<string, string>, git = false): TempRepo {
  const repo = makeTempRepo(files, { git });
  repos.push(repo);
  return repo;
}

async function walkedPaths(root: string, overrides: Partial<WalkOptions> = {}): Promise<string[]> {
  const result = await walkRepository(root, { ...options, ...overrides });
  return result.files.map((f) => f.path);
}

const ignoredLayout = {
  '.gitignore': 'generated/\n*.log.ts\n',
  'src/app.ts': 'export const app = 1;',
  'src/debug.log.ts': 'x',
  'generated/api.ts': 'x',
  'packages/ui/.gitignore': 'fixtures/\n!keep.ts\n',
  'packages/ui/button.tsx': 'export {}',
  'packages/ui/fixtures/big.ts': 'x',
  'packages/ui/keep.ts': 'x',
};

describe.each([
  ['a plain folder (fast-glob + ignore)', false],
  ['a git work tree (git ls-files)', true],
])('walking %s', (_label, git) => {
  it('honours the root .gitignore and nested ones', async () => {
    const repo = repoWith(ignoredLayout, git);
    const paths = await walkedPaths(repo.root);
    expect(paths).toContain('src/app.ts');
    expect(paths).toContain('packages/ui/button.tsx');
    expect(paths).toContain('packages/ui/keep.ts');
    expect(paths).not.toContain('src/debug.log.ts');
    expect(paths).not.toContain('generated/api.ts');
    expect(paths).not.toContain('packages/ui/fixtures/big.ts');
  });

  it('honours .git/info/exclude', async () => {
    const repo = repoWith({ 'src/a.ts': 'x', 'src/secret_plan.ts': 'x' }, git);
    mkdirSync(path.join(repo.root, '.git', 'info'), { recursive: true });
    writeFileSync(path.join(repo.root, '.git', 'info', 'exclude'), 'secret_plan.ts\n');
    if (git) repo.git('rm', '-q', '--cached', 'src/secret_plan.ts');
    expect(await walkedPaths(repo.root)).toEqual(['src/a.ts']);
  });

  it('sees .tsx, .jsx, .mjs and .cjs files', async () => {
    const repo = repoWith({ 'a.tsx': 'x', 'b.jsx': 'x', 'c.mjs': 'x', 'd.cjs': 'x', 'e.exe': 'x' }, git);
    expect(await walkedPaths(repo.root)).toEqual(['a.tsx', 'b.jsx', 'c.mjs', 'd.cjs']);
  });

  it('matches skip_directories as whole path segments only', async () => {
    const repo = repoWith({ 'dist/out.ts': 'x', 'redist/tool.ts': 'x', 'src/dist/nested.ts': 'x', 'src/distant.ts': 'x' }, git);
    expect(await walkedPaths(repo.root)).toEqual(['redist/tool.ts', 'src/distant.ts']);
  });

  it('names every folder it skipped by name, with the files of supported extensions each held', async () => {
    const repo = repoWith({ 'dist/a.js': 'x', 'dist/b.js': 'x', 'dist/notes.bin': 'x', 'src/dist/c.ts': 'x', 'src/d.ts': 'x' }, git);
    expect((await walkRepository(repo.root, options)).skippedFolders).toEqual({ 'dist/': 2, 'src/dist/': 1 });
  });

  it('returns repo-relative POSIX paths in sorted order', async () => {
    const repo = repoWith({ 'z/last.py': 'x', 'a/first.py': 'x', 'm.py': 'x' }, git);
    expect(await walkedPaths(repo.root)).toEqual(['a/first.py', 'm.py', 'z/last.py']);
  });
});

describe('walking with symlinks', () => {
  it('never follows a directory symlink, so a loop ends', async () => {
    const repo = repoWith({ 'src/a.ts': 'x' });
    symlinkSync(path.join(repo.root, 'src'), path.join(repo.root, 'src', 'loop'));
    symlinkSync(repo.root, path.join(repo.root, 'root-loop'));
    expect(await walkedPaths(repo.root)).toEqual(['src/a.ts']);
  });

  it('records a file symlink that points out of the repository instead of reading it', async () => {
    const outside = makeTempDir();
    writeFileSync(path.join(outside, 'passwords.ts'), 'export const p = 1;');
    const repo = repoWith({ 'src/a.ts': 'x' });
    symlinkSync(path.join(outside, 'passwords.ts'), path.join(repo.root, 'src', 'leak.ts'));
    symlinkSync(path.join(repo.root, 'src', 'a.ts'), path.join(repo.root, 'alias.ts'));
    const result = await walkRepository(repo.root, options);
    expect(result.files.map((f) => f.path)).toEqual(['alias.ts', 'src/a.ts']);
    expect(result.outside.map((f) => f.path)).toEqual(['src/leak.ts']);
  });
});

describe('walking without gitignore', () => {
  it('lists ignored files when respect_gitignore is off', async () => {
    const repo = repoWith(ignoredLayout);
    expect(await walkedPaths(repo.root, { respectGitignore: false })).toContain('generated/api.ts');
  });

  it('reports the commit of a git work tree', async () => {
    const repo = repoWith({ 'a.ts': 'x' }, true);
    const result = await walkRepository(repo.root, options);
    expect(result.source).toBe('git');
    expect(result.gitCommit).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe.each([
  ['a plain folder', false],
  ['a git work tree', true],
])('.coderagignore in %s', (_label, git) => {
  const layout = {
    '.coderagignore': 'fixtures/\n*.snap.ts\n!keep.snap.ts\n',
    'src/app.ts': 'x',
    'src/app.snap.ts': 'x',
    'src/view.snap.ts': 'x',
    'src/keep.snap.ts': 'x',
    'fixtures/a.ts': 'x',
    'fixtures/deep/b.ts': 'x',
    'fixtures/c.ts': 'x',
    'pkg/.coderagignore': 'legacy.ts\n',
    'pkg/legacy.ts': 'x',
    'pkg/modern.ts': 'x',
    'legacy.ts': 'x',
  };

  it('excludes what its rules match, root and nested, and counts the files each rule excluded', async () => {
    const repo = repoWith(layout, git);
    const result = await walkRepository(repo.root, options);
    expect(result.files.map((f) => f.path)).toEqual(['legacy.ts', 'pkg/modern.ts', 'src/app.ts', 'src/keep.snap.ts']);
    expect(result.excludedByRule).toEqual({ 'fixtures/': 3, '*.snap.ts': 2, 'legacy.ts (in pkg/)': 1 });
  });

  it('still applies when .gitignore is not honoured', async () => {
    const repo = repoWith(layout, git);
    const result = await walkRepository(repo.root, { ...options, respectGitignore: false });
    expect(result.files.map((f) => f.path)).not.toContain('fixtures/a.ts');
    expect(result.excludedByRule['fixtures/']).toBe(3);
  });
});

describe('walking records whether the work tree was dirty', () => {
  it('is clean right after a commit, dirty once a tracked file changes, and unknown outside git', async () => {
    const repo = repoWith({ 'a.ts': 'x', 'b.ts': 'y' }, true);
    expect((await walkRepository(repo.root, options)).gitDirty).toBe(false);
    repo.write('untracked.ts', 'new');
    expect((await walkRepository(repo.root, options)).gitDirty).toBe(false);
    repo.write('a.ts', 'changed');
    expect((await walkRepository(repo.root, options)).gitDirty).toBe(true);
    const plain = repoWith({ 'a.ts': 'x' });
    expect((await walkRepository(plain.root, options)).gitDirty).toBeNull();
  });
});

describe('outside any git repository', () => {
  it('is told apart from a work tree, a folder inside one, a linked work tree, a bare repository and GIT_DIR', () => {
    const plain = repoWith({ 'a.ts': 'x' });
    expect(mayBeInGitRepository(plain.root, {})).toBe(false);
    expect(mayBeInGitRepository(plain.root, { GIT_DIR: '/elsewhere/.git' })).toBe(true);
    const work = repoWith({ 'src/deep/a.ts': 'x' }, true);
    expect(mayBeInGitRepository(work.root, {})).toBe(true);
    expect(mayBeInGitRepository(path.join(work.root, 'src', 'deep'), {})).toBe(true);
    const linked = repoWith({ '.git': 'gitdir: /elsewhere/.git/worktrees/linked\n' });
    expect(mayBeInGitRepository(linked.root, {})).toBe(true);
    const bare = repoWith({ HEAD: 'ref: refs/heads/main\n', 'objects/info/packs': '', 'refs/heads/.keep': '' });
    expect(mayBeInGitRepository(bare.root, {})).toBe(true);
    // A folder of a work tree reached through a symbolic link from outside it.
    const link = path.join(plain.root, 'linked-package');
    symlinkSync(path.join(work.root, 'src', 'deep'), link);
    expect(mayBeInGitRepository(link, {})).toBe(true);
  });

  it('walks the folder without starting git, whose every answer would be a failure', async () => {
    const plain = repoWith({ '.gitignore': 'skip.ts\n', 'a.ts': 'x', 'skip.ts': 'x' });
    expect(mayBeInGitRepository(plain.root, {})).toBe(false);
    // A `git` first on PATH that leaves a mark when it runs.
    const bin = repoWith({});
    const mark = path.join(bin.root, 'git-ran');
    writeFileSync(path.join(bin.root, 'git'), `#!/bin/sh\ntouch '${mark}'\nexit 128\n`);
    chmodSync(path.join(bin.root, 'git'), 0o755);
    const savedPath = process.env.PATH;
    const savedGitDir = process.env.GIT_DIR;
    process.env.PATH = `${bin.root}${path.delimiter}${savedPath ?? ''}`;
    // Run from a git hook, GIT_DIR would send every question to git.
    delete process.env.GIT_DIR;
    try {
      const result = await walkRepository(plain.root, options);
      expect(result.files.map((f) => f.path)).toEqual(['a.ts']);
      expect(result.source).toBe('filesystem');
      await expect(runGit(['rev-parse', 'HEAD'], plain.root)).rejects.toThrow(/not a git repository/);
    } finally {
      process.env.PATH = savedPath;
      if (savedGitDir !== undefined) process.env.GIT_DIR = savedGitDir;
    }
    expect(existsSync(mark)).toBe(false);
  });
});

describe('a folder that may not be listed', () => {
  const denying = readdirDenying(['locked', 'pgdata', 'volume', '.coderag-search']);

  it('is not named when .gitignore, .coderagignore, a skipped folder or CodeRAG\'s own output leaves it out anyway', async () => {
    const plain = repoWith({ 'a.ts': 'x', '.gitignore': 'pgdata/\n', '.coderagignore': 'volume\n', 'pgdata/base.ts': 'x', 'volume/v.ts': 'x', 'locked/c.ts': 'x', 'vendor/locked/d.ts': 'x', 'idx/.coderag-search/a.pack': 'x' });
    expect((await walkRepository(plain.root, { ...options, fs: { readdir: denying } })).unreadable).toEqual(['locked/']);
  });

  it('is named in the walk, its files left out, beside the folders that could be read', async () => {
    const plain = repoWith({ 'a.ts': 'x', 'locked/secret.ts': 'x', 'open/b.ts': 'x' });
    const result = await walkRepository(plain.root, { ...options, fs: { readdir: denying } });
    expect(result.files.map((f) => f.path)).toEqual(['a.ts', 'open/b.ts']);
    expect(result.unreadable).toEqual(['locked/']);
    expect((await walkRepository(plain.root, options)).unreadable).toEqual([]);
  });
});

describe('a file git lists that the work tree no longer has', () => {
  it('is left out, not a failed run, when a folder on its path became a file (ENOTDIR)', async () => {
    const repo = repoWith({ 'src/a.ts': 'x', 'lib/util.ts': 'x' }, true);
    rmSync(path.join(repo.root, 'lib'), { recursive: true });
    writeFileSync(path.join(repo.root, 'lib'), 'now a file');
    expect(await walkedPaths(repo.root)).toEqual(['src/a.ts']);
  });
});

describe.each([
  ['a plain folder', false],
  ['a git work tree', true],
])("CodeRAG's own output in %s", (_label, git) => {
  const cacheEntry = `cd/cd${'e'.repeat(62)}.json`;
  const layout = {
    'src/app.ts': 'x',
    // The output folder given, by a path through a symbolic link (below).
    'idx/repo_index.json': '{}',
    // Another run's output, found by its reuse state; another one's by its search packs.
    'old/repo_index.json': '{}',
    'old/.repo_index.json.state': '',
    'older/x_index.json': '{}',
    'older/.coderag-search/x_index.pack': '',
    // An answer cache under another name, and a stray shard.
    [`answers/${cacheEntry}`]: '{}',
    'stray/repo_index.shard-1-of-2.json': '{}',
    // Look-alikes that are the repository's own.
    'data/settings.json': '{}',
    'data/ab/notacache.json': '{}',
  };

  it('is left out by resolved path, and wherever it is by what marks it, and named once per folder', async () => {
    const repo = repoWith(layout, git);
    const link = path.join(makeTempDir(), 'link-to-repo');
    symlinkSync(repo.root, link);
    const result = await walkRepository(repo.root, { ...options, ownOutput: [path.join(link, 'idx'), path.join(repo.root, 'not-there-yet')] });
    expect(result.files.map((f) => f.path)).toEqual(['data/ab/notacache.json', 'data/settings.json', 'src/app.ts']);
    expect(result.ownOutput).toEqual(['answers/', 'idx/', 'old/', 'older/', 'stray/repo_index.shard-1-of-2.json']);
  });

  it('never leaves out the repository itself when the indexes are written into its root', async () => {
    const repo = repoWith({ 'src/app.ts': 'x', 'repo_index.json': '{}', '.repo_index.json.state': '', '.coderag-search/repo_index.pack': '' }, git);
    const result = await walkRepository(repo.root, { ...options, ownOutput: [repo.root] });
    expect(result.files.map((f) => f.path)).toEqual(['src/app.ts']);
    expect(result.ownOutput).toEqual(['repo_index.json']);
  });
});

describe('a folder named like build output', () => {
  const files = { 'build/build-validation.js': 'x', 'test/build/version.test.js': 'x', 'target/classes/A.java': 'x', 'lib/a.js': 'x' };

  it('is walked in a git work tree when git tracks it: a build/ folder of source is source', async () => {
    const repo = repoWith({ ...files, '.gitignore': 'target/\n' }, true);
    const walked = await walkRepository(repo.root, options);
    expect(walked.files.map((f) => f.path)).toEqual(['build/build-validation.js', 'lib/a.js', 'test/build/version.test.js']);
    expect(walked.skippedFolders).toEqual({});
  });

  it('is skipped outside git, where nothing says it is not build output, and counted', async () => {
    const repo = repoWith(files, false);
    const walked = await walkRepository(repo.root, options);
    expect(walked.files.map((f) => f.path)).toEqual(['lib/a.js']);
    expect(walked.skippedFolders).toEqual({ 'build/': 1, 'target/': 1, 'test/build/': 1 });
  });

  it('is walked outside git when the config keeps generated files (skip_generated: false)', async () => {
    const repo = repoWith(files, false);
    const walked = await walkRepository(repo.root, { ...options, skipBuildOutput: false });
    expect(walked.files.map((f) => f.path)).toEqual(['build/build-validation.js', 'lib/a.js', 'target/classes/A.java', 'test/build/version.test.js']);
    expect(walked.skippedFolders).toEqual({});
  });
});
