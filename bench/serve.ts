/**
 * `coderag serve` under load: N concurrent clients on 127.0.0.1 for a bounded time against the 5,000-file index
 * of bench/search.ts, first as it is, then while the index is replaced every two seconds by another version of it
 * (same content, another modification time), search file first and then the index, each linked beside its place
 * and renamed into it, as `coderag index` leaves them. The server is the built CLI in its own process.
 *
 *   npm run build && node --import tsx bench/serve.ts [--quick] [--clients 8] [--seconds 10]
 *
 * latency    p50 and p99 of GET /api/search?query=… (QUERIES in turn), measured by the client, keep-alive.
 * errors     answers that are not 200 with results, and failed connections: must be 0.
 * peak RSS   the server process's VmHWM (Linux /proc) at the end of each phase.
 * reloads    generations the server read while clients ran (from its log).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, linkSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { COMMAND as CLI } from './lib/child.js';
import { WORK_DIR } from './lib/corpus.js';
import { Figures, type SectionResult } from './lib/figures.js';
import { round } from './lib/stats.js';
import { QUERIES, ensureIndex } from './search.js';
import { loadIndexes } from '../dist/search/load.js';
import { PACK_DIR } from '../dist/search/pack.js';

export interface ServeBenchOptions {
  files: number;
  clients: number;
  seconds: number;
  log?: (line: string) => void;
}

export const SERVE_FULL = { files: 5_000, clients: 8, seconds: 10 };
export const SERVE_QUICK = { files: 5_000, clients: 4, seconds: 4 };

interface Phase {
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  perSecond: number;
  peakRssMb: number | null;
  reloads: number;
}

export async function benchServe(options: ServeBenchOptions): Promise<SectionResult> {
  const started = performance.now();
  const { indexes } = ensureIndex(options.files);
  const served = path.join(WORK_DIR, 'serve-indexes');
  const other = path.join(WORK_DIR, 'serve-other');
  for (const dir of [served, other]) rmSync(dir, { recursive: true, force: true });
  cpSync(indexes, served, { recursive: true, preserveTimestamps: true });
  const indexFile = readdirSync(served).find((name) => name.endsWith('.json') && !name.startsWith('.') && !name.startsWith('indexing_'));
  if (!indexFile) throw new Error(`no index in ${served}`);
  // The other version: the same index with a later modification time, and the search file built for it.
  mkdirSync(other);
  copyFileSync(path.join(served, indexFile), path.join(other, indexFile));
  await loadIndexes(other);
  const versions = [other, indexes];
  const server = await startServer(served);
  try {
    // One warm-up search loads what the first query of a real client would.
    await search(server.url, QUERIES[0] as string);
    options.log?.(`serve: ${options.clients} clients for ${options.seconds} s`);
    const steady = await phase(server, options, null);
    options.log?.(`serve: again while the index is replaced every 2 s`);
    const replacing = await phase(server, options, { served, name: indexFile, versions });
    const figures = new Figures('serve');
    for (const [label, p] of [['steady', steady], ['replacing', replacing]] as const) {
      figures.add(`${label}: p50 latency`, round(p.p50, 2), 'ms', `${options.clients} clients, ${options.files}-file index`);
      figures.add(`${label}: p99 latency`, round(p.p99, 2), 'ms');
      figures.add(`${label}: requests per second`, Math.round(p.perSecond), 'req/s');
      figures.add(`${label}: errors`, p.errors, '', `of ${p.requests} requests`);
      if (p.peakRssMb !== null) figures.add(`${label}: server peak RSS`, p.peakRssMb, 'MB');
    }
    figures.add('replacing: index generations read', replacing.reloads, '');
    const findings = [steady, replacing].some((p) => p.errors > 0) ? [`serve: ${steady.errors + replacing.errors} failed request(s) — must be 0`] : [];
    return { setup: { ...options, log: undefined }, figures: figures.list, runs: { steady, replacing }, findings, seconds: round((performance.now() - started) / 1000, 1) };
  } finally {
    await server.stop();
    for (const dir of [served, other]) rmSync(dir, { recursive: true, force: true });
  }
}

interface Replacement {
  served: string;
  name: string;
  /** Folders holding a version of the index with its search file, put in place in turn. */
  versions: string[];
}

async function phase(server: Server, options: ServeBenchOptions, replace: Replacement | null): Promise<Phase> {
  const reloadsBefore = server.reloads();
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + options.seconds * 1000;
  let replacer: NodeJS.Timeout | null = null;
  if (replace) {
    let n = 0;
    const put = (from: string, to: string) => {
      const temporary = path.join(path.dirname(to), `.bench-${n}.tmp`);
      rmSync(temporary, { force: true });
      linkSync(from, temporary);
      renameSync(temporary, to);
    };
    const next = () => {
      const version = replace.versions[n++ % replace.versions.length] as string;
      const pack = replace.name.replace(/\.json$/, '.pack');
      put(path.join(version, PACK_DIR, pack), path.join(replace.served, PACK_DIR, pack));
      put(path.join(version, replace.name), path.join(replace.served, replace.name));
    };
    next();
    replacer = setInterval(next, 2000);
  }
  const client = async (k: number) => {
    for (let i = k; performance.now() < until; i += options.clients) {
      const t = performance.now();
      const ok = await search(server.url, QUERIES[i % QUERIES.length] as string).catch(() => false);
      latencies.push(performance.now() - t);
      if (!ok) errors += 1;
    }
  };
  const t = performance.now();
  await Promise.all(Array.from({ length: options.clients }, (_, k) => client(k)));
  const elapsed = (performance.now() - t) / 1000;
  if (replacer) clearInterval(replacer);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: latencies.length, errors, p50: at(0.5), p99: at(0.99), perSecond: latencies.length / elapsed, peakRssMb: server.peakRssMb(), reloads: server.reloads() - reloadsBefore };
}

async function search(url: string, query: string): Promise<boolean> {
  const response = await fetch(`${url}/api/search?query=${encodeURIComponent(query)}&max_results=10`);
  const body = (await response.json()) as { status?: string; references?: unknown[] };
  return response.status === 200 && body.status === 'success' && (body.references?.length ?? 0) > 0;
}

interface Server {
  url: string;
  child: ChildProcess;
  reloads(): number;
  peakRssMb(): number | null;
  stop(): Promise<void>;
}

async function startServer(dir: string): Promise<Server> {
  const child = spawn(process.execPath, [CLI, 'serve', '--indexes', dir, '--port', '0', '--rate', '1000000', '--concurrency', '1000'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = /^listening on (\S+)\n/.exec(out);
      if (line?.[1]) resolve(line[1]);
    });
    child.once('exit', (code) => reject(new Error(`coderag serve exited ${code}: ${log}`)));
  });
  return {
    url,
    child,
    reloads: () => (log.match(/reloaded \d+ index\(es\)/g) ?? []).length,
    peakRssMb: () => {
      try {
        const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
        return kb ? Math.round(Number(kb) / 1024) : null;
      } catch {
        return null;
      }
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const value = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : undefined;
  };
  const base = args.includes('--quick') ? SERVE_QUICK : SERVE_FULL;
  const result = await benchServe({ ...base, clients: value('--clients') ?? base.clients, seconds: value('--seconds') ?? base.seconds, log: (line) => process.stderr.write(`${line}\n`) });
  for (const f of result.figures) process.stdout.write(`${f.name}: ${f.value} ${f.unit}${f.note ? ` (${f.note})` : ''}\n`);
}
