/**
 * `coderag serve`'s HTTP server: MCP's Streamable HTTP transport at `/mcp`, the JSON API under `/api/`, the page at
 * `/`, `/healthz`. A thin shell: a request is authenticated (tokens.ts), admitted (limits.ts), given the newest
 * generation of the indexes (indexStore.ts) narrowed to its token's scope, and answered by the same tools and
 * search library as `coderag mcp` and the CLI. Nothing global but the server handle.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer } from '../mcp/server.js';
import type { RepoFreshness } from '../search/freshness.js';
import type { LoadedIndex } from '../search/types.js';
import { errorMessage } from '../shared/errors.js';
import { answerApi, API_ROUTES, failure, searchParamsOf, type ApiRoute } from './api.js';
import { SERVED_FOLDER, type IndexStore, type Lease } from './indexStore.js';
import type { RequestLimiter } from './limits.js';
import { EVERY_REPOSITORY, bearerToken, type Scope, type TokenTable } from './tokens.js';

export interface ServeLimits {
  /** Bytes of a request body (MCP messages, a posted search). */
  maxBodyBytes: number;
  /** Characters of a request's path and query string. */
  maxUrlLength: number;
  /** Requests in flight across all tokens; more are answered 503 with `Retry-After`. */
  maxInFlight: number;
  /** A client must have sent its headers within this time, */
  headersTimeoutMs: number;
  /** and its whole request within this one. */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** A response the client does not read is abandoned after this time without progress. */
  socketTimeoutMs: number;
  /** How long SIGTERM waits for requests in flight before closing their connections. */
  shutdownGraceMs: number;
}

export const DEFAULT_LIMITS: ServeLimits = {
  maxBodyBytes: 1024 * 1024,
  maxUrlLength: 16 * 1024,
  maxInFlight: 64,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  socketTimeoutMs: 60_000,
  shutdownGraceMs: 10_000,
};

export interface ServePage {
  html: string;
  script: string;
}

export interface ServeServerOptions {
  store: IndexStore;
  /** The tokens in force, read anew at every request; null: no tokens (loopback only, every repository). */
  tokens: () => TokenTable | null;
  limiter: RequestLimiter;
  page: ServePage;
  freshness: (indexes: readonly LoadedIndex[]) => Promise<RepoFreshness[]>;
  limits?: Partial<ServeLimits>;
  log?: (line: string) => void;
}

export interface ServeServer {
  server: Server;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, lets requests in flight finish (up to the grace period), then closes every connection. */
  close(): Promise<void>;
  /** Requests being answered now. */
  readonly inFlight: number;
}

/** Whether a host name or address stays on this machine: what the server may bind without tokens, and answer. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

export function createServeServer(options: ServeServerOptions): ServeServer {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const log = options.log ?? (() => {});
  let inFlight = 0;
  let closing = false;
  let idle: (() => void) | null = null;

  const server = createServer({ headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs / 2) }, (req, res) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) idle?.();
    });
    if (closing) res.setHeader('Connection', 'close');
    handle(req, res).catch((error: unknown) => {
      log(`error: ${req.method ?? '?'} ${routeName(req)}: ${errorMessage(error)}`);
      if (!res.headersSent) sendJson(res, failure(500, 'internal error'));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.timeout = limits.socketTimeoutMs;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    if (rawUrl.length > limits.maxUrlLength) return sendJson(res, failure(414, `the request's path and query are over ${limits.maxUrlLength} characters; post a long search as JSON to /api/search`));
    const url = new URL(rawUrl, 'http://served.invalid');
    const tokens = options.tokens();
    if (!tokens && !isLoopback(hostnameOf(req.headers.host))) {
      // Without tokens the server is reachable from this machine only; a page elsewhere must not reach it by renaming itself.
      return sendJson(res, failure(421, 'this server answers requests addressed to the loopback interface only'));
    }
    if (url.pathname === '/healthz') return sendJson(res, { status: 200, body: { status: 'ok' } });
    if (url.pathname === '/' || url.pathname === '/index.html') return sendPage(res, 'text/html; charset=utf-8', options.page.html);
    if (url.pathname === '/app.js') return sendPage(res, 'text/javascript; charset=utf-8', options.page.script);
    const api = /^\/api\/([a-z]+)$/.exec(url.pathname)?.[1];
    const route = api && (API_ROUTES as readonly string[]).includes(api) ? (api as ApiRoute) : null;
    if (!route && url.pathname !== '/mcp') return sendJson(res, failure(404, 'no such page'));

    let scope: Scope = EVERY_REPOSITORY;
    let key = 'local';
    if (tokens) {
      const entry = tokens.lookup(bearerToken(req.headers.authorization) ?? '');
      if (!entry) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="coderag"');
        return sendJson(res, failure(401, 'a valid token is needed: send Authorization: Bearer <token>'));
      }
      scope = entry.scope;
      key = entry.hash.toString('hex');
    }
    if (inFlight > limits.maxInFlight) {
      res.setHeader('Retry-After', '1');
      return sendJson(res, failure(503, 'the server is busy; try again in a second'));
    }
    const admission = options.limiter.admit(key);
    if (!admission.ok) {
      res.setHeader('Retry-After', String(admission.retryAfterSeconds));
      return sendJson(res, failure(429, admission.reason === 'rate' ? 'too many requests for this token; slow down' : 'too many requests of this token at once'));
    }
    const lease = options.store.acquire();
    res.once('close', () => {
      lease.release();
      admission.release();
    });
    if (route) return answerRoute(route, req, res, url, scope, lease);
    return answerMcp(req, res, scope, lease);
  }

  async function answerRoute(route: ApiRoute, req: IncomingMessage, res: ServerResponse, url: URL, scope: Scope, lease: Lease): Promise<void> {
    let params = url.searchParams;
    if (req.method === 'POST' && route === 'search') {
      const body = await readJsonBody(req, res, limits.maxBodyBytes);
      if (body === undefined) return;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return sendJson(res, failure(400, 'post a JSON object of the search parameters'));
      const read = searchParamsOf(body as Record<string, unknown>);
      if (typeof read === 'string') return sendJson(res, failure(400, read));
      params = read;
    } else if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', route === 'search' ? 'GET, POST' : 'GET');
      return sendJson(res, failure(405, `use GET${route === 'search' ? ' or POST' : ''}`));
    }
    sendJson(res, await answerApi(route, params, { view: lease.view, scope, freshness: options.freshness }));
  }

  async function answerMcp(req: IncomingMessage, res: ServerResponse, scope: Scope, lease: Lease): Promise<void> {
    if (req.method !== 'POST') {
      // Stateless: no session, so no stream of server-initiated messages to GET and nothing to DELETE.
      res.setHeader('Allow', 'POST');
      return sendJson(res, { status: 405, body: { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless; POST each message' }, id: null } });
    }
    const body = await readJsonBody(req, res, limits.maxBodyBytes);
    if (body === undefined) return;
    const mcp = createMcpServer({ defaultIndexesDir: SERVED_FOLDER, cache: lease.source(scope), freshness: options.freshness, log });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  return {
    server,
    get inFlight() {
      return inFlight;
    },
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    async close() {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([new Promise<void>((resolve) => (idle = resolve)), new Promise<void>((resolve) => setTimeout(resolve, limits.shutdownGraceMs).unref())]);
      }
      server.closeAllConnections();
      await closed;
    },
  };
}

/** The request's JSON body, or undefined once an error answer was sent (too large, not JSON). */
async function readJsonBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) {
    res.setHeader('Connection', 'close');
    sendJson(res, failure(413, `the request body is over ${maxBytes} bytes`));
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      res.setHeader('Connection', 'close');
      sendJson(res, failure(413, `the request body is over ${maxBytes} bytes`));
      req.resume();
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    sendJson(res, { status: 400, body: { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not JSON' }, id: null } });
    return undefined;
  }
}

function sendJson(res: ServerResponse, answer: { status: number; body: unknown }): void {
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function sendPage(res: ServerResponse, type: string, text: string): void {
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  });
  res.end(text);
}

function hostnameOf(host: string | undefined): string {
  if (!host) return '';
  return host.startsWith('[') ? host.slice(1, host.indexOf(']')) : (host.split(':')[0] ?? '');
}

/** The route a request asked for, as logs name it: the path only, never the query (it may hold a search's text). */
function routeName(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0]?.slice(0, 100) ?? '/';
}
