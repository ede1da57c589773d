/**
 * Times a whole command as a user or a CI job sees it: a child process from spawn to exit, module loading,
 * thread start-up, every write and the exit included. CPU time (every thread, user + system) and peak RSS come
 * from GNU time (`/usr/bin/time`) when the machine has it, which reads them from the kernel when the child is
 * reaped; elsewhere they are null and only the wall time is measured.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface CommandRun {
  /** Wall time from spawn to exit. */
  ms: number;
  /** User + system CPU time of the process and its threads; null without GNU time. */
  cpuMs: number | null;
  /** Peak resident set size; null without GNU time. */
  maxRssMb: number | null;
}

const GNU_TIME = '/usr/bin/time';
let gnuTime: boolean | null = null;

function hasGnuTime(): boolean {
  if (gnuTime === null) {
    gnuTime = existsSync(GNU_TIME) && process.platform === 'linux';
  }
  return gnuTime;
}

export interface CommandOptions {
  cwd: string;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

/** Runs `command args…` to its exit; rejects when it exits non-zero or passes its time limit. */
export function timeCommand(command: string, args: readonly string[], options: CommandOptions): Promise<CommandRun> {
  const dir = mkdtempSync(path.join(tmpdir(), 'coderag-time-'));
  const report = path.join(dir, 'time');
  const [file, argv] = hasGnuTime() ? [GNU_TIME, ['-f', '%e %U %S %M', '-o', report, command, ...args]] : [command, [...args]];
  return new Promise<CommandRun>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(file, argv, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      clearTimeout(timer);
      const what = `${command} ${args.join(' ')}`;
      if (timedOut) return reject(new Error(`${what}: killed after ${options.timeoutMs} ms\n${stderr}`));
      if (code !== 0) return reject(new Error(`${what}: exit ${code}\n${stderr}`));
      if (!hasGnuTime()) return resolve({ ms, cpuMs: null, maxRssMb: null });
      const [, user, system, rssKb] = readFileSync(report, 'utf8').trim().split('\n').pop()?.split(' ').map(Number) ?? [];
      resolve({ ms, cpuMs: Math.round(((user ?? NaN) + (system ?? NaN)) * 1000), maxRssMb: Math.round((rssKb ?? NaN) / 1024) });
    });
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
}
