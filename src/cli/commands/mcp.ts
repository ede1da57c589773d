/**
 * `coderag mcp`: serve the indexes over MCP on stdio until the client hangs up or a signal arrives.
 * stdout carries the protocol only; logs go to stderr.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { answerUnreadableLines } from '../../mcp/parseErrors.js';
import { createMcpServer } from '../../mcp/server.js';
import { MCP_TOOLS } from '../../mcp/toolNames.js';
import { AbortedError, errorMessage } from '../../shared/errors.js';
import { indexesDir } from './search.js';

export async function mcpCommand(flags: { indexes?: string; config?: string }): Promise<void> {
  const dir = path.resolve(await indexesDir(flags.indexes, flags.config));
  const log = (line: string) => process.stderr.write(`coderag mcp: ${line}\n`);
  const server = createMcpServer({ defaultIndexesDir: dir, log });

  const stopped = new Promise<'hangup' | NodeJS.Signals>((resolve) => {
    const stop = resolve;
    server.server.onclose = () => stop('hangup');
    process.stdin.once('end', () => stop('hangup'));
    // A client that went away leaves stdout broken; stop instead of throwing EPIPE.
    process.stdout.once('error', () => stop('hangup'));
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });

  const transport = new StdioServerTransport();
  await server.connect(transport);
  answerUnreadableLines(transport, log);
  // The server still starts (the folder may be written later), but a client's first answers would be errors.
  if (!existsSync(dir)) log(`warning: indexes folder not found: ${dir}; the tools answer an error until it exists (coderag index <repo> --out ${dir})`);
  log(`serving ${dir} on stdio (tools: ${MCP_TOOLS.join(', ')})`);
  const stopReason = await stopped;
  await server.close().catch((error: unknown) => log(`error while closing: ${errorMessage(error)}`));
  log(`stopped (${stopReason === 'hangup' ? 'client disconnected' : stopReason})`);
  // Ctrl+C exits 130 like every other command; a client's SIGTERM or hang-up is a normal end.
  if (stopReason === 'SIGINT') throw new AbortedError('interrupted: MCP server stopped');
}
