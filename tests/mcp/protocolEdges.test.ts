/**
 * The MCP server's protocol edges: a line that is not JSON gets JSON-RPC's -32700 parse error (JSON that is not a
 * message -32600) and the server keeps serving; a server started on an indexes folder that does not exist warns
 * on stderr, and its tools answer a clear error.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { describe, expect, it } from 'vitest';
import { answerUnreadableLines } from '../../src/mcp/parseErrors.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { CLI, cleanEnv } from '../support/cli.js';
import { makeTempDir } from '../support/tempRepo.js';

/** A server on in-memory stdio, and the JSON lines it writes. */
async function serverOnPipes(indexesDir: string) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      lines.push(JSON.parse(buffered.slice(0, at)) as Record<string, unknown>);
      buffered = buffered.slice(at + 1);
    }
  });
  const server = createMcpServer({ defaultIndexesDir: indexesDir });
  const transport = new StdioServerTransport(stdin, stdout);
  await server.connect(transport);
  answerUnreadableLines(transport);
  const next = async (count: number) => {
    for (let waited = 0; lines.length < count && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    return lines;
  };
  return { stdin, next, close: () => server.close() };
}

describe('an MCP server on stdio', () => {
  it('answers a line that is not JSON with a -32700 parse error, and one that is no message with -32600, and keeps serving', async () => {
    const { stdin, next, close } = await serverOnPipes(makeTempDir());
    stdin.write('this is not json\n');
    stdin.write('{"hello": "world"}\n');
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
    const lines = await next(3);
    await close();
    expect(lines[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(lines[1]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(lines[2]).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('answers a tool call on an indexes folder that does not exist with an error naming the folder', async () => {
    const missing = path.join(makeTempDir(), 'no-such-indexes');
    const { stdin, next, close } = await serverOnPipes(missing);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_indexes_overview', arguments: {} } };
    stdin.write(`${JSON.stringify(call)}\n`);
    const [answer] = await next(1);
    await close();
    const result = answer?.result as { isError?: boolean; content: Array<{ text: string }> };
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain(`indexes folder not found: ${missing}`);
  });
});

describe('coderag mcp --indexes on a folder that does not exist', () => {
  it('warns on stderr when it starts', async () => {
    const missing = path.join(makeTempDir(), 'no-such-indexes');
    const child = spawn(process.execPath, [CLI, 'mcp', '--indexes', missing], { env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    for (let waited = 0; !stderr.includes('serving') && waited < 15_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    expect(stderr).toContain(`coderag mcp: warning: indexes folder not found: ${missing}`);
  }, 30_000);
});
