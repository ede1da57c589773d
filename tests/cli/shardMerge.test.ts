/**
 * `coderag index --shard i/n` and `coderag merge`, as a CI matrix runs them: the merged shards equal the
 * index a single run writes, and shards that do not belong together are refused with the difference named.
 */
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoIndex } from '../../src/index/types.js';
import { runCli } from '../support/cli.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../support/tempRepo.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');
const SHARDS = 2;

const read = (file: string): RepoIndex => JSON.parse(readFileSync(file, 'utf8')) as RepoIndex;

/** The index without what differs between any two runs: when it ran and for how long. */
function withoutTimings(index: RepoIndex): unknown {
  const { analysis_date: _date, duration_ms: _duration, ...meta } = index.analysis_metadata;
  return { ...index, analysis_metadata: meta };
}

describe('coderag index --shard and coderag merge', () => {
  let repo: TempRepo;
  let fullOut: string;
  let shardOut: string;
  let mergedOut: string;
  let merge: Awaited<ReturnType<typeof runCli>>;
  const shardFile = (i: number, out = shardOut) => path.join(out, `polyglot_index.shard-${i}-of-${SHARDS}.json`);

  beforeAll(async () => {
    repo = makeTempRepo({}, { name: 'polyglot' });
    cpSync(fixture, repo.root, { recursive: true });
    repo.git('init', '-q');
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'fixture');
    fullOut = makeTempDir();
    shardOut = makeTempDir();
    mergedOut = makeTempDir();
    const runs = [runCli(['index', repo.root, '--out', fullOut, '-q'])];
    for (let i = 1; i <= SHARDS; i++) runs.push(runCli(['index', repo.root, '--out', shardOut, '--shard', `${i}/${SHARDS}`, '-q']));
    for (const run of await Promise.all(runs)) expect(run.code, run.stderr).toBe(0);
    merge = await runCli(['merge', shardOut, '--out', mergedOut]);
  }, 120_000);
  afterAll(() => repo.remove());

  it('splits the files between the shards, each file in exactly one', () => {
    const full = read(path.join(fullOut, 'polyglot_index.json'));
    const owned = Array.from({ length: SHARDS }, (_, i) => read(shardFile(i + 1)).file_summaries.map((f) => f.file_path));
    for (const files of owned) expect(files.length).toBeGreaterThan(0);
    expect(owned.flat().sort()).toEqual(full.file_summaries.map((f) => f.file_path).sort());
    expect(read(shardFile(2)).analysis_metadata.shard).toMatchObject({ index: 2, count: SHARDS, files_total: full.total_files });
  });

  it('resolves each shard\'s imports against the whole repository, not just its own files', () => {
    const crossing = Array.from({ length: SHARDS }, (_, i) => read(shardFile(i + 1))).flatMap((index) => {
      const own = new Set(index.file_summaries.map((f) => f.file_path));
      return index.file_summaries.flatMap((f) => f.local_imports.filter((target) => !own.has(target)));
    });
    expect(crossing.length).toBeGreaterThan(0);
  });

  it('merges the shards into the index a single run writes, apart from timings', () => {
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stdout.trim()).toBe(path.join(mergedOut, 'polyglot_index.json'));
    const full = read(path.join(fullOut, 'polyglot_index.json'));
    const merged = read(path.join(mergedOut, 'polyglot_index.json'));
    expect(withoutTimings(merged)).toEqual(withoutTimings(full));
    // Within one shard, concepts are weighed against that shard's files only: the merge had to choose them again.
    const fullConcepts = new Map(full.file_summaries.map((f) => [f.file_path, f.key_concepts]));
    const shardSummaries = Array.from({ length: SHARDS }, (_, i) => read(shardFile(i + 1)).file_summaries).flat();
    expect(shardSummaries.some((f) => JSON.stringify(f.key_concepts) !== JSON.stringify(fullConcepts.get(f.file_path)))).toBe(true);
    expect(readdirSync(mergedOut).filter((name) => !name.startsWith('.')).sort()).toEqual(['indexing_statistics.json', 'indexing_summary.json', 'polyglot_index.json']);
  });

  it('leaves partial indexes out of a search, saying why', async () => {
    const result = await runCli(['search', '--indexes', shardOut, '--keywords', 'cache', '--json']);
    expect(result.stderr).toContain(`skipped polyglot_index.shard-1-of-${SHARDS}.json: a partial index (shard 1/${SHARDS}); combine the shards with \`coderag merge\``);
  });

  it('refuses a set with a shard missing', async () => {
    const result = await runCli(['merge', shardFile(1), '--out', makeTempDir()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: polyglot: shard 2/${SHARDS} missing`);
  });

  it('refuses a complete index given as a shard', async () => {
    const result = await runCli(['merge', path.join(fullOut, 'polyglot_index.json'), '--out', makeTempDir()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is a complete index, not a shard');
  });

  it('refuses shards made with different settings, naming the setting', async () => {
    const other = makeTempDir();
    const run = await runCli(['index', repo.root, '--out', other, '--shard', `2/${SHARDS}`, '--max-file-size', '4096', '-q']);
    expect(run.code).toBe(0);
    const result = await runCli(['merge', shardFile(1), shardFile(2, other), '--out', makeTempDir()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: polyglot: shards were made with different settings: file_analysis.max_file_size is 1048576 in shard 1/${SHARDS}`);
    expect(result.stderr).toContain(`4096 in shard 2/${SHARDS}`);
  });

  it('refuses shards of different commits, naming both', async () => {
    const before = repo.git('rev-parse', 'HEAD').trim();
    repo.write('src/added.ts', 'export const added = 1;\n');
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'another night');
    const after = repo.git('rev-parse', 'HEAD').trim();
    const other = makeTempDir();
    const run = await runCli(['index', repo.root, '--out', other, '--shard', `2/${SHARDS}`, '-q']);
    expect(run.code).toBe(0);
    const result = await runCli(['merge', shardFile(1), shardFile(2, other), '--out', makeTempDir()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: polyglot: shards come from different commits: ${before} in shard 1/${SHARDS}`);
    expect(result.stderr).toContain(`${after} in shard 2/${SHARDS}`);
  });
});

describe('coderag merge of shards profiled by a model', () => {
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await startFakeLlmServer({ seed: 11 });
    server.configure({ latencyMs: 0, faults: {} });
  });
  afterAll(() => server.close());

  it('equals the single run: model profiles, relationships, calls and tokens', async () => {
    const dir = makeTempDir();
    const config = path.join(dir, 'indexer_config.yaml');
    // One file a request: packs form by arrival, so a shard's packs (and their shared prefixes) differ from the
    // single run's; with packs of one, calls and tokens add up exactly.
    writeFileSync(config, 'llm:\n  request_delay: 0\n  pack_max_files: 1\n');
    const target = path.join(dir, 'plan.txt');
    writeFileSync(target, 'src/cache/ttl_cache.ts\nsrc/http/router.ts\n');
    // Each run gets its own answer cache, so every run makes its own calls.
    const env = () => ({ OPENAI_API_KEY: 'sk-test-0123456789abcdefghij', OPENAI_BASE_URL: server.openaiBaseUrl, CODERAG_CACHE_DIR: makeTempDir() });
    const args = ['--config', config, '--target-structure', target, '-q'];
    const fullOut = makeTempDir();
    const shardOut = makeTempDir();
    const mergedOut = makeTempDir();
    const runs = await Promise.all([
      runCli(['index', fixture, '--out', fullOut, ...args], { env: env() }),
      runCli(['index', fixture, '--out', shardOut, '--shard', '1/2', ...args], { env: env() }),
      runCli(['index', fixture, '--out', shardOut, '--shard', '2/2', ...args], { env: env() }),
    ]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const merge = await runCli(['merge', shardOut, '--out', mergedOut, '-q']);
    expect(merge.code, merge.stderr).toBe(0);
    const full = read(path.join(fullOut, 'polyglot_index.json'));
    const merged = read(path.join(mergedOut, 'polyglot_index.json'));
    expect(full.analysis_metadata).toMatchObject({ provider: 'openai', llm_calls: 26 });
    expect(full.relationships.length).toBeGreaterThan(0);
    expect(withoutTimings(merged)).toEqual(withoutTimings(full));
  }, 120_000);
});
