/**
 * Runs one measurement in a fresh Node process (so its peak RSS is its own) and reads the JSON line it prints
 * last. Every child is bounded in time: past `timeoutMs` it is killed and the measurement fails.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { BENCH_ROOT } from './corpus.js';

export const REPO_ROOT = path.resolve(BENCH_ROOT, '..');
/** The command a user runs: the file npm links as `coderag` (package.json's bin), built by `npm run build`. */
export const COMMAND = path.join(REPO_ROOT, 'dist', 'bin', 'coderag.cjs');

export interface ChildOptions {
  timeoutMs: number;
  /** Called every 250 ms while the child runs; a string return kills the child with that reason. */
  watch?: () => string | null;
}

/**
 * `node --import tsx <script> ...args` from the repository root (plain `node` for a `.mjs` script, whose peak RSS
 * then carries no TypeScript loader); resolves with the last stdout line, parsed.
 */
export function runJsonChild<T>(script: string, args: readonly string[], options: ChildOptions): Promise<T> {
  return new Promise((resolve, reject) => {
    const loader = script.endsWith('.mjs') ? [] : ['--import', 'tsx'];
    const child = spawn(process.execPath, [...loader, path.join(BENCH_ROOT, script), ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let killedFor: string | null = null;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    const kill = (reason: string) => {
      if (killedFor) return;
      killedFor = reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(`timed out after ${options.timeoutMs} ms`), options.timeoutMs);
    const ticker = options.watch
      ? setInterval(() => {
          const reason = options.watch?.();
          if (reason) kill(reason);
        }, 250)
      : null;
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      const what = `${script} ${args.join(' ')}`;
      if (killedFor) return reject(new Error(`${what}: killed, ${killedFor}\n${stderr}`));
      if (code !== 0) return reject(new Error(`${what}: exit ${code}\n${stderr}`));
      const last = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${what}: no JSON result on stdout\n${stdout.slice(-2000)}\n${stderr}`));
      }
    });
  });
}

export function isMain(importMetaUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && path.resolve(entry) === path.resolve(new URL(importMetaUrl).pathname);
}
