/**
 * One vocabulary: every JSON answer CodeRAG gives — the CLI's `--json` outputs and NDJSON progress, the MCP tools
 * over stdio (errors too) and the HTTP API of `coderag serve` — names one thing one way. The answers of a small
 * repository are read whole, every key at every depth, and checked against the spellings retired for good, and
 * every value that is an indexed file's path or the repository's name sits under the key for that concept.
 * A qualified name is shown one way too: dotted, as tracebacks and `main_functions` write it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, runCli } from '../support/cli.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';
import { connectMcp } from '../support/mcpClient.js';

const REPO = 'vocab';
const FILES: Record<string, string> = {
  'src/app/context.py': [
    '"""The application context: what a request can reach while it is handled."""',
    '',
    '',
    'class AppContext:',
    '    """Holds the application while a request is handled."""',
    '',
    '    def push(self):',
    '        """Binds the context to the current request."""',
    '        return self',
    '',
    '    def pop(self):',
    '        return None',
    '',
  ].join('\n'),
  'src/cache/lruCache.ts': [
    '/** A least-recently-used cache whose entries expire after a time to live. */',
    'export class LruCache {',
    '  private readonly entries = new Map<string, number>();',
    '  get(key: string): number | undefined {',
    '    return this.entries.get(key);',
    '  }',
    '}',
    '',
  ].join('\n'),
};

/** Keys no answer may use, each with the one that says the same thing. */
const RETIRED: Record<string, string> = {
  repo: 'repo_name',
  path: 'file_path',
  file: 'file_path',
  results: 'references',
  total_results: 'total_references_found',
  indexes_path: 'indexes_directory',
  indexed_commit: 'git_commit',
  indexed_dirty: 'git_dirty',
  // The index file's `ast_path` joins scopes with '-' (the seed's spelling); answers show the dotted name.
  ast_path: 'qualified_name',
};

/** The keys a value that is an indexed file's path may sit under (DeepCode's relationship and query keys among them). */
const FILE_PATH_KEYS = new Set(['file_path', 'repo_file_path', 'target_file_path', 'target_file']);
/** The keys a value that is the repository's name may sit under (`repos` states a scope). */
const REPO_NAME_KEYS = new Set(['repo_name', 'repos']);

interface Answer {
  /** Where it came from, e.g. `cli search --json` or `mcp get_file_outline (error)`. */
  source: string;
  json: unknown;
}

/** Every key of `value` at every depth, with where it sits (`references[].symbols[].name`), and each string's key. */
function walk(value: unknown, at: string, keys: Array<{ key: string; at: string }>, strings: Array<{ key: string; at: string; value: string }>, parentKey = ''): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, `${at}[]`, keys, strings, parentKey);
  } else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      keys.push({ key, at: at ? `${at}.${key}` : key });
      walk(child, at ? `${at}.${key}` : key, keys, strings, key);
    }
  } else if (typeof value === 'string') {
    strings.push({ key: parentKey, at, value });
  }
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${source} did not print JSON: ${text.slice(0, 300)}`);
  }
}

function ndjson(text: string, source: string): unknown[] {
  return text.split('\n').filter((line) => line.trim()).map((line) => parseJson(line, source));
}

describe('every JSON answer, from the CLI, the MCP server and the HTTP API', () => {
  const answers: Answer[] = [];
  const texts: Array<{ source: string; text: string }> = [];
  const repo = makeTempRepo(FILES, { git: true, name: REPO });
  const out = makeTempDir();
  const cwd = makeTempDir();
  const children: ChildProcess[] = [];
  let client: Client | undefined;

  const cli = async (args: string[], source: string, expectedCode = 0) => {
    const result = await runCli(args, { cwd, timeoutMs: 30_000 });
    if (result.code !== expectedCode) throw new Error(`${source} exited ${result.code}: ${result.stderr}`);
    return result;
  };

  beforeAll(async () => {
    // Index: the --json summary, and the NDJSON progress events of the same run; then a run that reuses it all.
    // A target structure gives the index relationships (inferred statically, with no model), so they are read too.
    const target = path.join(cwd, 'target_structure.txt');
    writeFileSync(target, 'src/cache/ttlCache.ts  # a least-recently-used cache whose entries expire after a ttl\n');
    const first = await cli(['index', repo.root, '--out', out, '--json', '--progress', 'json', '--target-structure', target], 'cli index');
    answers.push({ source: 'cli index --json', json: parseJson(first.stdout, 'cli index --json') });
    answers.push({ source: 'cli index --progress json', json: ndjson(first.stderr, 'cli index --progress json') });
    const again = await cli(['index', repo.root, '--out', out, '--json', '--target-structure', target], 'cli index (again)');
    answers.push({ source: 'cli index --json (reused)', json: parseJson(again.stdout, 'cli index --json (reused)') });
    for (const report of ['indexing_summary.json', 'indexing_statistics.json']) {
      answers.push({ source: `cli index: ${report}`, json: parseJson(readFileSync(path.join(out, report), 'utf8'), report) });
    }
    const broken = await cli(['index', path.join(cwd, 'no-such-repo'), '--out', makeTempDir(), '--progress', 'json'], 'cli index (error)', 2);
    answers.push({ source: 'cli index --progress json (error)', json: ndjson(broken.stderr, 'cli index --progress json (error)') });
    // Shards, and the merge's --json summary.
    const shards = makeTempDir();
    for (const shard of ['1/2', '2/2']) await cli(['index', repo.root, '--out', shards, '--shard', shard, '-q'], `cli index --shard ${shard}`);
    const shardFiles = readdirSync(shards).filter((name) => /^[^.].*\.shard-.*\.json$/.test(name)).map((name) => path.join(shards, name));
    const merged = await cli(['merge', ...shardFiles, '--out', makeTempDir(), '--json'], 'cli merge');
    answers.push({ source: 'cli merge --json', json: parseJson(merged.stdout, 'cli merge --json') });

    const searches: Array<[string, string[]]> = [
      ['search --target --keywords', ['--target', 'src/cache/ttlCache.ts', '--keywords', 'cache,ttl']],
      ['search --query, symbols', ['--query', 'push the application context', '--granularity', 'symbol', '--snippets', '2']],
      ['search --query, files', ['--query', 'push the application context', '--granularity', 'file']],
      ['search scoped, cut to --max-tokens', ['--query', 'cache context', '--repo', REPO, '--path', 'src/**', '--max-tokens', '200']],
    ];
    for (const [name, args] of searches) {
      answers.push({ source: `cli ${name} --json`, json: parseJson((await cli(['search', ...args, '-i', out, '--json'], name)).stdout, name) });
      texts.push({ source: `cli ${name}`, text: (await cli(['search', ...args, '-i', out], name)).stdout });
    }
    answers.push({ source: 'cli overview --json', json: parseJson((await cli(['overview', '-i', out, '--json'], 'overview')).stdout, 'overview') });
    answers.push({ source: 'cli outline --json', json: parseJson((await cli(['outline', REPO, 'src/app/context.py', '-i', out, '--json'], 'outline')).stdout, 'outline') });
    texts.push({ source: 'cli outline', text: (await cli(['outline', REPO, 'src/app/context.py', '-i', out], 'outline')).stdout });
    answers.push({ source: 'cli symbol --json', json: parseJson((await cli(['symbol', 'AppContext.push', '-i', out, '--json'], 'symbol')).stdout, 'symbol') });
    texts.push({ source: 'cli symbol', text: (await cli(['symbol', 'AppContext.push', '-i', out], 'symbol')).stdout });

    // The MCP server over stdio: every tool, answering and refusing.
    client = (await connectMcp(out, { cwd, timeoutMs: 15_000 })).client;
    const missing = path.join(cwd, 'no-such-indexes');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['search_code_references', { target_file: 'src/cache/ttlCache.ts', keywords: 'cache,ttl' }],
      ['search_code_references', { target_file: 'src/cache/ttlCache.ts', keywords: 'cache', repo: REPO, max_tokens: 200 }],
      ['search_code_references', { target_file: 'x.ts', indexes_path: missing }],
      ['search_code_references', { target_file: 'x.ts', repo: 'no-such-repo' }],
      ['get_indexes_overview', {}],
      ['get_indexes_overview', { indexes_path: missing }],
      ['search', { query: 'push the application context', snippets: 2 }],
      ['search', { query: 'push the application context', granularity: 'file' }],
      ['search', { query: 'cache', path: 'src/**', max_tokens: 200 }],
      ['search', { query: 'cache', indexes_path: missing }],
      ['search', { query: 'cache', role: 'test', repo: 'no-such-repo' }],
      ['get_file_outline', { repo_name: REPO, file_path: 'src/app/context.py' }],
      ['get_file_outline', { repo: REPO, path: 'src/cache/lruCache.ts' }],
      ['get_file_outline', { repo_name: REPO, file_path: 'src/nowhere.py' }],
      ['get_file_outline', { repo_name: REPO, file_path: 'src/app/context.py', indexes_path: missing }],
      ['find_symbol', { name: 'AppContext.push' }],
      ['find_symbol', { name: 'nothing_named_so' }],
      ['find_symbol', { name: 'push', indexes_path: missing }],
    ];
    for (const [tool, args] of calls) {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 15_000 });
      const [block] = result.content as Array<{ text: string }>;
      const source = `mcp ${tool} ${JSON.stringify(args)}${result.isError ? ' (error)' : ''}`;
      answers.push({ source, json: parseJson(block?.text ?? '', source) });
      if (result.structuredContent) answers.push({ source: `${source} structuredContent`, json: result.structuredContent });
    }

    // The HTTP API of `coderag serve`, answering what the CLI's --json prints.
    const server = spawn(process.execPath, [CLI, 'serve', '--indexes', out, '--port', '0'], { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(server);
    server.stderr.resume();
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      server.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        const line = /listening on (\S+)/.exec(text);
        if (line?.[1]) resolve(line[1]);
      });
      server.once('exit', (code) => reject(new Error(`coderag serve exited ${code}`)));
    });
    const routes = [
      `search?query=${encodeURIComponent('push the application context')}`,
      `search?target=src/cache/ttlCache.ts&keywords=cache,ttl&granularity=file`,
      'overview',
      `outline?repo=${REPO}&path=src/app/context.py`,
      'symbol?name=AppContext.push',
      'relationships',
      `outline?repo=${REPO}&path=src/nowhere.py`,
    ];
    for (const route of routes) {
      const response = await fetch(new URL(`/api/${route}`, url));
      answers.push({ source: `http /api/${route} (${response.status})`, json: parseJson(await response.text(), route) });
    }
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    for (const child of children) child.kill('SIGTERM');
  }, 15_000);

  it('were all read: the CLI, every MCP tool and the HTTP API answered', () => {
    const sources = answers.map((a) => a.source);
    for (const tool of ['search_code_references', 'get_indexes_overview', 'search', 'get_file_outline', 'find_symbol']) {
      expect(sources.some((s) => s.startsWith(`mcp ${tool} `) && !s.endsWith('(error)'))).toBe(true);
      expect(sources.some((s) => s.startsWith(`mcp ${tool} `) && s.endsWith('(error)'))).toBe(true);
    }
    expect(sources.filter((s) => s.startsWith('http ')).length).toBe(7);
    const types = (source: string) => (answers.find((a) => a.source === source)?.json as Array<{ type: string }>).map((e) => e.type);
    expect(types('cli index --progress json')).toEqual(expect.arrayContaining(['repo_start', 'file_done', 'repo_done', 'summary']));
    expect(types('cli index --progress json (error)')).toEqual(['error']);
    // The static relationships are in what was read: the target's search names the cache file for it.
    const target = answers.find((a) => a.source === 'cli search --target --keywords --json')?.json as { relationships: Array<Record<string, unknown>> };
    expect(target.relationships).toContainEqual(expect.objectContaining({ repo_file_path: 'src/cache/lruCache.ts', target_file_path: 'src/cache/ttlCache.ts', source: 'static' }));
  });

  it('use none of the retired spellings', () => {
    const found: string[] = [];
    for (const { source, json } of answers) {
      const keys: Array<{ key: string; at: string }> = [];
      walk(json, '', keys, []);
      for (const { key, at } of keys) if (key in RETIRED) found.push(`${source}: ${at} (say ${RETIRED[key]})`);
    }
    expect([...new Set(found)]).toEqual([]);
  });

  it('put a file\'s path under file_path and the repository\'s name under repo_name, wherever they appear', () => {
    const paths = new Set(Object.keys(FILES));
    const found: string[] = [];
    for (const { source, json } of answers) {
      const strings: Array<{ key: string; at: string; value: string }> = [];
      walk(json, '', [], strings);
      for (const { key, at, value } of strings) {
        if (paths.has(value) && !FILE_PATH_KEYS.has(key)) found.push(`${source}: ${at} holds a file path`);
        if (value === REPO && !REPO_NAME_KEYS.has(key)) found.push(`${source}: ${at} holds the repository's name`);
      }
    }
    expect([...new Set(found)]).toEqual([]);
  });

  it('show a qualified name one way, dotted, in JSON and in text', () => {
    const qualified: string[] = [];
    for (const { source, json } of answers) {
      const strings: Array<{ key: string; at: string; value: string }> = [];
      walk(json, '', [], strings);
      for (const { value } of strings) {
        expect(value, source).not.toContain('AppContext-push');
        expect(value, source).not.toContain('LruCache-get');
      }
      qualified.push(...strings.filter((s) => s.key === 'qualified_name').map((s) => s.value));
    }
    expect(qualified).toContain('AppContext.push');
    for (const { source, text } of texts) expect(text, source).not.toMatch(/AppContext-push|LruCache-get/);
    expect(texts.find((t) => t.source === 'cli symbol')?.text).toContain('AppContext.push');
  });

  it('the outline tool takes repo_name and file_path, and still repo and path', async () => {
    const { tools } = await client!.listTools();
    const outline = tools.find((t) => t.name === 'get_file_outline');
    expect(Object.keys(outline?.inputSchema.properties ?? {})).toEqual(['repo_name', 'file_path', 'indexes_path', 'role', 'exclude_tests']);
    expect(outline?.inputSchema.required).toEqual(['repo_name', 'file_path']);
    const old = answers.find((a) => a.source.startsWith('mcp get_file_outline {"repo"'));
    expect(old?.json).toMatchObject({ status: 'success', repo_name: REPO, file_path: 'src/cache/lruCache.ts' });
  });
});
