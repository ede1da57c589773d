/**
 * Real corpora for benchmarks: files from this project's own `node_modules` tree (thousands of real
 * JavaScript and TypeScript files), hard-linked into `bench/.work/` so a corpus of any size costs no copying.
 * Past the files available, the tree is repeated under `copyN/` prefixes.
 */
import { copyFileSync, cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';

export const BENCH_ROOT = path.resolve(import.meta.dirname, '..');
export const WORK_DIR = path.join(BENCH_ROOT, '.work');
const NODE_MODULES = path.resolve(BENCH_ROOT, '..', 'node_modules');
const CODE = ['js', 'mjs', 'cjs', 'ts', 'mts', 'cts', 'tsx', 'jsx'];

let sourceFiles: string[] | null = null;

/** Code files under node_modules, under 512 KB, in a stable order. */
export function corpusSourceFiles(): string[] {
  sourceFiles ??= fg
    .sync(`**/*.{${CODE.join(',')}}`, { cwd: NODE_MODULES, onlyFiles: true, followSymbolicLinks: false, dot: false })
    .filter((file) => statSync(path.join(NODE_MODULES, file)).size < 512 * 1024)
    .sort();
  return sourceFiles;
}

/** A folder of exactly `count` code files (hard links into node_modules), rebuilt only when missing. */
export function buildCorpus(count: number): string {
  const dir = path.join(WORK_DIR, `corpus-${count}`);
  if (existsSync(path.join(dir, '.complete'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const files = corpusSourceFiles();
  for (let i = 0; i < count; i++) {
    const source = files[i % files.length] as string;
    const copy = Math.floor(i / files.length);
    const target = path.join(dir, copy === 0 ? '' : `copy${copy}`, source.replace(/(^|\/)node_modules\//g, '$1nm/'));
    mkdirSync(path.dirname(target), { recursive: true });
    try {
      linkSync(path.join(NODE_MODULES, source), target);
    } catch {
      copyFileSync(path.join(NODE_MODULES, source), target);
    }
  }
  mkdirSync(dir, { recursive: true });
  copyFileSync(path.join(BENCH_ROOT, '..', 'package.json'), path.join(dir, '.complete'));
  return dir;
}

export function corpusFileCount(dir: string): number {
  let n = 0;
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(d, entry.name));
      else n++;
    }
  };
  walk(dir);
  return n;
}

/** Reads every file once, so the first timed run does not pay for the disk. Returns the bytes read. */
export function warmPageCache(dir: string): number {
  let bytes = 0;
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile()) bytes += readFileSync(p).length;
    }
  };
  walk(dir);
  return bytes;
}

/**
 * A real copy of a corpus (not hard links, which share their mtime) with every mtime set to now: what a
 * fresh CI clone of an unchanged repository looks like to the profile cache.
 */
export function cloneWithNewMtimes(dir: string, target: string): string {
  rmSync(target, { recursive: true, force: true });
  mkdirSync(path.dirname(target), { recursive: true });
  cpSync(dir, target, { recursive: true, preserveTimestamps: false });
  const now = new Date();
  const touch = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) touch(p);
      else utimesSync(p, now, now);
    }
  };
  touch(target);
  return target;
}
