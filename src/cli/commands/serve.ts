/**
 * `coderag serve`: the indexes over HTTP (MCP's Streamable HTTP transport, a JSON API, a page) until SIGTERM or
 * Ctrl+C. The first line of stdout is `listening on <url>`; logs go to stderr, with the server's own paths
 * replaced by their roles.
 */
import path from 'node:path';
import { startServe } from '../../serve/serve.js';
import { AbortedError } from '../../shared/errors.js';
import { indexesDir } from './search.js';

export interface ServeFlags {
  indexes?: string;
  config?: string;
  host: string;
  port: number;
  tokens?: string;
  rate: number;
  burst?: number;
  concurrency: number;
}

export async function serveCommand(flags: ServeFlags): Promise<void> {
  const dir = path.resolve(await indexesDir(flags.indexes, flags.config));
  const tokensFile = flags.tokens ? path.resolve(flags.tokens) : undefined;
  const redact = (line: string) => {
    let out = line.split(dir).join('<indexes>');
    if (tokensFile) out = out.split(tokensFile).join('<tokens file>');
    return out;
  };
  const log = (line: string) => process.stderr.write(`coderag serve: ${redact(line)}\n`);
  const running = await startServe({
    dir,
    host: flags.host,
    port: flags.port,
    tokensFile,
    rate: { ratePerSecond: flags.rate, burst: flags.burst ?? flags.rate * 2, maxConcurrent: flags.concurrency },
    log,
  });
  process.stdout.write(`listening on ${running.url}\n`);
  log(`serving ${running.store.repositories().length} index(es)${tokensFile ? ' to token holders' : ' to this machine only (no tokens)'}; SIGHUP re-reads the tokens and the indexes`);

  const onHangup = () => {
    log('SIGHUP: reading the tokens file and the indexes folder again');
    running.reload();
  };
  process.on('SIGHUP', onHangup);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  log(`${signal}: finishing ${running.http.inFlight} request(s) in flight`);
  await running.close();
  process.off('SIGHUP', onHangup);
  log('stopped');
  if (signal === 'SIGINT') throw new AbortedError('interrupted: server stopped');
}
