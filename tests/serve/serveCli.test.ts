/**
 * `coderag serve` as scripts drive it: the built CLI, its first line, its refusal, its SIGTERM.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, runCli } from '../support/cli.js';
import { buildIndexes } from './serveSupport.js';

let indexes: string;
beforeAll(async () => {
  indexes = await buildIndexes();
});

describe('coderag serve on the command line', () => {
  it('prints "listening on" first, and on SIGTERM finishes the request in flight before it exits 0', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--indexes', indexes, '--port', '0'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const firstLine = await new Promise<string>((resolve) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
      });
    });
    expect(firstLine).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = new URL(firstLine.replace('listening on ', ''));

    // A search whose body is half sent when SIGTERM arrives: in flight, it must still be answered.
    const body = JSON.stringify({ query: 'token bucket rate limiter' });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: url.port, path: '/api/search', method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    const { status, text } = await answered;
    expect(status).toBe(200);
    expect(JSON.parse(text).references[0].file_path).toBe('src/limiter/tokenBucket.ts');
    expect(await exited).toBe(0);
    clearTimeout(killer);
    expect(stderr).toContain('SIGTERM: finishing 1 request(s) in flight');
    expect(stderr).toContain('stopped');
    expect(stderr).not.toContain(indexes);
  });

  it('refuses to listen beyond loopback without --tokens, with exit code 2 and why', async () => {
    const result = await runCli(['serve', '--indexes', indexes, '--host', '0.0.0.0', '--port', '0'], { timeoutMs: 20_000 });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('refusing to serve on 0.0.0.0 without --tokens');
  });
});
