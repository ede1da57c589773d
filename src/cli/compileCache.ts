/**
 * Loading a CommonJS bundle with V8's code cache, what Node 22's `module.enableCompileCache()` does and Node 20
 * lacks. A cold command spends a good part of its time compiling the functions it runs; V8 can save that work
 * (`createCachedData` once the command has run, so the cache holds every function it compiled) and take it back
 * on the next start: 5 to 8 ms of a cold search's 150 (bench/README.md).
 *
 * The cache is the user's own (`$XDG_CACHE_HOME/coderag`, else `~/.cache/coderag`, a folder only they may
 * write), one file per bundle path, bundle content (its SHA-1: npm gives every installed file the same mtime, and a
 * patch release can keep a bundle's size), Node version, architecture and Node options. V8
 * refuses data made by another V8, with other flags or for a source of another length, but a release build does
 * not check the data itself, so each file starts with the SHA-1 of the rest and a file that fails it is not
 * given to V8. Refused or damaged data is made again. `CODERAG_NO_COMPILE_CACHE=1` turns it off. Nothing here can
 * fail a command: a cache that cannot be read or written is only not used.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { createRequire, wrap } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

export interface CompiledModule {
  exports: unknown;
  /** Whether V8 took its compiled code from the cache. */
  fromCache: boolean;
  /** Writes the cache when it was missing or refused; call it once the module's work is done. */
  save(): void;
}

/** Where the cache lives for this environment, or null when it is turned off or there is no home to put it in. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env, homedir: () => string = os.homedir): string | null {
  if (env.CODERAG_NO_COMPILE_CACHE === '1') return null;
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'coderag');
  let home = env.HOME;
  try {
    home ||= homedir();
  } catch {
    // A user with no home directory (os.homedir throws): no cache.
  }
  return home ? path.join(home, '.cache', 'coderag') : null;
}

/** Runs the CommonJS file `file` as `require` would, its compiled code taken from and saved to `cacheDir`. */
export function requireCompiled(file: string, cacheDir: string | null): CompiledModule {
  const source = readFileSync(file, 'utf8');
  const cacheFile = cacheDir === null ? null : path.join(cacheDir, cacheName(file, source));
  const cachedData = cacheFile === null ? undefined : readOrUndefined(cacheFile);
  // The file may not call import(): on Node 20 a script compiled here can only do so behind a flag (the search
  // bundle is built with its dynamic imports made requires).
  const script = new vm.Script(wrap(source), { filename: file, cachedData });
  const fromCache = cachedData !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  return {
    exports: module.exports,
    fromCache,
    save: () => {
      if (cacheFile !== null && !fromCache) writeQuietly(cacheFile, script.createCachedData());
    },
  };
}

/** `search-<hash>.v8`: a hash of what makes compiled code valid for this source and this Node. */
function cacheName(file: string, source: string): string {
  const key = createHash('sha1');
  for (const part of [file, source, process.version, process.arch, process.execArgv.join(' ')]) key.update(part).update('\0');
  return `${path.basename(file, path.extname(file))}-${key.digest('hex').slice(0, 16)}.v8`;
}

/** The compiled code `file` holds, if it is there and whole. */
function readOrUndefined(file: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  const data = bytes.subarray(DIGEST_BYTES);
  return bytes.length > DIGEST_BYTES && sha1(data).equals(bytes.subarray(0, DIGEST_BYTES)) ? data : undefined;
}

const DIGEST_BYTES = 20;

function sha1(bytes: Uint8Array): Buffer {
  return createHash('sha1').update(bytes).digest();
}

/** Writes `bytes` to `file` through a temp file, so a concurrent start reads the old cache or the new, never half. */
function writeQuietly(file: string, bytes: Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const fd = openSync(temp, 'w', 0o600);
    try {
      const digested = Buffer.concat([sha1(bytes), bytes]);
      for (let at = 0; at < digested.length; ) at += writeSync(fd, digested, at);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
    pruneStale(path.dirname(file), path.basename(file));
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {
      // The folder itself could not be made: there is no temp file.
    }
  }
}

/**
 * Caches of the same bundle written more than a month ago (older builds, other Node versions) are removed, and
 * so are temp files that old (a write cut short).
 */
function pruneStale(dir: string, kept: string): void {
  const prefix = kept.slice(0, kept.lastIndexOf('-') + 1);
  const monthAgo = Date.now() - 30 * 24 * 3600 * 1000;
  for (const name of readdirSync(dir)) {
    if (name === kept || !name.startsWith(prefix) || !(name.endsWith('.v8') || name.endsWith('.tmp'))) continue;
    const file = path.join(dir, name);
    if ((statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < monthAgo) rmSync(file, { force: true });
  }
}
