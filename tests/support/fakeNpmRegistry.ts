/**
 * Installs CodeRAG's own tarball, as a user would, without the network.
 *
 * `npm install -g coderag-x.y.z.tgz` resolves the tarball's dependencies from their packuments (version lists),
 * which `npm ci` never fetches: it installs from the lockfile. So npm is pointed at a stand-in registry on
 * 127.0.0.1 that answers each packument from package-lock.json (the versions this repository installs, with
 * their integrity), and serves no tarballs: npm takes those from its cache by integrity, where `npm ci` left
 * them. A tarball npm asks for is one its cache lacks; the install then fails and `missing` names it.
 * Packuments are sent `no-store`, so nothing of this registry stays in npm's cache.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '../..');

interface LockEntry {
  name?: string;
  version: string;
  integrity?: string;
  dev?: boolean;
  link?: boolean;
  [field: string]: unknown;
}

export interface FakeNpmRegistry {
  /** The registry URL, with its trailing slash, for `--registry` or `npm_config_registry`. */
  url: string;
  /** Tarballs npm asked for: packages its cache lacks. */
  missing: string[];
  close(): Promise<void>;
}

const MANIFEST_FIELDS = ['dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'bin', 'engines', 'os', 'cpu', 'license'];

/** Packuments of every package the lockfile installs outside devDependencies, each version it names. */
function packuments(lockFile: string, tarballBase: () => string): Map<string, Record<string, Record<string, unknown>>> {
  const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as { packages: Record<string, LockEntry> };
  const byName = new Map<string, Record<string, Record<string, unknown>>>();
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === '' || entry.dev || entry.link || !entry.integrity) continue;
    const name = entry.name ?? key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const versions = byName.get(name) ?? {};
    const manifest: Record<string, unknown> = { name, version: entry.version };
    for (const field of MANIFEST_FIELDS) if (entry[field] !== undefined) manifest[field] = entry[field];
    const file = `${name.split('/').pop()}-${entry.version}.tgz`;
    manifest.dist = { integrity: entry.integrity, get tarball() { return `${tarballBase()}${name}/-/${file}`; } };
    versions[entry.version] = manifest;
    byName.set(name, versions);
  }
  return byName;
}

export async function startFakeNpmRegistry(lockFile = path.join(root, 'package-lock.json')): Promise<FakeNpmRegistry> {
  let url = '';
  const byName = packuments(lockFile, () => url);
  const missing: string[] = [];
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').slice(1).split('?')[0] ?? '');
    const versions = byName.get(name);
    if (req.method === 'GET' && versions) {
      const latest = Object.keys(versions).sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1);
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ name, 'dist-tags': { latest }, versions }));
      return;
    }
    if (name.endsWith('.tgz')) missing.push(name);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: `not in this registry: ${name}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    missing,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The environment for a child npm that installs globally into `prefix` from `registry`: the outer `npm test`'s
 * own npm_config_* settings are dropped (but the cache and user config, where the tarballs are), and the
 * prefix's bin folder comes first on the PATH, as it would for a user whose global bin is on theirs. The installed
 * command's compile cache (src/cli/compileCache.ts) goes under the prefix too, not into the developer's home.
 */
export function npmEnv(prefix: string, registry: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if (lower.startsWith('npm_') && lower !== 'npm_config_cache' && lower !== 'npm_config_userconfig') continue;
    if (/^(OPENAI_|ANTHROPIC_|CODERAG_)/.test(key)) continue;
    env[key] = value;
  }
  return {
    ...env,
    npm_config_prefix: prefix,
    npm_config_registry: registry,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    XDG_CACHE_HOME: path.join(prefix, 'cache-home'),
  };
}

/**
 * `npm pack` of this repository into `dest`, from the dist/ that `npm test` has just built: `--ignore-scripts`
 * skips the prepack build, which would rewrite dist/ under the tests running beside this one.
 */
export async function packThisPackage(dest: string): Promise<{ tarball: string; files: string[] }> {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest], {
    cwd: root,
    env: npmEnv(dest, 'http://127.0.0.1:9/'),
    timeout: 60_000,
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (!packed) throw new Error(`npm pack printed no package: ${stdout}`);
  return { tarball: path.join(dest, packed.filename), files: packed.files.map((f) => f.path) };
}
