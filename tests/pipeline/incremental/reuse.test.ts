import { appendFileSync, copyFileSync, cpSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import { SCHEMA_VERSION } from '../../../src/index/types.js';
import { stateFileFor } from '../../../src/pipeline/incremental/reuseState.js';
import { ageFiles, comparable, committedFixture, copyFixture, createRunner, warnings } from '../../support/reuseRuns.js';
import { gitIn, makeTempDir } from '../../support/tempRepo.js';

const runner = createRunner();
afterAll(() => runner.close());

const FILES = 26;

const git = (cwd: string, ...args: string[]): string => gitIn(cwd)(...args);

/** The polyglot fixture as a git repository named `poly` with one commit, files dated an hour back. */
const gitFixture = (): string => committedFixture('fixture');

function plainFixture(): string {
  const root = path.join(makeTempDir(), 'poly');
  copyFixture(root);
  return root;
}

describe('reusing the previous index', () => {
  it('reuses every entry of an unchanged repository without reading a file, and writes the same index', async () => {
    const repo = plainFixture();
    const out = makeTempDir();
    const cold = await runner.index(repo, out);
    expect(cold.reuse).toMatchObject({ reused: 0, extracted: FILES });
    const before = comparable(cold.outputPath);

    const again = await runner.index(repo, out);
    expect(again.reuse).toMatchObject({ reused: FILES, byMtime: FILES, extracted: 0, parsed: 0, hashed: 0 });
    expect(again.reads).toEqual([]);
    expect(comparable(again.outputPath)).toEqual(before);
  });

  it('recognises every file of a fresh clone by its git blob id, without reading one', async () => {
    const repo = gitFixture();
    const out = makeTempDir();
    const cold = await runner.index(repo, out);
    const clone = path.join(makeTempDir(), 'poly');
    git(path.dirname(clone), 'clone', '-q', repo, clone);

    const run = await runner.index(clone, out);
    expect(run.reuse).toMatchObject({ reused: FILES, byBlob: FILES, extracted: 0 });
    expect(run.reads).toEqual([]);
    const { analysis_metadata: a, ...restA } = comparable(run.outputPath) as { analysis_metadata: Record<string, unknown> };
    const { analysis_metadata: b, ...restB } = comparable(cold.outputPath) as { analysis_metadata: Record<string, unknown> };
    const dates = (index: typeof restA) => ({ ...index, file_summaries: (index as { file_summaries: Array<Record<string, unknown>> }).file_summaries.map(({ last_modified: _m, ...s }) => s) });
    expect(dates(restA)).toEqual(dates(restB));
    expect({ ...a, repo_path: '' }).toEqual({ ...b, repo_path: '' });
  });

  it('hashes a file whose mtime moved but whose content did not, and parses only the file that changed', async () => {
    const repo = plainFixture();
    const out = makeTempDir();
    await runner.index(repo, out);
    const now = new Date();
    utimesSync(path.join(repo, 'lib/tax.rb'), now, now);
    appendFileSync(path.join(repo, 'src/cache/clock.ts'), '\nexport function tick(): number {\n  return 1;\n}\n');

    const run = await runner.index(repo, out);
    expect(run.reuse).toMatchObject({ byMtime: FILES - 2, byHash: 1, hashed: 2, extracted: 1, parsed: 1 });
    const clock = run.index.file_summaries.find((s) => s.file_path === 'src/cache/clock.ts');
    expect(clock?.main_functions).toContain('tick');
  });

  it('hashes modified-but-unstaged files of a git work tree instead of trusting their blob id', async () => {
    const repo = gitFixture();
    const out = makeTempDir();
    await runner.index(repo, out);
    const clone = path.join(makeTempDir(), 'poly');
    git(path.dirname(clone), 'clone', '-q', repo, clone);
    writeFileSync(path.join(clone, 'lib/tax.rb'), 'def sales_tax(amount)\n  amount * 0.07\nend\n');

    const run = await runner.index(clone, out);
    expect(run.reuse).toMatchObject({ byBlob: FILES - 1, extracted: 1 });
    expect(run.index.file_summaries.find((s) => s.file_path === 'lib/tax.rb')?.main_functions).toEqual(['sales_tax']);
  });

  it('drops deleted files from the index, and re-resolves the imports of files that pointed at them without reading them', async () => {
    const repo = plainFixture();
    const out = makeTempDir();
    const cold = await runner.index(repo, out);
    const importer = cold.index.file_summaries.find((s) => s.local_imports.includes('src/cache/clock.ts'));
    expect(importer).toBeDefined();
    rmSync(path.join(repo, 'src/cache/clock.ts'));

    const run = await runner.index(repo, out);
    expect(run.reuse).toMatchObject({ reused: FILES - 1, reresolved: 1, extracted: 0, parsed: 0 });
    expect(run.reads).toEqual([]);
    expect(run.index.file_summaries.map((s) => s.file_path)).not.toContain('src/cache/clock.ts');
    expect(run.index.total_files).toBe(FILES - 1);
    expect(run.index.file_summaries.find((s) => s.file_path === importer?.file_path)?.local_imports).not.toContain('src/cache/clock.ts');
    expect(comparable(run.outputPath)).toEqual(comparable((await runner.index(repo, makeTempDir(), { reuse: false })).outputPath));
  });

  it('composes again the summary of a file whose import went, from what its record keeps', async () => {
    const repo = plainFixture();
    const out = makeTempDir();
    const cold = await runner.index(repo, out);
    const server = cold.index.file_summaries.find((s) => s.file_path === 'lib/server.mjs');
    expect(server).toMatchObject({ summary_source: 'composed', summary: 'Defines and exports class Server and function startServer; uses http and lib/router.js.' });
    rmSync(path.join(repo, 'lib/router.js'));

    const run = await runner.index(repo, out);
    expect(run.reuse).toMatchObject({ reresolved: 1, extracted: 0, parsed: 0 });
    expect(run.index.file_summaries.find((s) => s.file_path === 'lib/server.mjs')).toMatchObject({
      summary: 'Defines and exports class Server and function startServer; uses http.',
      dependencies: ['http'],
      local_imports: [],
    });
    expect(comparable(run.outputPath)).toEqual(comparable((await runner.index(repo, makeTempDir(), { reuse: false })).outputPath));
  });

  it('keeps the title a composed summary opens with when it composes the summary again', async () => {
    const repo = plainFixture();
    writeFileSync(path.join(repo, 'lib/bg.js'), "// Bulgarian [bg]\nconst router = require('./router.js');\nconst locale = { name: 'bg' };\nmodule.exports = locale;\n");
    const out = makeTempDir();
    const cold = await runner.index(repo, out);
    expect(cold.index.file_summaries.find((s) => s.file_path === 'lib/bg.js')?.summary).toBe('Bulgarian [bg]: Defines and exports constant locale; uses lib/router.js.');
    rmSync(path.join(repo, 'lib/router.js'));

    const run = await runner.index(repo, out);
    expect(run.reuse).toMatchObject({ extracted: 0, parsed: 0 });
    expect(run.index.file_summaries.find((s) => s.file_path === 'lib/bg.js')?.summary).toBe('Bulgarian [bg]: Defines and exports constant locale.');
    expect(comparable(run.outputPath)).toEqual(comparable((await runner.index(repo, makeTempDir(), { reuse: false })).outputPath));
  });

  it('keeps a renamed file\'s record whole, so its imports can be resolved again later without a parse', async () => {
    const repo = plainFixture();
    const out = makeTempDir();
    await runner.index(repo, out);
    // router.js requires compose.cjs; under its new name its entry is taken by content hash.
    renameSync(path.join(repo, 'lib/router.js'), path.join(repo, 'lib/routes.js'));
    expect((await runner.index(repo, out)).reuse).toMatchObject({ byHash: 1 });
    rmSync(path.join(repo, 'lib/compose.cjs'));

    const run = await runner.index(repo, out);
    expect(run.reuse).toMatchObject({ reresolved: 1, extracted: 0, parsed: 0 });
    expect(run.index.file_summaries.find((s) => s.file_path === 'lib/routes.js')?.local_imports).toEqual([]);
    expect(comparable(run.outputPath)).toEqual(comparable((await runner.index(repo, makeTempDir(), { reuse: false })).outputPath));
  });

  it('still reuses a state of the version before exports were kept, extracting an entry whose imports moved', async () => {
    const repo = plainFixture();
    const out = makeTempDir();
    const cold = await runner.index(repo, out);
    // The state as version 3 wrote it: each record's detail without its exports.
    const state = stateFileFor(cold.outputPath);
    const lines = readFileSync(state, 'utf8').split('\n');
    const header = JSON.parse(lines[0] as string) as { version: number };
    expect(header.version).toBe(4);
    const older = lines.slice(1).map((line) => (line.split('\t').length === 4 ? line.slice(0, line.lastIndexOf('\t')) : line));
    writeFileSync(state, [JSON.stringify({ ...header, version: 3 }), ...older].join('\n'));
    rmSync(path.join(repo, 'lib/router.js'));

    const run = await runner.index(repo, out);
    expect(run.reuse).toMatchObject({ reused: FILES - 2, reresolved: 0, extracted: 1 });
    expect(comparable(run.outputPath)).toEqual(comparable((await runner.index(repo, makeTempDir(), { reuse: false })).outputPath));
  });

  it('finds a renamed file by its content hash and still writes what a full run writes', async () => {
    const repo = plainFixture();
    const out = makeTempDir();
    await runner.index(repo, out);
    renameSync(path.join(repo, 'lib/tax.rb'), path.join(repo, 'lib/taxes.rb'));
    mkdirSync(path.join(repo, 'extra'));
    copyFileSync(path.join(repo, 'lib/billing.rb'), path.join(repo, 'extra/billing.rb'));

    const run = await runner.index(repo, out);
    // tax.rb is found under its new name; billing.rb required it, so its imports are resolved again without
    // parsing it; its copy, whose require_relative now finds nothing, is a moved entry and extracted again.
    expect(run.reuse).toMatchObject({ hashed: 2, byHash: 1, reresolved: 1, extracted: 1, parsed: 1 });
    expect(run.index.file_summaries.find((s) => s.file_path === 'lib/billing.rb')?.local_imports).toEqual([]);
    expect(comparable(run.outputPath)).toEqual(comparable((await runner.index(repo, makeTempDir(), { reuse: false })).outputPath));
  });

  it('recomputes every entry when an option that shapes entries changes', async () => {
    const repo = plainFixture();
    const out = makeTempDir();
    await runner.index(repo, out);
    const config = defaultConfig();
    config.file_analysis.max_file_size = 400;

    const run = await runner.index(repo, out, { config });
    expect(run.reuse).toMatchObject({ reused: 0, extracted: FILES });
    expect(run.events).toContainEqual({ type: 'info', message: expect.stringContaining('extraction changed since the previous index') });
    expect(run.index.analysis_metadata.skipped_by_reason.too_large).toBeGreaterThan(0);
  });

  it('stays correct by blob ids in a shallow clone whose recorded commit is missing', async () => {
    const repo = gitFixture();
    const out = makeTempDir();
    await runner.index(repo, out);
    writeFileSync(path.join(repo, 'lib/tax.rb'), 'def sales_tax(amount)\n  amount * 0.07\nend\n');
    git(repo, 'commit', '-qam', 'sales tax');
    const clone = path.join(makeTempDir(), 'poly');
    git(path.dirname(clone), 'clone', '-q', '--depth', '1', `file://${repo}`, clone);
    expect(() => git(clone, 'cat-file', '-e', `${git(repo, 'rev-parse', 'HEAD~1').trim()}^{commit}`)).toThrow();

    const run = await runner.index(clone, out);
    expect(run.reuse).toMatchObject({ byBlob: FILES - 1, extracted: 1 });
    expect(run.index.file_summaries.find((s) => s.file_path === 'lib/tax.rb')?.main_functions).toEqual(['sales_tax']);
  });
});

describe('the previous index of another clone', () => {
  it('is reused by git blob id when the clone has another origin, never by mtime', async () => {
    const repo = gitFixture();
    git(repo, 'remote', 'add', 'origin', 'https://example.invalid/upstream/poly.git');
    const out = makeTempDir();
    await runner.index(repo, out);
    // A fork: the same commit under another origin, in another folder, its files dated as the first's.
    const fork = path.join(makeTempDir(), 'poly');
    git(path.dirname(fork), 'clone', '-q', repo, fork);
    git(fork, 'remote', 'set-url', 'origin', 'https://example.invalid/fork/poly.git');
    ageFiles(fork);
    ageFiles(repo);

    const run = await runner.index(fork, out);
    expect(run.reuse).toMatchObject({ reused: FILES, byMtime: 0, byBlob: FILES, byHash: 0, extracted: 0 });
    expect(run.reads).toEqual([]);
    expect(warnings(run)).toEqual([]);
    expect(run.events).toContainEqual(expect.objectContaining({ type: 'info', message: expect.stringContaining(`was made from another clone, in ${repo} (https://example.invalid/upstream/poly.git)`) }));
    // Another repository: its index is seeded from the upstream's, which it does not overwrite.
    expect(path.basename(run.outputPath)).toBe('fork_poly_index.json');
    expect(JSON.parse(readFileSync(path.join(out, 'poly_index.json'), 'utf8')).analysis_metadata.repo_path).toBe(repo);
    const full = await runner.index(fork, makeTempDir(), { reuse: false, name: 'fork/poly' });
    expect(comparable(run.outputPath)).toEqual(comparable(full.outputPath));
  });

  it('is reused by content hash for a folder outside git, even with the same dates', async () => {
    const first = plainFixture();
    const out = makeTempDir();
    await runner.index(first, out);
    const other = path.join(makeTempDir(), 'poly');
    cpSync(first, other, { recursive: true, preserveTimestamps: true });
    // An edit that keeps the file's size and date: only its content tells it apart.
    const edited = path.join(other, 'src/cache/clock.ts');
    const { atime, mtime } = statSync(edited);
    const text = readFileSync(edited, 'utf8');
    writeFileSync(edited, text.replace('now', 'Now'));
    utimesSync(edited, atime, mtime);

    const run = await runner.index(other, out);
    expect(run.reuse).toMatchObject({ reused: FILES - 1, byMtime: 0, byBlob: 0, byHash: FILES - 1, extracted: 1 });
    // Another folder while the first is still there: another repository, named with its parent folder.
    expect(run.index.repo_name).toBe(`${path.basename(path.dirname(other))}/poly`);
    const full = await runner.index(other, makeTempDir(), { reuse: false, name: run.index.repo_name });
    expect(comparable(run.outputPath)).toEqual(comparable(full.outputPath));
  });
});

describe('a previous index that cannot be trusted is ignored with a warning and rebuilt', () => {
  it('when it is corrupt', async () => {
    const repo = plainFixture();
    const out = makeTempDir();
    const cold = await runner.index(repo, out);
    writeFileSync(cold.outputPath, readFileSync(cold.outputPath, 'utf8').slice(0, 500));

    const run = await runner.index(repo, out);
    expect(warnings(run)).toEqual([expect.stringMatching(/previous index .*poly_index\.json is corrupt \(not valid JSON\); ignored, every file is indexed again/)]);
    expect(run.reuse).toMatchObject({ reused: 0, extracted: FILES });
    expect(JSON.parse(readFileSync(run.outputPath, 'utf8')).total_files).toBe(FILES);
  });

  it('when it was written with an older schema', async () => {
    const repo = plainFixture();
    const out = makeTempDir();
    const cold = await runner.index(repo, out);
    const old = JSON.parse(readFileSync(cold.outputPath, 'utf8'));
    old.analysis_metadata.schema_version = 0;
    writeFileSync(cold.outputPath, JSON.stringify(old));

    const run = await runner.index(repo, out);
    expect(warnings(run)).toEqual([expect.stringContaining(`has schema version 0, not ${SCHEMA_VERSION}; ignored`)]);
    expect(run.reuse.reused).toBe(0);
  });

  it('but without a warning when only its reuse state is missing', async () => {
    const repo = plainFixture();
    const out = makeTempDir();
    const cold = await runner.index(repo, out);
    rmSync(stateFileFor(cold.outputPath));
    ageFiles(repo);

    const run = await runner.index(repo, out);
    expect(warnings(run)).toEqual([]);
    expect(run.reuse.reused).toBe(0);
  });
});
