import { spawn } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, runCli } from '../support/cli.js';
import { makeTempDir } from '../support/tempRepo.js';
import { connectMcp } from '../support/mcpClient.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');

type CallResult = Awaited<ReturnType<Client['callTool']>>;

function textOf(result: CallResult): string {
  const [block] = result.content as { type: string; text: string }[];
  return block?.text ?? '';
}

function jsonOf(result: CallResult): Record<string, unknown> {
  return JSON.parse(textOf(result)) as Record<string, unknown>;
}

describe('coderag mcp over stdio, end to end', () => {
  const out = makeTempDir();
  const cwd = makeTempDir();
  let client: Client;
  let stderr: () => string;

  beforeAll(async () => {
    const indexed = await runCli(['index', fixture, '--out', out, '--quiet'], { cwd, timeoutMs: 19_000 });
    expect(indexed.code).toBe(0);
    ({ client, stderr } = await connectMcp(out, { cwd }));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
  }, 10_000);

  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }, undefined, { timeout: 10_000 });

  it('lists DeepCode\'s two tools, the free-text search and the symbol look-ups', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect([...names].sort()).toEqual(['find_symbol', 'get_file_outline', 'get_indexes_overview', 'search', 'search_code_references']);
    // The command bundles its own zod (package.json's bundle script); the SDK still reads its schemas.
    const references = tools.find((t) => t.name === 'search_code_references');
    expect(Object.keys(references?.inputSchema.properties ?? {})).toEqual(['indexes_path', 'target_file', 'keywords', 'max_results', 'max_tokens', 'repo', 'path', 'role', 'exclude_tests']);
    expect(references?.inputSchema.required).toEqual(['target_file']);
    // The start-up line and --help name every tool the server has, no more.
    expect(stderr()).toContain(`coderag mcp: serving ${out} on stdio (tools: ${names.join(', ')})`);
    const help = await runCli(['mcp', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(`with the tools ${names.join(', ')}.`);
  });

  it('answers search_code_references as DeepCode does, with the cache file first', async () => {
    const result = await call('search_code_references', { indexes_path: out, target_file: 'cache.ts', keywords: 'ttl', max_results: 10 });
    expect(result.isError).toBeFalsy();
    const json = jsonOf(result);
    expect(json).toMatchObject({ status: 'success', target_file: 'cache.ts', indexes_directory: out, keywords_used: ['ttl'], indexes_loaded: ['polyglot_index'], total_indexes_loaded: 1 });
    expect(json.formatted_content).toMatch(/^# Code Reference Information - cache\.ts\n/);
    expect(json.formatted_content).toContain('### 1. src/cache/lruCache.ts');
    expect(json.total_references_found).toBe((json.references as unknown[]).length);
    expect(result.structuredContent).toEqual(json);
  });

  it('searches the folder given with --indexes when no indexes_path is passed', async () => {
    const json = jsonOf(await call('search_code_references', { target_file: 'cache.ts', keywords: 'ttl' }));
    expect(json).toMatchObject({ status: 'success', indexes_directory: out, total_indexes_loaded: 1 });
  });

  it('gives an overview of the indexed repository', async () => {
    const json = jsonOf(await call('get_indexes_overview', { indexes_path: out }));
    expect(json).toMatchObject({ status: 'success', total_indexes_loaded: 1, overview: { total_repos: 1 } });
    expect((json.overview as { repositories: Record<string, unknown> }).repositories.polyglot_index).toMatchObject({ repo_name: 'polyglot', total_files: 26 });
  });

  it('ranks the token bucket rate limiter first for a free-text query, with its symbols\' lines', async () => {
    const json = jsonOf(await call('search', { query: 'token bucket rate limiter' }));
    const results = json.references as { repo_name: string; file_path: string; score: number; summary: string; main_functions: string[]; symbols: { start_line: number; end_line: number }[] }[];
    expect(results[0]).toMatchObject({ repo_name: 'polyglot', file_path: 'pkg/store/ratelimit.go' });
    expect(results[0]?.main_functions.length).toBeGreaterThan(0);
    expect(results[0]?.symbols.length).toBeGreaterThan(0);
    expect(results[0]?.symbols[0]?.start_line).toBeGreaterThan(0);
  });

  it('outlines a file: the class, its methods nested under it, with their lines', async () => {
    const result = await call('get_file_outline', { repo_name: 'polyglot', file_path: 'src/cache/lruCache.ts' });
    expect(result.isError).toBeFalsy();
    const json = jsonOf(result);
    expect(json).toMatchObject({ status: 'success', repo_name: 'polyglot', file_path: 'src/cache/lruCache.ts', language: 'TypeScript' });
    const symbols = json.symbols as { kind: string; qualified_name: string; start_line: number; end_line: number; depth: number }[];
    expect(symbols).toContainEqual(expect.objectContaining({ kind: 'class', qualified_name: 'LruCache', start_line: 15, end_line: 40, depth: 0 }));
    expect(symbols).toContainEqual(expect.objectContaining({ kind: 'method', qualified_name: 'LruCache.get', start_line: 23, end_line: 27, depth: 1 }));
    expect(result.structuredContent).toEqual(json);
  });

  it('finds where a method is defined by its qualified name, and every get by its bare name', async () => {
    const qualified = jsonOf(await call('find_symbol', { name: 'LruCache.get' }));
    expect(qualified).toMatchObject({ status: 'success', total_matches: 1, matches: [{ file_path: 'src/cache/lruCache.ts', start_line: 23, end_line: 27, match: 'qualified' }] });
    const bare = jsonOf(await call('find_symbol', { name: 'get', kind: 'method', max_results: 2 }));
    expect(bare).toMatchObject({ status: 'success', truncated: true });
    expect((bare.matches as unknown[]).length).toBe(2);
  });

  it.each([
    ['find_symbol', { name: 'get', kind: 'lambda' }],
    ['find_symbol', { name: '' }],
    ['get_file_outline', { repo_name: 'polyglot' }],
    ['get_file_outline', { repo: 'polyglot' }],
    ['search_code_references', { target_file: 'cache.ts', max_results: 0 }],
    ['search_code_references', { target_file: 'cache.ts', max_results: 'ten' }],
    ['search_code_references', { keywords: 'ttl' }],
    ['search', { query: 'cache', max_results: -1 }],
    ['search', {}],
  ])('answers %s with bad arguments %j as a tool error, and keeps serving', async (name, args) => {
    const result = await call(name, args);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`Invalid arguments for tool ${name}`);
    expect((await call('get_indexes_overview', {})).isError).toBeFalsy();
  });

  it('answers a missing folder with DeepCode\'s error message as a tool error', async () => {
    const missing = path.join(makeTempDir(), 'no-such-indexes');
    const search = await call('search_code_references', { indexes_path: missing, target_file: 'cache.ts' });
    expect(search.isError).toBe(true);
    expect(jsonOf(search)).toMatchObject({ status: 'error', message: `No index files found or failed to load from: ${missing}`, target_file: 'cache.ts', indexes_directory: missing });
    const overview = await call('get_indexes_overview', { indexes_path: missing });
    expect(overview.isError).toBe(true);
    expect(jsonOf(overview)).toMatchObject({ status: 'error', message: `No index files found in: ${missing}`, indexes_directory: missing });
  });

  it('answers an empty folder with a tool error', async () => {
    const result = await call('search', { query: 'cache', indexes_path: makeTempDir() });
    expect(result.isError).toBe(true);
    expect(jsonOf(result).message).toMatch(/^No index files found or failed to load from: /);
  });

  it('still answers beside a corrupt index, and reloads when an index is added', async () => {
    const folder = makeTempDir();
    copyFileSync(path.join(out, 'polyglot_index.json'), path.join(folder, 'polyglot_index.json'));
    writeFileSync(path.join(folder, 'corrupt_index.json'), '{ not json');
    const first = jsonOf(await call('search_code_references', { indexes_path: folder, target_file: 'cache.ts', keywords: 'ttl' }));
    expect(first).toMatchObject({ status: 'success', total_indexes_loaded: 1, warnings: ['skipped corrupt_index.json: not valid JSON'] });

    copyFileSync(path.join(out, 'polyglot_index.json'), path.join(folder, 'second_index.json'));
    const second = jsonOf(await call('search_code_references', { indexes_path: folder, target_file: 'cache.ts', keywords: 'ttl' }));
    expect(second).toMatchObject({ status: 'success', total_indexes_loaded: 2, indexes_loaded: ['polyglot_index', 'second_index'] });
    expect(stderr()).toContain(`coderag mcp: reloaded 2 index(es) from ${folder}`);
  });
});

describe('stopping coderag mcp', () => {
  /** Starts the server, waits until it says it is serving, applies `stop`, and reports how it ended. */
  function runUntil(stop: (child: ReturnType<typeof spawn>) => void): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'mcp', '--indexes', makeTempDir()], { env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let stopped = false;
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (!stopped && stderr.includes('serving')) {
          stopped = true;
          stop(child);
        }
      });
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  it('writes nothing but protocol messages on stdout, and exits 0 when the client closes stdin', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };
    const { code, stdout, stderr } = await runUntil((child) => {
      child.stdout?.once('data', () => child.stdin?.end());
      child.stdin?.write(`${JSON.stringify(initialize)}\n`);
    });
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'coderag' } } });
    expect(stderr).toContain('stopped (client disconnected)');
  });

  it('exits 0 on SIGTERM', async () => {
    const { code, stderr } = await runUntil((child) => child.kill('SIGTERM'));
    expect(code).toBe(0);
    expect(stderr).toContain('stopped (SIGTERM)');
  });

  it('exits 130 on SIGINT, like every other command', async () => {
    const { code, stderr } = await runUntil((child) => child.kill('SIGINT'));
    expect(code).toBe(130);
    expect(stderr).toContain('error: interrupted: MCP server stopped');
  });
});
