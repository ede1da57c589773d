import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { IndexCache } from '../../src/mcp/indexCache.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { makeTempDir } from '../support/tempRepo.js';
import { CACHE_REPO, writeIndex } from './sampleIndexes.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connect(options: Parameters<typeof createMcpServer>[0]) {
  const server = createMcpServer(options);
  const client = new Client({ name: 'test', version: '0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  closers.push(() => client.close(), () => server.close());
  return client;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const [block] = result.content as { type: string; text: string }[];
  return block?.text ?? '';
}

describe('the MCP server in process', () => {
  it('offers DeepCode\'s two tools with DeepCode\'s argument names, a free-text search and the symbol look-ups', async () => {
    const client = await connect({ defaultIndexesDir: makeTempDir() });
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['find_symbol', 'get_file_outline', 'get_indexes_overview', 'search', 'search_code_references']);
    expect(Object.keys(byName.search_code_references?.inputSchema.properties ?? {})).toEqual(['indexes_path', 'target_file', 'keywords', 'max_results', 'max_tokens', 'repo', 'path', 'role', 'exclude_tests']);
    expect(byName.search_code_references?.inputSchema.required).toEqual(['target_file']);
    expect(Object.keys(byName.get_indexes_overview?.inputSchema.properties ?? {})).toEqual(['indexes_path']);
    expect(byName.search?.inputSchema.required).toEqual(['query']);
    // Only the new names are offered; the old ones (repo, path) are still taken, not shown.
    expect(Object.keys(byName.get_file_outline?.inputSchema.properties ?? {})).toEqual(['repo_name', 'file_path', 'indexes_path', 'role', 'exclude_tests']);
    expect(byName.get_file_outline?.inputSchema.required).toEqual(['repo_name', 'file_path']);
    expect(byName.find_symbol?.inputSchema.required).toEqual(['name']);
  });

  it('returns the JSON as text and as structured content', async () => {
    const dir = makeTempDir();
    writeIndex(dir, 'cachelib', CACHE_REPO);
    const client = await connect({ defaultIndexesDir: dir });
    const result = await client.callTool({ name: 'search_code_references', arguments: { target_file: 'cache.ts', keywords: 'ttl' } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(result.structuredContent).toMatchObject({ status: 'success', total_indexes_loaded: 1 });
  });

  it.each([
    ['max_results of 0', { target_file: 'a.ts', max_results: 0 }],
    ['a max_results that is not a number', { target_file: 'a.ts', max_results: 'ten' }],
    ['a fractional max_results', { target_file: 'a.ts', max_results: 2.5 }],
    ['no target_file', { keywords: 'ttl' }],
  ])('answers %s with a tool error', async (_label, args) => {
    const client = await connect({ defaultIndexesDir: makeTempDir() });
    const result = await client.callTool({ name: 'search_code_references', arguments: args });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('Invalid arguments for tool search_code_references');
  });

  it('answers an empty query with a tool error', async () => {
    const client = await connect({ defaultIndexesDir: makeTempDir() });
    const result = await client.callTool({ name: 'search', arguments: { query: '   ' } });
    expect(result.isError).toBe(true);
  });

  it('turns an unexpected failure into a tool error and logs it', async () => {
    const logs: string[] = [];
    const cache = new IndexCache();
    cache.get = async () => {
      throw new Error('disk on fire');
    };
    const client = await connect({ defaultIndexesDir: makeTempDir(), cache, log: (line) => logs.push(line) });
    const result = await client.callTool({ name: 'get_indexes_overview', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toEqual({ status: 'error', message: 'get_indexes_overview failed: disk on fire' });
    expect(logs).toEqual(['error: get_indexes_overview: disk on fire']);
  });
});
