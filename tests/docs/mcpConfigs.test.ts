/**
 * Every MCP client configuration the docs show starts a server a real MCP client talks to: each JSON block with
 * `mcpServers` in README.md and docs/*.md, its `/abs/path/indexes` and `/abs/path/coderag` replaced by real
 * folders, started as a client starts it (the command found on the PATH, as `npm install -g` puts `coderag` there)
 * through the MCP SDK's StdioClientTransport.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, runCli } from '../support/cli.js';
import { blocksOf, docFiles, ROOT } from '../support/docBlocks.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

interface ServerConfig {
  command: string;
  args?: string[];
}

const configs = docFiles()
  .flatMap(blocksOf)
  .filter((b) => b.lang === 'json' && b.body.includes('"mcpServers"'))
  .flatMap((b) => Object.entries((JSON.parse(b.body) as { mcpServers: Record<string, ServerConfig> }).mcpServers).map(([name, server]) => ({ where: `${b.file}:${b.line} ${name}`, server })));

let indexes: string;
let bin: string;

beforeAll(async () => {
  const repo = makeTempRepo({ 'src/cache.ts': 'export function cacheGet(key: string) {\n  return key;\n}\n' }, { name: 'demo' });
  indexes = makeTempDir();
  expect((await runCli(['index', repo.root, '--out', indexes])).code).toBe(0);
  // `coderag` on the PATH, as npm links it: the built dist/bin/coderag.cjs, run by node.
  bin = makeTempDir('coderag-bin-');
  writeFileSync(path.join(bin, 'coderag'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
}, 60_000);

describe('the documented MCP client configurations', () => {
  it('are the two forms, coderag on the PATH and node with the built file, and neither is npx', () => {
    expect(configs.map((c) => c.server.command).sort()).toEqual(['coderag', 'node']);
    for (const { server } of configs) {
      expect(server.args).toContain('--indexes');
      const at = server.args!.indexOf('--indexes');
      expect(path.isAbsolute(server.args![at + 1]!)).toBe(true);
    }
  });

  it.each(configs.map((c) => [c.where, c.server] as const))('%s starts a server a real MCP client lists tools of and searches', async (_where, server) => {
    const args = (server.args ?? []).map((a) => a.replace('/abs/path/indexes', indexes).replace('/abs/path/coderag', ROOT));
    // Clients start servers from a folder of their own choosing.
    const transport = new StdioClientTransport({ command: server.command === 'node' ? process.execPath : server.command, args, cwd: makeTempDir(), env: { ...(cleanEnv() as Record<string, string>), PATH: `${bin}${path.delimiter}${process.env.PATH}` }, stderr: 'pipe' });
    const client = new Client({ name: 'docs-test', version: '0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('search');
      const result = await client.callTool({ name: 'search', arguments: { query: 'cache get' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: 'success', references: [expect.objectContaining({ repo_name: 'demo', file_path: 'src/cache.ts' })] });
    } finally {
      await client.close();
    }
  }, 60_000);
});
