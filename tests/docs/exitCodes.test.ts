/**
 * The exit codes are those docs/commands.md documents: this walks its table and, for each code, runs a command
 * that should end with it (offline, or against the fake model server for what needs a model), so a code the
 * program changes, or one the docs add or drop, fails here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliOptions, type CliResult } from '../support/cli.js';
import { ROOT } from '../support/docBlocks.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

const doc = readFileSync(path.join(ROOT, 'docs/commands.md'), 'utf8');
const table = doc.slice(doc.indexOf('## Exit codes'));
const documented = [...table.matchAll(/^\| `(\d+)` \| (.+) \|$/gm)].map((m) => ({ code: Number(m[1]), meaning: m[2] as string }));

const FILES = { 'src/cache.ts': 'export function cacheGet(key: string) {\n  return key;\n}\n', 'src/clock.ts': 'export const now = () => Date.now();\n' };

let server: FakeLlmServer;
let indexes: string;
let repo: string;

beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 3 });
  repo = makeTempRepo(FILES, { name: 'demo', git: true }).root;
  indexes = makeTempDir();
  expect((await runCli(['index', repo, '--out', indexes])).code).toBe(0);
}, 60_000);
afterAll(() => server?.close());

function modelConfig(): string {
  const file = path.join(makeTempDir(), 'indexer_config.yaml');
  writeFileSync(file, 'llm:\n  request_delay: 0\n  max_retries: 0\n  retry_delay: 0.01\nbatch:\n  poll_interval: 0.01\n');
  return file;
}
const openai = (): NodeJS.ProcessEnv => ({ OPENAI_API_KEY: 'sk-test-0123456789abcdefghij', OPENAI_BASE_URL: server.openaiBaseUrl, CODERAG_CACHE_DIR: makeTempDir() });
const anthropic = (): NodeJS.ProcessEnv => ({ ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, CODERAG_CACHE_DIR: makeTempDir() });

/** For each documented code, the commands that end with it, as the table's row describes them. */
const scenarios: Record<number, Array<[string, () => Promise<CliResult>]>> = {
  0: [['a search that answers', () => runCli(['search', '--keywords', 'cache', '--indexes', indexes])]],
  1: [
    [
      'a configuration that cannot be used',
      () => {
        const bad = path.join(makeTempDir(), 'bad.yaml');
        writeFileSync(bad, 'performance:\n  max_concurrent_files: -1\n');
        return runCli(['index', repo, '--config', bad, '--out', makeTempDir()]);
      },
    ],
    [
      'an output folder that cannot be written',
      () => {
        const file = path.join(makeTempDir(), 'a-file');
        writeFileSync(file, '');
        return runCli(['index', repo, '--out', file]);
      },
    ],
  ],
  2: [
    ['an unknown option', () => runCli(['search', '--no-such-option'])],
    ['a bad value', () => runCli(['search', '--keywords', 'cache', '--max-results', '0', '--indexes', indexes])],
    ['a repository that is not there', () => runCli(['index', path.join(makeTempDir(), 'missing'), '--out', makeTempDir()])],
    ['an indexes folder that is not there', () => runCli(['search', '--keywords', 'cache', '--indexes', path.join(makeTempDir(), 'missing')])],
    ['an indexes folder with no index in it', () => runCli(['overview', '--indexes', makeTempDir()])],
    ['a repository outline does not know', () => runCli(['outline', 'nope', 'src/cache.ts', '--indexes', indexes])],
    ['a file outline does not know', () => runCli(['outline', 'demo', 'src/nope.ts', '--indexes', indexes])],
    ['a repository a scope names that is not indexed', () => runCli(['search', '--keywords', 'cache', '--repo', 'nope', '--indexes', indexes])],
    ['a role a scope names that is not a role', () => runCli(['symbol', 'cacheGet', '--role', 'nope', '--indexes', indexes])],
  ],
  3: [
    [
      'a model answer that never came',
      () => {
        server.configure({ latencyMs: 0, faults: { server_error: 1 } });
        return runCli(['index', repo, '--out', makeTempDir(), '--config', modelConfig()], { env: openai() });
      },
    ],
  ],
  4: [
    [
      '--max-calls reached',
      () => {
        server.configure({ latencyMs: 0, faults: {} });
        return runCli(['index', repo, '--out', makeTempDir(), '--config', modelConfig(), '--max-calls', '0'], { env: openai() });
      },
    ],
  ],
  75: [
    [
      'a batch not finished yet',
      async () => {
        server.configure({ latencyMs: 0, faults: {}, batch: {} });
        server.batch.reset();
        const env = anthropic();
        const out = makeTempDir();
        const submit = await runCli(['index', repo, '--batch', '--out', out, '--config', modelConfig()], { env });
        expect(submit.code, submit.stderr).toBe(0);
        return runCli(['index', '--collect', submit.stdout.trim()], { env });
      },
    ],
  ],
  130: [
    [
      'Ctrl+C during a run',
      () => {
        server.configure({ latencyMs: 5000, faults: {} });
        const options: CliOptions = {
          env: openai(),
          onSpawn: (child) => {
            const poll = setInterval(() => {
              if (server.stats.inFlight > 0) {
                clearInterval(poll);
                child.kill('SIGINT');
              }
            }, 20);
          },
        };
        return runCli(['index', repo, '--out', makeTempDir(), '--config', modelConfig()], options);
      },
    ],
  ],
};

describe('the exit codes docs/commands.md documents', () => {
  it('are a table of 0, 1, 2, 3, 4, 75 and 130', () => {
    expect(documented.map((d) => d.code)).toEqual([0, 1, 2, 3, 4, 75, 130]);
  });

  it.each(documented.map((d) => d.code))('exit code %i is what the commands its row names end with', async (code) => {
    const cases = scenarios[code];
    expect(cases, `no scenario for exit code ${code}`).toBeDefined();
    for (const [what, run] of cases!) {
      const result = await run();
      expect(result.code, `${what}: ${result.stderr.slice(-600)}`).toBe(code);
    }
  }, 120_000);
});
