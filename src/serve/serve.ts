/**
 * `coderag serve` as a library call: the indexes folder followed (indexStore.ts), the tokens file followed
 * (tokenFile.ts), limits, the page, the HTTP server listening. The CLI adds flags, signals and the first line.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshnessWithin } from '../search/freshness.js';
import { UsageError } from '../shared/errors.js';
import { IndexStore, SERVED_FOLDER } from './indexStore.js';
import { DEFAULT_RATE, RequestLimiter, type LimitsOptions } from './limits.js';
import { createServeServer, isLoopback, type ServeLimits, type ServePage, type ServeServer } from './server.js';
import { TokenFile } from './tokenFile.js';

/** The page's files: `web/` at the package's root, beside `prompts/`, found from here and from the bundle alike. */
export const WEB_DIR = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../web');

export function readPage(dir: string = WEB_DIR): ServePage {
  return { html: readFileSync(path.join(dir, 'index.html'), 'utf8'), script: readFileSync(path.join(dir, 'app.js'), 'utf8') };
}

export interface ServeOptions {
  /** The indexes folder, absolute. */
  dir: string;
  host: string;
  port: number;
  /** The tokens file; without one, only a loopback host is accepted. */
  tokensFile?: string | undefined;
  rate?: Partial<Omit<LimitsOptions, 'now'>>;
  limits?: Partial<ServeLimits>;
  /** Quiet time after a change to the indexes folder before it is read again, and how often it is looked at regardless. */
  settleMs?: number;
  pollMs?: number;
  page?: ServePage;
  log?: (line: string) => void;
}

export interface RunningServe {
  /** `http://host:port`, the port the system chose for port 0. */
  url: string;
  port: number;
  http: ServeServer;
  store: IndexStore;
  /** Reads the tokens file and the indexes folder again (SIGHUP). */
  reload(): void;
  /** Graceful: requests in flight finish, then everything is released. */
  close(): Promise<void>;
}

export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const given = options.log ?? (() => {});
  let stageDir: string | null = null;
  // A message of the file system names the file; the generations' folder is as private as the served one.
  const log = (line: string) => given(stageDir ? line.split(stageDir).join(SERVED_FOLDER) : line);
  if (!options.tokensFile && !isLoopback(options.host)) {
    throw new UsageError(`refusing to serve on ${options.host} without --tokens: anyone who reaches it could read every index`, {
      hint: 'pass --tokens <file> (one line per token: <sha256 hex of the token> <* or repositories>), or serve on 127.0.0.1 behind a proxy that authenticates',
    });
  }
  let isFolder = false;
  try {
    isFolder = statSync(options.dir).isDirectory();
  } catch {
    // Said below.
  }
  if (!isFolder) throw new UsageError(`the indexes folder does not exist or is not a folder: ${options.dir}`, { hint: 'run `coderag index <repo> --out <dir>` first, or point --indexes at the folder it wrote' });
  const tokenFile = options.tokensFile ? new TokenFile({ file: options.tokensFile, log }) : null;
  stageDir = stagingFolder(options.dir);
  const store = new IndexStore({ dir: options.dir, stageDir, log, ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}), ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}) });
  await store.start();
  tokenFile?.watch();
  const http = createServeServer({
    store,
    tokens: () => tokenFile?.tokens ?? null,
    limiter: new RequestLimiter({ ...DEFAULT_RATE, ...options.rate }),
    page: options.page ?? readPage(),
    freshness: freshnessWithin(),
    ...(options.limits ? { limits: options.limits } : {}),
    log,
  });
  let address;
  try {
    address = await http.listen(options.port, options.host);
  } catch (error) {
    tokenFile?.close();
    store.close();
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot listen on ${options.host}:${options.port} (${code ?? 'error'})`, { cause: error, hint: code === 'EADDRINUSE' ? 'another process holds the port; pick another or --port 0' : undefined });
  }
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    http,
    store,
    reload() {
      tokenFile?.reload();
      store.refreshSoon(0);
    },
    async close() {
      tokenFile?.close();
      await http.close();
      store.close();
    },
  };
}

/**
 * Where the generations live: a hidden folder inside the served one, so a generation is hard links rather than
 * copies; the system's temporary folder when the served one is read-only.
 */
function stagingFolder(dir: string): string {
  try {
    return mkdtempSync(path.join(dir, '.coderag-serve-'));
  } catch {
    return mkdtempSync(path.join(tmpdir(), 'coderag-serve-'));
  }
}
