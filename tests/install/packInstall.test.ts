/**
 * The README's install, as a user does it: `npm pack` makes the tarball, `npm install -g` puts it in a prefix,
 * and the `coderag` on that prefix's PATH indexes a repository and searches it. Everything goes through the
 * installed bin, never through this checkout's files. No network: see fakeNpmRegistry.ts.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer } from '../support/fakeLlmServer.js';
import { npmEnv, packThisPackage, startFakeNpmRegistry, type FakeNpmRegistry } from '../support/fakeNpmRegistry.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../support/tempRepo.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  bin: { coderag: string };
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  engines: { node: string };
};

let registry: FakeNpmRegistry;
let prefix: string;
let packedFiles: string[];
let repo: TempRepo;
let bin: string;

/** Runs the installed `coderag` as a program (its shebang picks node), in the repository. */
function coderag(args: string[], env: NodeJS.ProcessEnv = {}) {
  return run(bin, args, { cwd: repo.root, env: { ...npmEnv(prefix, registry.url), ...env }, timeout: 30_000 });
}

beforeAll(async () => {
  registry = await startFakeNpmRegistry();
  const work = makeTempDir('coderag-pack-');
  prefix = path.join(work, 'prefix');
  const packed = await packThisPackage(work);
  packedFiles = packed.files;
  try {
    await run('npm', ['install', '-g', packed.tarball], { cwd: work, env: npmEnv(prefix, registry.url), timeout: 50_000 });
  } catch (error) {
    const missing = registry.missing.length ? ` (not in npm's cache, so not installable offline: ${registry.missing.join(', ')}; run npm ci first)` : '';
    throw new Error(`npm install -g of the packed tarball failed${missing}: ${(error as { stderr?: string }).stderr ?? error}`);
  }
  bin = path.join(prefix, 'bin', 'coderag');
  repo = makeTempRepo(
    {
      'src/cache/lruCache.ts': 'import { now } from "../clock";\n\n/** A least-recently-used cache whose entries expire after a time to live. */\nexport class LruCache<V> {\n  private entries = new Map<string, { value: V; expires: number }>();\n  constructor(private ttlMs: number) {}\n  get(key: string): V | undefined {\n    const hit = this.entries.get(key);\n    return hit && hit.expires > now() ? hit.value : undefined;\n  }\n}\n',
      'src/clock.ts': '/** The current time in milliseconds. */\nexport function now(): number {\n  return Date.now();\n}\n',
      'src/http/server.py': 'def serve(port):\n    """Serve the app on a port."""\n    return port\n',
      'README.md': '# demo\n\nA cache with a TTL.\n',
    },
    { git: true, name: 'demo' },
  );
}, 60_000);

afterAll(() => registry?.close());

describe('the package npm pack makes', () => {
  it('holds the built CLI, the prompts and the default config, and no sources or tests', () => {
    expect(packedFiles).toEqual(expect.arrayContaining(['package.json', 'README.md', 'indexer_config.yaml', 'dist/bin/coderag.cjs', 'dist/bin/search.cjs', 'dist/bin/coderag.js', 'dist/bin/extractWorker.js', 'prompts/profile.md']));
    expect(packedFiles.filter((f) => /^(src|tests|bench|examples)\//.test(f) || f.startsWith('.'))).toEqual([]);
  });

  it('builds dist/ itself when packed, states the Node versions it runs on, and runs nothing at install', () => {
    expect(pkg.scripts.prepack).toMatch(/npm run build/);
    // prepare would run again on every pack, and npm flags it on every install of the tarball.
    for (const hook of ['prepare', 'preinstall', 'install', 'postinstall']) expect(pkg.scripts[hook], hook).toBeUndefined();
    expect(pkg.engines.node).toMatch(/^>=20/);
    expect(pkg.bin).toEqual({ coderag: 'dist/bin/coderag.cjs' });
  });

  it('bundles only the pure JavaScript dependencies it names into the command, and leaves every other one installed', () => {
    // Three bundles: the ES module one (every command), the command npm links (a plain search; the others it hands
    // on) and the plain search it loads.
    const [esm, entry, search] = (pkg.scripts.bundle ?? '').split(/(?=esbuild )/).filter((step) => step.startsWith('esbuild ')).map((step) => {
      const external = new Set([...step.matchAll(/--external:(\S+)/g)].map((m) => m[1]));
      return { step, bundled: Object.keys(pkg.dependencies).filter((dep) => !external.has(dep)).sort() };
    });
    // Packages that read files beside their own modules (grammars, wasm), or that only some commands load, stay
    // external; a new dependency fails here until it is listed as one or the other.
    expect(esm?.step).toMatch(/--format=esm/);
    expect(esm?.bundled).toEqual(['commander', 'yaml', 'zod']);
    // The linked command is Node's own modules and a few lines of ours: it bundles no package.
    expect(entry?.step).toMatch(/--format=cjs .*--packages=external/);
    // The plain search keeps only ES-module-only packages inside (a CommonJS file cannot require them on every
    // Node 20); commander it never loads, and the configuration's zod and yaml it requires when a config is read.
    expect(search?.step).toMatch(/--format=cjs/);
    expect(search?.bundled).toEqual(['p-limit', 'p-retry']);
  });
});

describe('coderag installed with npm install -g from the tarball', () => {
  it('is on the prefix PATH as an executable script that starts node itself', async () => {
    const target = realpathSync(bin);
    expect(target).toBe(realpathSync(path.join(prefix, 'lib/node_modules/coderag', pkg.bin.coderag)));
    expect(readFileSync(target, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(statSync(target).mode & 0o111).not.toBe(0);
    const { stdout } = await run('coderag', ['--version'], { env: npmEnv(prefix, registry.url), timeout: 30_000 });
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('indexes the repository it is run in and finds its files with search', async () => {
    const indexed = await coderag(['index', '.']);
    const indexFile = path.join(repo.root, 'indexes', 'demo_index.json');
    expect(path.resolve(repo.root, indexed.stdout.trim())).toBe(indexFile);
    const index = JSON.parse(readFileSync(indexFile, 'utf8')) as { file_summaries: Array<{ file_path: string; status: string; main_functions: string[] }> };
    const byPath = new Map(index.file_summaries.map((f) => [f.file_path, f]));
    expect([...byPath.keys()]).toEqual(expect.arrayContaining(['README.md', 'src/cache/lruCache.ts', 'src/clock.ts', 'src/http/server.py']));
    expect(byPath.get('src/cache/lruCache.ts')?.main_functions).toContain('LruCache');
    expect(byPath.get('src/http/server.py')?.status).toBe('ok');

    const found = await coderag(['search', '--target', 'ttlCache.ts', '--keywords', 'cache,ttl', '--json']);
    const answer = JSON.parse(found.stdout) as { references: Array<{ file_path: string }> };
    expect(answer.references[0]?.file_path).toBe('src/cache/lruCache.ts');
    const markdown = await coderag(['search', '--target', 'ttlCache.ts', '--keywords', 'cache,ttl']);
    expect(markdown.stdout).toContain('src/cache/lruCache.ts');
  });

  it('profiles with a model from the installed prompts', async () => {
    const server = await startFakeLlmServer({ latencyMs: 0 });
    try {
      const out = makeTempDir();
      const env = { OPENAI_API_KEY: 'sk-test-0123456789abcdefghij', OPENAI_BASE_URL: server.openaiBaseUrl, CODERAG_CACHE_DIR: makeTempDir() };
      await coderag(['index', '.', '--out', out, '-q'], env);
      const index = JSON.parse(readFileSync(path.join(out, 'demo_index.json'), 'utf8')) as { file_summaries: Array<{ file_path: string; profile_source: string }> };
      expect(index.file_summaries.find((f) => f.file_path === 'src/clock.ts')?.profile_source).toBe('llm');
      expect(server.stats.requests).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('left nothing of the install in this checkout', () => {
    expect(existsSync(path.join(root, `coderag-${pkg.version}.tgz`))).toBe(false);
  });
});
