/**
 * `coderag index` as CI logs and scripts see it: NDJSON progress on stderr, exit code 3 when the index was
 * written but some files failed, and `.coderagignore` with its counts on the closing line.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

const files = {
  'src/cache.ts': 'import { now } from "./clock";\nexport function getCache() { return now(); }\n',
  'src/clock.ts': 'export const now = () => 0;\n',
  'fixtures/big.ts': 'export const a = 1;\n',
  'fixtures/deep/more.ts': 'export const b = 1;\n',
  'src/view.snap.ts': 'export const c = 1;\n',
  '.coderagignore': 'fixtures/\n*.snap.ts\n',
};

function events(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('coderag index --progress json (offline)', () => {
  it('writes only NDJSON on stderr: a file_done per file, repo_done, and a closing summary', async () => {
    const repo = makeTempRepo(files, { git: true });
    const out = makeTempDir();
    const result = await runCli(['index', repo.root, '--out', out, '--progress', 'json']);
    expect(result.code).toBe(0);
    const lines = events(result.stderr);
    expect(lines.filter((e) => e.type === 'file_done').map((e) => e.file_path).sort()).toEqual(['src/cache.ts', 'src/clock.ts']);
    expect(lines).toContainEqual(expect.objectContaining({ type: 'repo_done', repo_name: 'repo', output_path: path.join(out, 'repo_index.json') }));
    const summary = lines.at(-1);
    expect(summary).toMatchObject({ type: 'summary', exit_code: 0, failed_files: [] });
    expect((summary?.repositories as Array<Record<string, unknown>>)[0]).toMatchObject({
      repo_name: 'repo',
      files_by_status: { ok: 2, skipped: 0, failed: 0 },
      excluded_by_rule: { 'fixtures/': 2, '*.snap.ts': 1 },
      git_dirty: false,
    });
    expect(result.stdout.trim()).toBe(path.join(out, 'repo_index.json'));
    repo.remove();
  });

  it('reports a command that fails before it starts as one more NDJSON event, with its hint and exit code', async () => {
    const missing = path.join(makeTempDir(), 'nowhere');
    const result = await runCli(['index', missing, '--progress', 'json']);
    expect(result.code).toBe(2);
    expect(events(result.stderr)).toEqual([{ type: 'error', message: `repository not found: ${missing}`, exit_code: 2 }]);
    const unknown = await runCli(['index', missing, '--bogus', '--progress', 'json']);
    expect(unknown.code).toBe(2);
    expect(events(unknown.stderr)).toEqual([{ type: 'error', message: "unknown option '--bogus' (Did you mean --focus?)", hint: '(run with --help for usage)', exit_code: 2 }]);
  });

  it('says on the closing line how many files each .coderagignore rule excluded', async () => {
    const repo = makeTempRepo(files, { git: true });
    const result = await runCli(['index', repo.root, '--out', makeTempDir()]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/repo: 2 files indexed, 0 skipped, 3 excluded by \.coderagignore \(fixtures\/ 2, \*\.snap\.ts 1\), \d+\.\ds/);
    repo.remove();
  });
});

describe('coderag index when some files fail', () => {
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await startFakeLlmServer({ seed: 5 });
  });
  afterAll(() => server.close());

  it('writes the index, lists the failed files with their reasons, and exits 3', async () => {
    // No answer at all fails a file; an unusable answer would leave its static profile instead.
    server.configure({ latencyMs: 0, faults: { server_error: 1 } });
    const repo = makeTempRepo(files, { git: true });
    const out = makeTempDir();
    const config = path.join(makeTempDir(), 'indexer_config.yaml');
    writeFileSync(config, 'llm:\n  request_delay: 0\n  max_retries: 0\n');
    const env = { OPENAI_API_KEY: 'sk-test-0123456789abcdefghij', OPENAI_BASE_URL: server.openaiBaseUrl, CODERAG_CACHE_DIR: makeTempDir() };
    const result = await runCli(['index', repo.root, '--out', out, '--config', config, '--progress', 'json'], { env });
    expect(result.code).toBe(3);
    const index = JSON.parse(readFileSync(path.join(out, 'repo_index.json'), 'utf8'));
    const failed = index.file_summaries.filter((f: { status: string }) => f.status === 'failed');
    expect(failed.map((f: { file_path: string }) => f.file_path)).toEqual(['src/cache.ts', 'src/clock.ts']);
    for (const f of failed) expect(f.reason).toBeTruthy();
    const lines = events(result.stderr);
    expect(lines).toContainEqual(expect.objectContaining({ type: 'file_done', file_path: 'src/clock.ts', status: 'failed', reason: failed[1].reason }));
    const summary = lines.at(-1);
    expect(summary).toMatchObject({ type: 'summary', exit_code: 3 });
    expect(summary?.failed_files).toEqual(failed.map((f: { file_path: string; reason: string }) => ({ repo_name: 'repo', file_path: f.file_path, reason: f.reason })));

    const plain = await runCli(['index', repo.root, '--out', makeTempDir(), '--config', config, '--json'], { env });
    expect(plain.code).toBe(3);
    expect(JSON.parse(plain.stdout)).toMatchObject({ exit_code: 3, failed_files: summary?.failed_files });
    expect(plain.stderr).toContain(`warning: repo: src/cache.ts failed: ${failed[0].reason}`);
    expect(plain.stderr).toMatch(/repo: 0 files indexed, 0 skipped, 2 failed/);
    repo.remove();
  });
});
