/** A real MCP client of the built CLI's `coderag mcp` over stdio, as an agent's host starts it. */
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, cleanEnv } from './cli.js';

export interface McpConnection {
  client: Client;
  /** What the server has written to stderr so far. */
  stderr: () => string;
}

/** Starts `coderag mcp --indexes <indexes>` in `cwd` (with `env`, cleanEnv() by default) and connects to it. */
export async function connectMcp(indexes: string, options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<McpConnection> {
  const env = Object.fromEntries(Object.entries(options.env ?? cleanEnv()).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--indexes', indexes], cwd: options.cwd, env, stderr: 'pipe' });
  let stderr = '';
  (transport.stderr as Readable | null)?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'coderag-test', version: '0' });
  await client.connect(transport, { timeout: options.timeoutMs ?? 10_000 });
  return { client, stderr: () => stderr };
}
