/**
 * `coderag serve` in this process, on 127.0.0.1, over indexes the real `coderag index` wrote: the SDK's own MCP
 * client over Streamable HTTP, the JSON API against the CLI's `--json`, tokens, scopes, limits and reloads.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOLS } from '../../src/mcp/toolNames.js';
import { sha256Hex } from '../../src/serve/tokens.js';
import { runCli } from '../support/cli.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';
import { ALPHA_FILES, TOKENS, bearer, buildIndexes, closeServers, copyIndexes, getJson, serve, until, writeTokens, type TestServer } from './serveSupport.js';

let indexes: string;
const allLogs: string[][] = [];

beforeAll(async () => {
  indexes = await buildIndexes();
});
afterEach(closeServers);
afterAll(() => {
  // Nothing a server logged in this file names a token, the served folder or a searched text.
  const text = allLogs.flat().join('\n');
  expect(text).not.toContain(indexes);
  for (const token of Object.values(TOKENS)) expect(text).not.toContain(token);
  expect(text).not.toContain('token bucket');
});

async function served(options: Parameters<typeof serve>[0]): Promise<TestServer> {
  const server = await serve(options);
  allLogs.push(server.logs);
  return server;
}

async function mcpClient(server: TestServer, token: string): Promise<Client> {
  const client = new Client({ name: 'serve-test', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: bearer(token) } }));
  return client;
}

function jsonOf(result: Awaited<ReturnType<Client['callTool']>>): any {
  const [block] = result.content as { type: string; text: string }[];
  return JSON.parse(block?.text ?? 'null');
}

describe('coderag serve over MCP and its JSON API', () => {
  it('lets the SDK\'s MCP client list every tool of coderag mcp over Streamable HTTP and call each one', async () => {
    const server = await served({ dir: indexes, tokensFile: writeTokens() });
    const client = await mcpClient(server, TOKENS.all);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOLS].sort());

    const search = await client.callTool({ name: 'search', arguments: { query: 'cache entries expire after a time to live' } });
    expect(search.isError).toBeFalsy();
    expect(jsonOf(search).references[0]).toMatchObject({ repo_name: 'alpha', file_path: 'src/cache/lruCache.ts' });
    const references = await client.callTool({ name: 'search_code_references', arguments: { target_file: 'src/limiter/bucket.ts', keywords: 'token,bucket' } });
    expect(jsonOf(references).formatted_content).toContain('src/limiter/tokenBucket.ts');
    const overview = await client.callTool({ name: 'get_indexes_overview', arguments: {} });
    expect(Object.values(jsonOf(overview).overview.repositories).map((r: any) => r.repo_name).sort()).toEqual(['alpha', 'beta']);
    const outline = await client.callTool({ name: 'get_file_outline', arguments: { repo_name: 'alpha', file_path: 'src/cache/lruCache.ts' } });
    expect(jsonOf(outline).symbols.map((s: any) => s.name)).toContain('LruCache');
    const symbol = await client.callTool({ name: 'find_symbol', arguments: { name: 'takeToken' } });
    expect(jsonOf(symbol).matches[0]).toMatchObject({ repo_name: 'beta', file_path: 'src/limiter/tokenBucket.ts', kind: 'function' });
    // The server answers from its own folder only: a client cannot point it at another.
    const elsewhere = await client.callTool({ name: 'get_indexes_overview', arguments: { indexes_path: '/etc' } });
    expect(elsewhere.isError).toBe(true);
    expect(JSON.stringify(jsonOf(elsewhere))).not.toContain(indexes);
    await client.close();
  });

  it('answers /api/search, /api/overview, /api/outline and /api/symbol with what the CLI prints with --json', async () => {
    const server = await served({ dir: indexes });
    const cli = async (...args: string[]) => JSON.parse((await runCli([...args, '--indexes', indexes, '--json'])).stdout);

    const api = await getJson(`${server.url}/api/search?query=${encodeURIComponent('token bucket rate limiter')}&max_results=5`);
    const printed = await cli('search', '--query', 'token bucket rate limiter', '--max-results', '5');
    expect(api.status).toBe(200);
    expect(Object.keys(api.body).sort()).toEqual(Object.keys(printed).sort());
    expect(api.body.references).toEqual(printed.references);
    expect(api.body.references[0].file_path).toBe('src/limiter/tokenBucket.ts');

    const keywords = await getJson(`${server.url}/api/search?target=src/cache/ttl.ts&keywords=cache,ttl`);
    expect(keywords.body.references).toEqual((await cli('search', '--target', 'src/cache/ttl.ts', '--keywords', 'cache,ttl')).references);
    const budget = await getJson(`${server.url}/api/search?query=${encodeURIComponent('cache ttl token bucket')}&max_tokens=200`);
    const printedBudget = await cli('search', '--query', 'cache ttl token bucket', '--max-tokens', '200');
    expect(budget.body.references).toEqual(printedBudget.references);
    expect(budget.body.truncated).toEqual(printedBudget.truncated);
    const onlyBeta = await getJson(`${server.url}/api/search?query=cache&repo=beta`);
    expect(onlyBeta.body.references.every((r: any) => r.repo_name === 'beta')).toBe(true);

    const overview = await getJson(`${server.url}/api/overview`);
    const printedOverview = await cli('overview');
    expect(Object.keys(overview.body).sort()).toEqual(Object.keys(printedOverview).sort());
    const withoutFreshness = (repos: Record<string, any>) => Object.fromEntries(Object.entries(repos).map(([k, { freshness, stale, ...rest }]) => [k, rest]));
    expect(withoutFreshness(overview.body.overview.repositories)).toEqual(withoutFreshness(printedOverview.overview.repositories));
    expect(overview.body.indexes_directory).toBe('indexes');

    const outline = await getJson(`${server.url}/api/outline?repo=alpha&path=src/cache/lruCache.ts`);
    const printedOutline = await cli('outline', 'alpha', 'src/cache/lruCache.ts');
    expect({ ...outline.body, indexes_directory: null }).toEqual({ ...printedOutline, indexes_directory: null });

    const symbol = await getJson(`${server.url}/api/symbol?name=LruCache`);
    const printedSymbol = await cli('symbol', 'LruCache');
    expect({ ...symbol.body, indexes_directory: null }).toEqual({ ...printedSymbol, indexes_directory: null });
    expect(symbol.body.matches[0].file_path).toBe('src/cache/lruCache.ts');

    expect((await getJson(`${server.url}/api/search`)).status).toBe(400);
    expect((await getJson(`${server.url}/api/search?query=x&max_results=100000`)).status).toBe(400);
  });

  it('scopes /api/search and /api/symbol by path, role and exclude_tests as the CLI does, in a query string or a posted body', async () => {
    const server = await served({ dir: indexes });
    const cli = async (...args: string[]) => JSON.parse((await runCli([...args, '--indexes', indexes, '--json'])).stdout);

    const scoped = await getJson(`${server.url}/api/search?query=cache&path=${encodeURIComponent('src/cache/evict.ts')}&role=source&exclude_tests=true`);
    const printed = await cli('search', '--query', 'cache', '--path', 'src/cache/evict.ts', '--role', 'source', '--exclude-tests');
    expect(scoped.status).toBe(200);
    expect(scoped.body.references.map((r: any) => r.file_path)).toEqual(['src/cache/evict.ts']);
    expect(scoped.body.references).toEqual(printed.references);
    expect(scoped.body.scope).toEqual({ paths: ['src/cache/evict.ts'], roles: ['source'], exclude_tests: true });

    // A list in a posted body is the parameter repeated.
    const posted = await fetch(`${server.url}/api/search`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: 'cache bucket', path: ['src/limiter/**', 'src/cache/evict.ts'], exclude_tests: true }) });
    const body = (await posted.json()) as any;
    expect(new Set(body.references.map((r: any) => r.file_path))).toEqual(new Set(['src/limiter/tokenBucket.ts', 'src/cache/evict.ts']));
    expect(body.scope).toEqual({ paths: ['src/limiter/**', 'src/cache/evict.ts'], exclude_tests: true });

    const symbol = await getJson(`${server.url}/api/symbol?name=LruCache&path=${encodeURIComponent('src/limiter/**')}`);
    expect(symbol.body).toMatchObject({ total_matches: 0, scope: { paths: ['src/limiter/**'] } });

    // The fixture has no tests: asked for tests alone, no file is in scope, and the answer says so.
    const onlyTests = await getJson(`${server.url}/api/search?query=cache&role=test`);
    expect(onlyTests.body.references).toEqual([]);
    expect(onlyTests.body.notice).toBe('no indexed file is in scope (role test)');
    const noTestFiles = await getJson(`${server.url}/api/search?query=cache&path=${encodeURIComponent('src/limiter/**')}&role=docs`);
    expect(noTestFiles.body.notice).toBe('no indexed file is in scope (path src/limiter/**; role docs)');

    const badRole = await getJson(`${server.url}/api/search?query=cache&role=tests`);
    expect(badRole.status).toBe(400);
    expect(badRole.body.message).toMatch(/^unknown role "tests" \(roles: source, test, /);
    expect((await getJson(`${server.url}/api/search?query=cache&exclude_tests=maybe`)).status).toBe(400);
    expect((await getJson(`${server.url}/api/search?query=cache&path=${encodeURIComponent('src/{cache')}`)).status).toBe(400);
    // A file that is not there is still a 404, as before scopes.
    expect((await getJson(`${server.url}/api/outline?repo=alpha&path=src/nowhere.ts`)).status).toBe(404);

    // A posted list of a parameter read once, or an object, is refused rather than cut or dropped.
    const post = async (body: unknown) => fetch(`${server.url}/api/search`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const listed = await post({ query: 'cache', keywords: ['cache', 'clock'] });
    expect(listed.status).toBe(400);
    expect(((await listed.json()) as any).message).toBe('keywords takes one value, not a list (lists: path, role)');
    expect((await post({ query: 'cache', role: [['test']] })).status).toBe(400);
    expect((await post({ query: 'cache', exclude_tests: {} })).status).toBe(400);
    expect((await post({ query: 'cache', repo: null })).status).toBe(200);
  });
});

describe('coderag serve with tokens', () => {
  it('answers 401 without a token or with a wrong one, and serves /healthz and the page to anyone', async () => {
    const server = await served({ dir: indexes, tokensFile: writeTokens() });
    for (const headers of [{}, bearer('not-a-token'), bearer(`${TOKENS.all}x`), { Authorization: TOKENS.all }]) {
      const answer = await getJson(`${server.url}/api/overview`, headers);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(JSON.stringify(answer.body)).not.toContain('alpha');
    }
    const mcp = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(mcp.status).toBe(401);
    expect((await getJson(`${server.url}/healthz`)).body).toEqual({ status: 'ok' });
    expect((await fetch(`${server.url}/`)).status).toBe(200);
    expect((await getJson(`${server.url}/api/overview`, bearer(TOKENS.all))).status).toBe(200);
  });

  it('never shows a scoped token another repository: not listed, searched, outlined, found, nor named in an error', async () => {
    const server = await served({ dir: indexes, tokensFile: writeTokens() });
    const as = (url: string) => getJson(`${server.url}${url}`, bearer(TOKENS.alpha));
    const leaks = (body: unknown) => /beta|tokenBucket|takeToken|limiter/i.test(JSON.stringify(body));

    const overview = await as('/api/overview');
    expect(Object.values(overview.body.overview.repositories).map((r: any) => r.repo_name)).toEqual(['alpha']);
    expect(leaks(overview.body)).toBe(false);
    const search = await as(`/api/search?query=${encodeURIComponent('token bucket rate limiter takeToken')}`);
    expect(search.status).toBe(200);
    // What the answer says of the indexes (its words echo the query's, which are the client's own).
    const { references, relationships, indexes_loaded, freshness, warnings } = search.body;
    expect(leaks({ references, relationships, indexes_loaded, freshness, warnings })).toBe(false);
    expect(search.body.references.every((r: any) => r.repo_name === 'alpha')).toBe(true);
    const symbol = await as('/api/symbol?name=refillBucket');
    expect(symbol.body.total_matches).toBe(0);
    expect(leaks({ ...symbol.body, name: null, notice: null })).toBe(false);

    // Another repository's name is answered exactly as a name that exists nowhere.
    const same = async (url: (repo: string) => string) => {
      const hidden = await as(url('beta'));
      const missing = await as(url('gamma'));
      expect(hidden.status).toBe(missing.status);
      expect(JSON.stringify(hidden.body).replaceAll('beta', 'NAME')).toBe(JSON.stringify(missing.body).replaceAll('gamma', 'NAME'));
    };
    await same((repo) => `/api/outline?repo=${repo}&path=src/limiter/tokenBucket.ts`);
    await same((repo) => `/api/search?query=bucket&repo=${repo}`);
    await same((repo) => `/api/overview?repo=${repo}`);
    await same((repo) => `/api/relationships?repo=${repo}`);

    const client = await mcpClient(server, TOKENS.alpha);
    const mcpOverview = jsonOf(await client.callTool({ name: 'get_indexes_overview', arguments: {} }));
    expect(Object.keys(mcpOverview.overview.repositories)).toEqual(['alpha_index']);
    const found = jsonOf(await client.callTool({ name: 'find_symbol', arguments: { name: 'takeToken' } }));
    expect(found.total_matches).toBe(0);
    // Words of both repositories: alpha's definitions answer, and beta's would if the scope leaked.
    const hits = jsonOf(await client.callTool({ name: 'search', arguments: { query: 'token bucket rate limiter, cache entries with a ttl' } }));
    expect(hits.references.every((r: any) => r.repo_name === 'alpha')).toBe(true);
    expect(hits.symbols.length).toBeGreaterThan(0);
    expect(hits.symbols.every((d: any) => d.repo_name === 'alpha')).toBe(true);
    const outline = await client.callTool({ name: 'get_file_outline', arguments: { repo_name: 'beta', file_path: 'src/limiter/tokenBucket.ts' } });
    expect(outline.isError).toBe(true);
    expect(JSON.stringify(jsonOf(outline)).replace(/"repo_name":"beta"|repository \\"beta\\"|"file_path":"src\/limiter\/tokenBucket.ts"|no file [^"]*/g, '')).not.toMatch(/beta|tokenBucket/);
    await client.close();
  });

  it('reads the tokens file again when it changes, and on reload (SIGHUP)', async () => {
    const tokens = writeTokens([`${sha256Hex(TOKENS.alpha)} alpha`]);
    const server = await served({ dir: indexes, tokensFile: tokens });
    expect((await getJson(`${server.url}/api/overview`, bearer(TOKENS.beta))).status).toBe(401);
    writeFileSync(tokens, `${sha256Hex(TOKENS.beta)} beta\n`);
    await until(async () => (await getJson(`${server.url}/api/overview`, bearer(TOKENS.beta))).status === 200, 5000, 'the new token');
    expect((await getJson(`${server.url}/api/overview`, bearer(TOKENS.alpha))).status).toBe(401);
    // A rename into place (how deploys and editors write) is seen as well; reload() reads it at once.
    writeFileSync(`${tokens}.new`, `${sha256Hex(TOKENS.all)} *\n`);
    renameSync(`${tokens}.new`, tokens);
    server.reload();
    await until(async () => (await getJson(`${server.url}/api/overview`, bearer(TOKENS.all))).status === 200, 5000, 'the renamed file');
    expect(server.logs.join('\n')).not.toContain(sha256Hex(TOKENS.all));
  });

  it('answers without tokens on any loopback address, not only 127.0.0.1', async () => {
    const server = await served({ dir: indexes, host: '127.0.0.2' });
    expect(server.url).toContain('127.0.0.2');
    expect((await getJson(`${server.url}/healthz`)).status).toBe(200);
  });

  it('refuses to listen beyond loopback without tokens', async () => {
    await expect(served({ dir: indexes, host: '0.0.0.0' })).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('without --tokens') });
  });
});

describe('coderag serve keeps itself up', () => {
  it('caps a request\'s body and its query', async () => {
    const server = await served({ dir: indexes, limits: { maxBodyBytes: 64 * 1024, maxUrlLength: 4096 } });
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'x'.repeat(200_000) } } });
    const body = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: big });
    expect(body.status).toBe(413);
    const posted = await fetch(`${server.url}/api/search`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: 'cache '.repeat(20_000) }) });
    expect(posted.status).toBe(413);
    expect((await fetch(`${server.url}/api/search?query=${'cache+'.repeat(1000)}`)).status).toBe(414);
    // A long query within the caps is searched.
    expect((await fetch(`${server.url}/api/search`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: 'cache ttl '.repeat(1000) }) })).status).toBe(200);
  });

  it('answers 429 with Retry-After once a token passes its rate, and other tokens go on', async () => {
    const server = await served({ dir: indexes, tokensFile: writeTokens(), rate: { ratePerSecond: 1, burst: 3, maxConcurrent: 4 } });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 5; i += 1) {
      const answer = await fetch(`${server.url}/api/overview`, { headers: bearer(TOKENS.alpha) });
      statuses.push(answer.status);
      retryAfter ??= answer.headers.get('retry-after');
      await answer.arrayBuffer();
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await getJson(`${server.url}/api/overview`, bearer(TOKENS.all))).status).toBe(200);
  });

  it('times out a client that sends its request too slowly', async () => {
    const server = await served({ dir: indexes, limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    const { port } = server;
    const started = Date.now();
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connectSocket(port, '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      // Headers begun and never finished, one byte now and then: a slow-loris client.
      socket.write('GET /api/overview HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      const drip = setInterval(() => socket.writable && socket.write('X'), 100);
      socket.on('close', () => clearInterval(drip));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('replaces an index re-written under load with no failed request, new requests seeing the new one', async () => {
    const dir = copyIndexes(indexes);
    const server = await served({ dir, rate: { ratePerSecond: 100_000, burst: 100_000, maxConcurrent: 16 } });
    const repo = makeTempRepo({ ...ALPHA_FILES, 'src/cache/ttlClock.ts': '/** A clock for time-to-live expiry that tests can wind forward. */\nexport function windClock(ms: number): number {\n  return ms;\n}\n' }, { name: 'alpha' });
    let stop = false;
    let failed = 0;
    let answered = 0;
    let sawNew = false;
    const client = async () => {
      while (!stop) {
        const answer = await getJson(`${server.url}/api/search?query=${encodeURIComponent('time to live clock cache')}`).catch(() => ({ status: 0, body: null }));
        answered += 1;
        if (answer.status !== 200 || answer.body?.status !== 'success' || answer.body.references.length === 0) {
          failed += 1;
          if (failed === 1) console.error('failed answer', answer.status, JSON.stringify(answer.body).slice(0, 500));
        }
        if (answer.body?.references?.some((r: any) => r.file_path === 'src/cache/ttlClock.ts')) sawNew = true;
      }
    };
    const clients = Array.from({ length: 4 }, client);
    // A newer alpha index, built elsewhere and published into the served folder as the nightly job does: a copy
    // beside it, then a rename over the old one.
    const built = makeTempDir();
    const indexed = await runCli(['index', repo.root, '--out', built, '-q']);
    expect(indexed.code).toBe(0);
    writeFileSync(path.join(dir, '.alpha_index.json.part'), readFileSync(path.join(built, 'alpha_index.json')));
    renameSync(path.join(dir, '.alpha_index.json.part'), path.join(dir, 'alpha_index.json'));
    await until(() => sawNew, 10_000, 'the new index to answer');
    stop = true;
    await Promise.all(clients);
    expect(failed).toBe(0);
    expect(answered).toBeGreaterThan(10);
    expect(server.logs.join('\n')).toMatch(/reloaded 2 index\(es\)/);
  });

  it('keeps the previous index when a new one is corrupt or half written, and says why', async () => {
    const dir = copyIndexes(indexes);
    const server = await served({ dir });
    const file = path.join(dir, 'alpha_index.json');
    const whole = readFileSync(file, 'utf8');
    writeFileSync(file, whole.slice(0, Math.floor(whole.length / 2)));
    await until(() => server.logs.some((l) => l.includes('kept the previous alpha_index.json')), 5000, 'the corrupt index to be noticed');
    expect(server.logs.join('\n')).toMatch(/kept the previous alpha_index\.json: skipped alpha_index\.json: not valid JSON/);
    const answer = await getJson(`${server.url}/api/search?query=${encodeURIComponent('cache time to live')}`);
    expect(answer.body.references[0]).toMatchObject({ repo_name: 'alpha', file_path: 'src/cache/lruCache.ts' });
    expect((await getJson(`${server.url}/api/overview`)).body.total_indexes_loaded).toBe(2);
    // Once whole again it is read as usual.
    writeFileSync(file, whole);
    await until(() => server.logs.filter((l) => l.startsWith('reloaded 2 index(es)')).length >= 2, 5000, 'the repaired index');
  });
});
