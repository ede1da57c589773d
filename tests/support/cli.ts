/**
 * Runs the built CLI as a user would: the file npm links as `coderag` (`dist/bin/coderag.cjs`, which runs a plain
 * search itself and hands every other command to the ES module bundle `dist/bin/coderag.js`; built by `npm test`
 * before vitest).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { makeTempDir } from './tempRepo.js';

export const CLI = path.resolve(import.meta.dirname, '../../dist/bin/coderag.cjs');
/** The ES module bundle's entry, which the CLI hands every command but a plain search. */
export const ESM_CLI = path.resolve(import.meta.dirname, '../../dist/bin/coderag.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Called once the process is running, e.g. to send it a signal later. */
  onSpawn?: (child: ChildProcess) => void;
  /** Written to the command's standard input, which is then closed; without it, standard input is closed at once. */
  input?: string | Buffer;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return runNode([CLI, ...args], options);
}

/** Runs node with `args` (a script and its arguments, after any node options) as runCli runs the CLI. */
export function runNode(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd ?? process.cwd(),
      env: { ...cleanEnv(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(options.input);
    options.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The environment without model keys or CodeRAG settings, so a developer's shell cannot change a test, and with a
 * cache folder of the test file's own, so the search's compile cache (src/cli/compileCache.ts) stays out of theirs.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^(OPENAI_|ANTHROPIC_|CODERAG_)/.test(key)) delete env[key];
  }
  testCache ??= makeTempDir('coderag-cache-');
  env.XDG_CACHE_HOME = testCache;
  return env;
}

let testCache: string | undefined;
