/**
 * One index per repository, wherever it is cloned: a repository is named by its git remote (normalised), by its
 * folder without one, or by --name, and its index file by that name.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { committedFixture } from '../support/reuseRuns.js';
import { gitIn, makeTempDir, makeTempRepo } from '../support/tempRepo.js';

const indexFiles = (out: string) => readdirSync(out).filter((n) => n.endsWith('_index.json')).sort();
const metadataOf = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { repo_name: string; analysis_metadata: { repo_path: string; repo_remote?: string } });

/** The polyglot fixture committed in a folder named `poly`, with an `origin` remote that is never fetched. */
function fixtureWithRemote(remote: string): string {
  const repo = committedFixture('the fixture');
  gitIn(repo)('remote', 'add', 'origin', remote);
  return repo;
}

function cloneInto(from: string, folder: string, remote: string): string {
  const to = path.join(makeTempDir(), folder);
  execFileSync('git', ['clone', '-q', from, to]);
  gitIn(to)('remote', 'set-url', 'origin', remote);
  return to;
}

describe('a repository indexed from two clones in folders of different names', () => {
  it('is named by its remote, reuses every entry by git blob, writes no second index, and no search lists a file twice', async () => {
    const first = fixtureWithRemote('https://github.com/Example/poly.git');
    const out = makeTempDir();
    const one = await runCli(['index', first, '--out', out]);
    expect(one.code).toBe(0);
    expect(indexFiles(out)).toEqual(['poly_index.json']);

    // The same repository, cloned over SSH into a folder of another name.
    const second = cloneInto(first, 'poly-fresh', 'git@GitHub.com:Example/poly');
    const two = await runCli(['index', second, '--out', out]);
    expect(two.code, two.stderr).toBe(0);
    expect(indexFiles(out)).toEqual(['poly_index.json']);
    expect(two.stderr).toMatch(new RegExp(`^poly: 26 files indexed.*; 26 reused from the index made in ${first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(0 by mtime and size, 26 by git blob, 0 by content hash\\), 0 extracted`, 'm'));
    const meta = metadataOf(path.join(out, 'poly_index.json'));
    expect(meta.repo_name).toBe('poly');
    expect(meta.analysis_metadata).toMatchObject({ repo_path: second, repo_remote: 'github.com/Example/poly' });

    const search = await runCli(['search', '--keywords', 'cache', '--indexes', out, '--json', '--max-results', '30']);
    const paths = (JSON.parse(search.stdout) as { references: Array<{ repo_name: string; file_path: string }> }).references.map((r) => `${r.repo_name}:${r.file_path}`);
    expect(paths.length).toBeGreaterThan(1);
    expect(new Set(paths).size).toBe(paths.length);
  }, 90_000);

  it('takes its name from --name instead', async () => {
    const repo = fixtureWithRemote('https://github.com/example/poly');
    const out = makeTempDir();
    const ran = await runCli(['index', repo, '--out', out, '--name', 'polyglot-demo']);
    expect(ran.code).toBe(0);
    expect(indexFiles(out)).toEqual(['polyglot-demo_index.json']);
    expect(metadataOf(path.join(out, 'polyglot-demo_index.json')).repo_name).toBe('polyglot-demo');
    expect((await runCli(['index', repo, repo, '--out', out, '--name', 'x'])).code).toBe(0);
    const two = await runCli(['index', repo, committedFixture('another'), '--out', out, '--name', 'x']);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('error: --name names one repository');
    expect((await runCli(['index', repo, '--out', out, '--name', '../up'])).stderr).toContain('error: --name "../up": expected a repository name');
  }, 60_000);

  it('refuses two clones of one repository in one run: they would write one index', async () => {
    const first = fixtureWithRemote('https://github.com/example/poly');
    const second = cloneInto(first, 'other', 'https://github.com/example/poly');
    const out = path.join(makeTempDir(), 'out');
    const ran = await runCli(['index', first, second, '--out', out]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`error: ${first} and ${second} are clones of one repository (github.com/example/poly)`);
    expect(existsSync(out)).toBe(false);
  }, 30_000);
});

describe('two different repositories whose folders share a name', () => {
  const app = (remote: string | null, file: string) => {
    const repo = makeTempRepo({ [file]: `export const ${file.replace(/\W/g, '')} = 1;\n` }, { name: 'app', git: true });
    if (remote) repo.git('remote', 'add', 'origin', remote);
    return repo.root;
  };

  it('are indexed side by side, in one run or two, the second named with its owner', async () => {
    const a = app('https://github.com/alice/app', 'alice.ts');
    const b = app('https://github.com/bob/app', 'bob.ts');
    const out = makeTempDir();
    const together = await runCli(['index', a, b, '--out', out]);
    expect(together.code, together.stderr).toBe(0);
    expect(together.stderr).toContain('bob/app: indexed as bob/app: the name app is taken');
    expect(indexFiles(out)).toEqual(['app_index.json', 'bob_app_index.json']);
    // Each night again, in either order, each keeps its own index.
    for (const order of [[b], [a], [b, a]]) {
      const ran = await runCli(['index', ...order, '--out', out]);
      expect(ran.code).toBe(0);
      expect(indexFiles(out)).toEqual(['app_index.json', 'bob_app_index.json']);
    }
    expect(metadataOf(path.join(out, 'app_index.json')).analysis_metadata.repo_remote).toBe('github.com/alice/app');
    expect(metadataOf(path.join(out, 'bob_app_index.json')).analysis_metadata.repo_remote).toBe('github.com/bob/app');
    const outline = await runCli(['outline', 'bob/app', 'bob.ts', '--indexes', out, '--json']);
    expect(outline.code).toBe(0);
  }, 90_000);

  it('without remotes, are told apart by their folders while both are on disk', async () => {
    const a = app(null, 'one.ts');
    const b = app(null, 'two.ts');
    const out = makeTempDir();
    expect((await runCli(['index', a, '--out', out])).code).toBe(0);
    const second = await runCli(['index', b, '--out', out]);
    expect(second.code).toBe(0);
    const parent = path.basename(path.dirname(b));
    expect(indexFiles(out)).toEqual([`${parent}_app_index.json`, 'app_index.json'].sort());
    expect(metadataOf(path.join(out, 'app_index.json')).analysis_metadata.repo_path).toBe(a);
  }, 60_000);

  it('without remotes, are one repository when --name says so: the second folder updates the first one\'s index', async () => {
    const a = app(null, 'one.ts');
    const b = app(null, 'two.ts');
    const out = makeTempDir();
    expect((await runCli(['index', a, '--out', out, '--name', 'alpha'])).code).toBe(0);
    const second = await runCli(['index', b, '--out', out, '--name', 'alpha']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`indexed as alpha (--name): updates the index of ${a} named so`);
    expect(indexFiles(out)).toEqual(['alpha_index.json']);
    const index = metadataOf(path.join(out, 'alpha_index.json'));
    expect(index.analysis_metadata.repo_path).toBe(b);
    // With a remote on each side and different ones, --name still refuses to mix two repositories.
    const c = app('https://github.com/carol/app', 'three.ts');
    const d = app('https://github.com/dave/app', 'four.ts');
    expect((await runCli(['index', c, '--out', out, '--name', 'shared'])).code).toBe(0);
    const refused = await runCli(['index', d, '--out', out, '--name', 'shared']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('are different repositories that would both be indexed as shared');
  }, 90_000);
});

describe('an index written before repositories were named by their remote', () => {
  it('is read, then renamed by the next run, its entries reused and none lost', async () => {
    const repo = committedFixture('the fixture');
    const clone = path.join(makeTempDir(), 'poly-work');
    execFileSync('git', ['clone', '-q', repo, clone]);
    gitIn(clone)('remote', 'remove', 'origin');
    const out = makeTempDir();
    // No remote: named after its folder, as every index was before.
    expect((await runCli(['index', clone, '--out', out])).code).toBe(0);
    expect(indexFiles(out)).toEqual(['poly-work_index.json']);
    expect((await runCli(['search', '--keywords', 'cache', '--indexes', out])).code).toBe(0);

    gitIn(clone)('remote', 'add', 'origin', 'https://github.com/example/poly.git');
    const again = await runCli(['index', clone, '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(indexFiles(out)).toEqual(['poly_index.json']);
    expect(readdirSync(out).filter((n) => n.includes('poly-work'))).toEqual([]);
    expect(readdirSync(path.join(out, '.coderag-search')).filter((n) => n.includes('poly-work'))).toEqual([]);
    expect(again.stderr).toContain('poly: poly-work_index.json, an index of this repository named after its folder, is replaced by poly_index.json');
    expect(again.stderr).toMatch(/^poly: 26 files indexed.*; 26 reused \(/m);
  }, 60_000);
});
