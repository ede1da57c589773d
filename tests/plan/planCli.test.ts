/**
 * `coderag plan` as a user runs it: the built CLI against the fake server, with an answers file, at a real
 * pseudo-terminal (util-linux `script`, present on every Debian and Ubuntu machine), killed mid-conversation
 * and resumed; then the written structure feeds `index --target-structure` and `search`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, runCli } from '../support/cli.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir } from '../support/tempRepo.js';
import { CACHE_PLAN, isPlanRequest, planScript, question } from './planScript.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');
const KEY = 'sk-plan-cli-0123456789abcdefghij';
let server: FakeLlmServer;

beforeAll(async () => {
  server = await startFakeLlmServer({ seed: 11 });
});
afterAll(() => server.close());
beforeEach(() => {
  server.configure({ latencyMs: 0, faults: {}, respond: planScript([question('Should entries expire one by one?'), CACHE_PLAN]) });
  server.resetStats();
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.openaiBaseUrl, CODERAG_CACHE_DIR: makeTempDir('coderag-cache-'), ...extra };
}

/** A config file with no waits between requests or retries. */
function fastConfig(): string {
  const file = path.join(makeTempDir(), 'indexer_config.yaml');
  writeFileSync(file, 'llm:\n  request_delay: 0\n  retry_delay: 0\n');
  return file;
}

function answersFile(...answers: string[]): string {
  const file = path.join(makeTempDir(), 'answers.txt');
  writeFileSync(file, `${answers.join('\n')}\n`);
  return file;
}

const PLANNED = ['src/cache/clock.ts', 'src/cache/ttlCache.ts', 'src/http/server.ts'];

describe('coderag plan with --answers', () => {
  it('runs the conversation, writes the structure, and the structure yields relationships in index and search', async () => {
    const work = makeTempDir();
    const out = path.join(work, 'target_structure.md');
    const config = fastConfig();
    const planned = await runCli(['plan', '--query', 'a caching HTTP service', '--out', out, '--answers', answersFile('yes, one by one', 'approve'), '--config', config], { env: env() });
    expect(planned.stderr).toContain('[1] question: Should entries expire one by one?');
    expect(planned.stderr).toContain('> yes, one by one');
    expect(planned.stderr).toContain('[2] proposal: Here is the structure.');
    expect(planned.code).toBe(0);
    expect(planned.stdout).toBe(`${out}\n`);
    expect(existsSync(`${out}.plan.json`)).toBe(false);
    const text = readFileSync(out, 'utf8');
    for (const file of PLANNED) expect(text).toContain(file);

    server.configure({ respond: undefined });
    const indexes = path.join(work, 'indexes');
    const indexed = await runCli(['index', fixture, '--out', indexes, '--target-structure', out, '--config', config], { env: env() });
    expect(indexed.code).toBe(0);
    const index = JSON.parse(readFileSync(path.join(indexes, 'polyglot_index.json'), 'utf8'));
    const targets = new Set(index.relationships.map((r: { target_file_path: string }) => r.target_file_path));
    expect(PLANNED.filter((p) => targets.has(p)).length).toBeGreaterThan(0);

    const target = PLANNED.find((p) => targets.has(p))!;
    const searched = await runCli(['search', '--target', target, '--keywords', 'cache', '--indexes', indexes, '--json'], { env: cleanEnv() });
    expect(searched.code).toBe(0);
    expect(JSON.parse(searched.stdout).total_relationships_found).toBeGreaterThan(0);
  });

  it('is a usage error with no terminal and no answers file, before any model call', async () => {
    const started = Date.now();
    const result = await runCli(['plan', '--query', 'x', '--out', path.join(makeTempDir(), 'ts.md')], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: no terminal to answer at and no --answers file');
    expect(server.stats.requests).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('says planning needs a model, exit code 2, when none is configured', async () => {
    const result = await runCli(['plan', '--query', 'x', '--out', path.join(makeTempDir(), 'ts.md'), '--answers', answersFile('approve')], { env: cleanEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: planning needs a model');
    expect(result.stderr).toContain('hint: set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL');
  });

  it('says a missing --query, or --resume with nothing saved, before it says no model is configured', async () => {
    const out = path.join(makeTempDir(), 'ts.md');
    const noQuery = await runCli(['plan', '--out', out, '--answers', answersFile('approve')], { env: cleanEnv() });
    expect(noQuery.code).toBe(2);
    expect(noQuery.stderr).toContain('error: --query is required to start a plan');
    const nothingSaved = await runCli(['plan', '--resume', '--out', out, '--answers', answersFile('approve')], { env: cleanEnv() });
    expect(nothingSaved.code).toBe(2);
    expect(nothingSaved.stderr).toContain(`error: no saved conversation to resume: ${out}.plan.json does not exist`);
  });

  it('is a usage error for a missing inputs folder, before any model call', async () => {
    const result = await runCli(['plan', '--query', 'x', '--inputs', '/nonexistent/docs', '--out', path.join(makeTempDir(), 'ts.md'), '--answers', answersFile('approve')], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: inputs folder not found: /nonexistent/docs');
    expect(server.stats.requests).toBe(0);
  });

  it('names a corrupt state file and leaves it alone instead of starting afresh', async () => {
    const out = path.join(makeTempDir(), 'ts.md');
    writeFileSync(`${out}.plan.json`, '{"format": "coderag-plan-state", "turns": [');
    for (const resume of [[], ['--resume']]) {
      const result = await runCli(['plan', '--query', 'x', '--out', out, '--answers', answersFile('approve'), ...resume], { env: env() });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error: the plan state file ${out}.plan.json is corrupt (not JSON)`);
    }
    expect(readFileSync(`${out}.plan.json`, 'utf8')).toBe('{"format": "coderag-plan-state", "turns": [');
    expect(existsSync(out)).toBe(false);
    expect(server.stats.requests).toBe(0);
  });

  it('reports an answer that is neither a question nor a structure after its retries', async () => {
    server.configure({ respond: (req) => (isPlanRequest(req) ? { kind: 'proposal', message: 'see above', files: [] } : undefined) });
    const out = path.join(makeTempDir(), 'ts.md');
    const result = await runCli(['plan', '--query', 'x', '--out', out, '--answers', answersFile('approve'), '--config', fastConfig()], { env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: the model answered with neither a question nor a structure, 4 times: answer has the wrong shape (a proposal with no files)');
    expect(result.stderr).toContain(`hint: the conversation is saved in ${out}.plan.json; continue it with --resume`);
    expect(server.stats.requests).toBe(4);
  });

  it('ends at --max-turns with the last proposal and says so', async () => {
    server.configure({ respond: planScript([question('One?'), question('Two?'), CACHE_PLAN]) });
    const out = path.join(makeTempDir(), 'ts.md');
    const result = await runCli(['plan', '--query', 'x', '--out', out, '--answers', answersFile('a', 'b'), '--max-turns', '2', '--config', fastConfig()], { env: env() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('note: turn limit reached (2 turns): writing the last proposal without approval');
    expect(readFileSync(out, 'utf8')).toContain('src/http/server.ts');
  });
});

describe('coderag plan interrupted', () => {
  it('continues after kill -9 from the last completed turn with --resume', async () => {
    server.configure({ latencyMs: 1500, respond: planScript([question('Which storage?'), question('Which protocol?'), CACHE_PLAN]) });
    const out = path.join(makeTempDir(), 'ts.md');
    const config = fastConfig();
    const killed = await runCli(['plan', '--query', 'a caching HTTP service', '--out', out, '--answers', answersFile('in memory', 'http', 'approve'), '--config', config], {
      env: env(),
      onSpawn: (child) => killWhen(child, () => server.stats.requests >= 2),
    });
    expect(killed.code).toBeNull();
    const saved = JSON.parse(readFileSync(`${out}.plan.json`, 'utf8'));
    expect(saved.turns).toEqual([{ model: { kind: 'question', message: 'Which storage?' }, answer: 'in memory' }]);
    expect(existsSync(out)).toBe(false);

    server.resetStats();
    server.configure({ latencyMs: 0 });
    const resumed = await runCli(['plan', '--resume', '--out', out, '--answers', answersFile('http', 'approve'), '--config', config], { env: env() });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`resuming the conversation in ${out}.plan.json after 1 answered turn`);
    expect(resumed.stderr).not.toContain('Which storage?');
    expect(server.stats.requests).toBe(2);
    expect(server.stats.bodies[0]).toContain('The author answered: in memory');
    expect(readFileSync(out, 'utf8')).toContain('src/cache/ttlCache.ts');
    expect(existsSync(`${out}.plan.json`)).toBe(false);
  });
});

describe('coderag plan at a terminal', () => {
  it('takes answers typed at the prompt and Ctrl+D after a proposal as approval', async () => {
    const out = path.join(makeTempDir(), 'ts.md');
    const session = await inPty(['plan', '--query', 'a caching HTTP service', '--out', out, '--config', fastConfig()], env(), [
      { after: /question: Should entries expire one by one\?/, type: 'yes, one by one\r' },
      { after: /Ctrl\+D\./, type: '\x04' },
    ]);
    expect(session.code).toBe(0);
    expect(session.output).toContain('note: input ended after a proposal: taking it as approved');
    expect(session.output).toContain(`wrote ${out}`);
    expect(server.stats.bodies[1]).toContain('The author answered: yes, one by one');
    expect(readFileSync(out, 'utf8')).toContain('src/cache/clock.ts');
  });

  it('exits 130 on Ctrl+C at the prompt, keeping the conversation for --resume', async () => {
    const out = path.join(makeTempDir(), 'ts.md');
    const config = fastConfig();
    const interrupted = await inPty(['plan', '--query', 'a caching HTTP service', '--out', out, '--config', config], env(), [
      { after: /question: Should entries expire one by one\?/, type: '\x03' },
    ]);
    expect(interrupted.code).toBe(130);
    expect(interrupted.output).toContain(`interrupted: the conversation is saved in ${out}.plan.json; continue it with --resume`);

    server.resetStats();
    const resumed = await inPty(['plan', '--resume', '--out', out, '--config', config], env(), [
      { after: /question: Should entries expire one by one\?/, type: 'one by one\r' },
      { after: /Ctrl\+D\./, type: 'SOLUTION APPROVED\r' },
    ]);
    expect(resumed.code).toBe(0);
    expect(server.stats.requests).toBe(1);
    expect(readFileSync(out, 'utf8')).toContain('src/http/server.ts');
  });
});

function killWhen(child: ChildProcess, ready: () => boolean): void {
  const poll = setInterval(() => {
    if (ready()) {
      clearInterval(poll);
      child.kill('SIGKILL');
    }
  }, 10);
  child.once('exit', () => clearInterval(poll));
}

interface Keystrokes {
  /** Output (since the previous step) to wait for, then the prompt. */
  after: RegExp;
  type: string;
}

/**
 * Runs the CLI in a pseudo-terminal through util-linux `script`, typing each step's keys once its text has
 * appeared and the prompt is waiting. Returns everything the terminal showed and the exit code.
 */
function inPty(args: string[], environment: NodeJS.ProcessEnv, steps: Keystrokes[]): Promise<{ code: number | null; output: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = ['exec', process.execPath, CLI, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
      env: { ...cleanEnv(), ...environment, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let seen = 0;
    let step = 0;
    const advance = () => {
      const next = steps[step];
      if (!next) return;
      const fresh = output.slice(seen);
      const match = next.after.exec(fresh);
      // The prompt follows the turn's text; type only once it is showing.
      if (match && /> (\x1b\[\d+G)?$/.test(output)) {
        seen = output.length;
        step++;
        child.stdin.write(next.type);
      }
    };
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      advance();
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', (error) => reject(new Error(`cannot run util-linux script for a pseudo-terminal: ${error.message}`)));
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, output });
    });
  });
}
