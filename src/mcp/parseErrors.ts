/**
 * JSON-RPC's answer to a line that is not a message: the MCP SDK's stdio transport drops such a line and only
 * reports it to `onerror`, leaving the client waiting. JSON-RPC 2.0 says: a line that is not JSON gets error
 * -32700 (parse error), JSON that is not a request -32600 (invalid request), both with `id: null`.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

/** Wraps the transport's `onerror` (set by `connect`), so call after connecting. */
export function answerUnreadableLines(transport: Transport, log: (line: string) => void = () => {}): void {
  const previous = transport.onerror;
  transport.onerror = (error: Error) => {
    const code = error instanceof SyntaxError ? PARSE_ERROR : error.name === 'ZodError' ? INVALID_REQUEST : null;
    if (code !== null) {
      const message = code === PARSE_ERROR ? `Parse error: ${error.message}` : 'Invalid Request: not a JSON-RPC 2.0 message';
      // JSON-RPC's id is null when the request's own could not be read; the SDK's message type has no room for it.
      const answer = { jsonrpc: '2.0', id: null, error: { code, message } } as unknown as JSONRPCMessage;
      transport.send(answer).catch((sendError: unknown) => log(`could not answer an unreadable line: ${String(sendError)}`));
      log(`answered a line that is ${code === PARSE_ERROR ? 'not JSON' : 'not a JSON-RPC message'} with ${code}`);
    }
    previous?.(error);
  };
}
