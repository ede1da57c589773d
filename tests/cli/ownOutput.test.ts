/**
 * CodeRAG run from inside the repository it indexes (the usual case, and the nightly example's): its own
 * output (indexes, reuse states, search packs, the answer cache, shards) is never indexed, whatever
 * .gitignore says, and shards whose runners left different things behind still walk the same files.
 */
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoIndex } from '../../src/index/types.js';
import { runCli } from '../support/cli.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempRepo, type TempRepo } from '../support/tempRepo.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');
const read = (file: string): RepoIndex => JSON.parse(readFileSync(file, 'utf8')) as RepoIndex;
const paths = (index: RepoIndex): string[] => index.file_summaries.map((f) => f.file_path);
/** What CodeRAG writes, by any name it was given. */
const OWN = /(^|\/)(indexes|shards|old-run|\.coderag-cache|\.coderag-search)\/|\.state$|\.shard-\d+-of-\d+\.json$/;

/**
 * The polyglot fixture as a git repository whose .gitignore says nothing of CodeRAG's folders; given `origin`,
 * a clone of it (another runner's checkout of the same commit).
 */
function polyglotRepo(origin?: TempRepo): TempRepo {
  const repo = makeTempRepo({}, { name: 'polyglot' });
  if (origin) {
    repo.git('clone', '-q', origin.root, '.');
    return repo;
  }
  cpSync(fixture, repo.root, { recursive: true });
  writeFileSync(path.join(repo.root, '.gitignore'), 'node_modules/\n');
  repo.git('init', '-q');
  repo.git('add', '-A');
  repo.git('commit', '-qm', 'fixture');
  return repo;
}

describe('indexing a repository from its own root', () => {
  let repo: TempRepo;
  let first: Awaited<ReturnType<typeof runCli>>;
  let second: Awaited<ReturnType<typeof runCli>>;
  let firstIndex: RepoIndex;

  beforeAll(async () => {
    repo = polyglotRepo();
    // An answer cache left by a model run: JSON files a walk would otherwise take.
    const key = `ab${'0'.repeat(62)}`;
    repo.write(`.coderag-cache/ab/${key}.json`, '{"summary":"cached answer"}');
    first = await runCli(['index', '.'], { cwd: repo.root });
    firstIndex = read(path.join(repo.root, 'indexes', 'polyglot_index.json'));
    second = await runCli(['index', '.'], { cwd: repo.root });
  }, 120_000);
  afterAll(() => repo.remove());

  it('leaves out the output and cache folders on every run, and says so once', () => {
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    const index = read(path.join(repo.root, 'indexes', 'polyglot_index.json'));
    expect(paths(index).filter((p) => OWN.test(p))).toEqual([]);
    expect(paths(index)).toEqual(paths(firstIndex));
    expect(second.stderr).toContain("left out CodeRAG's own output: .coderag-cache/, indexes/");
    expect(second.stderr.split("CodeRAG's own output").length - 1).toBe(1);
    expect(index.analysis_metadata.own_output_excluded).toEqual(['.coderag-cache/', 'indexes/']);
  });

  it('reuses every entry on the second run: its own output, reuse state included, did not change the file list', () => {
    const index = read(path.join(repo.root, 'indexes', 'polyglot_index.json'));
    expect(index.total_files).toBe(firstIndex.total_files);
    expect(readdirSync(path.join(repo.root, 'indexes'))).toContain('.polyglot_index.json.state');
    expect(second.stderr).toMatch(new RegExp(`polyglot: ${firstIndex.total_files} of ${firstIndex.total_files} entries reused`));
  });
});

describe('shards of a repository whose runners left different things behind', () => {
  let runners: TempRepo[];
  let merge: Awaited<ReturnType<typeof runCli>>;
  let mergedDir: string;

  beforeAll(async () => {
    // Two runners' checkouts of one commit: two commits of the same files would differ by their time.
    const origin = polyglotRepo();
    runners = [origin, polyglotRepo(origin)];
    const [one, two] = runners as [TempRepo, TempRepo];
    // Runner 1 has last night's full index in indexes/, and an older run's output under another name.
    expect((await runCli(['index', '.', '-q'], { cwd: one.root })).code).toBe(0);
    expect((await runCli(['index', '.', '-q', '--out', 'old-run'], { cwd: one.root })).code).toBe(0);
    // Runner 2 has a stray shard of another night in a folder of its own.
    mkdirSync(path.join(two.root, 'stray'));
    writeFileSync(path.join(two.root, 'stray', 'polyglot_index.shard-1-of-2.json'), '{}');
    const shards = await Promise.all(runners.map((runner, i) => runCli(['index', '.', '--shard', `${i + 1}/2`, '--out', 'shards', '-q'], { cwd: runner.root })));
    for (const shard of shards) expect(shard.code, shard.stderr).toBe(0);
    mergedDir = path.join(two.root, 'indexes');
    merge = await runCli(['merge', path.join(one.root, 'shards', 'polyglot_index.shard-1-of-2.json'), path.join(two.root, 'shards', 'polyglot_index.shard-2-of-2.json'), '--out', mergedDir]);
  }, 180_000);
  afterAll(() => runners.forEach((runner) => runner.remove()));

  it('walk the same files, so merge takes them without complaint', () => {
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stderr).not.toContain('walked different file lists');
  });

  it('give a merged index with none of CodeRAG\'s own files', () => {
    const merged = read(path.join(mergedDir, 'polyglot_index.json'));
    expect(merged.total_files).toBeGreaterThan(20);
    expect(paths(merged).filter((p) => OWN.test(p) || p.startsWith('stray/'))).toEqual([]);
  });
});

describe('indexing a repository from its own root with a model', () => {
  let server: FakeLlmServer;
  let repo: TempRepo;
  beforeAll(async () => {
    server = await startFakeLlmServer({ seed: 5 });
    repo = polyglotRepo();
  });
  afterAll(async () => {
    await server.close();
    repo.remove();
  });

  it('never sends the answer cache, the indexes or the search packs to the model', async () => {
    const env = { OPENAI_API_KEY: 'sk-own-output-0123456789abcdef', OPENAI_BASE_URL: server.openaiBaseUrl };
    const first = await runCli(['index', '.', '-q'], { cwd: repo.root, env });
    expect(first.code, first.stderr).toBe(0);
    expect(readdirSync(path.join(repo.root, '.coderag-cache')).length).toBeGreaterThan(0);
    server.resetStats();
    // A changed file makes the second run ask the model again, with the cache and indexes now on disk.
    repo.write('src/changed.ts', 'export function changed(): number {\n  return 1;\n}\n');
    const second = await runCli(['index', '.'], { cwd: repo.root, env });
    expect(second.code, second.stderr).toBe(0);
    expect(server.stats.requests).toBeGreaterThan(0);
    const sent = server.stats.bodies.join('\n');
    expect(sent).toContain('src/changed.ts');
    expect(sent).not.toMatch(/\.coderag-cache\/|indexes\/|\.coderag-search\//);
    const index = read(path.join(repo.root, 'indexes', 'polyglot_index.json'));
    expect(paths(index).filter((p) => OWN.test(p))).toEqual([]);
    expect(second.stderr).toContain("left out CodeRAG's own output: .coderag-cache/, indexes/");
  }, 120_000);
});
