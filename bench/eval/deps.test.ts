import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isHeldOut, removeNames } from './describe.js';
import {
  DEPS_LIST_FILE,
  FILES_PER_PACKAGE,
  MAX_FILE_BYTES,
  depsCase,
  depsIndexConfig,
  depsRoot,
  ensureInstalled,
  installedDir,
  isDepsCandidate,
  packageNames,
  pickPackageFiles,
  rankListing,
  skippedByName,
  splitSpec,
  type DepsList,
} from './deps.js';
import { splitHalves } from './split.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A package folder as npm installs it, with the given files. */
function installedPackage(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'deps-test-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('the dependency-folder set: candidates', () => {
  it('takes shipped code and declarations, builds of every format included', () => {
    for (const p of ['index.js', 'index.d.ts', 'dist/cjs/index.cjs', 'dist/esm/index.mjs', 'umd/lib.umd.js', 'lib/parse.ts', 'types/index.d.mts']) {
      expect(isDepsCandidate(p), p).toBe(true);
    }
  });

  it('leaves out what holds the query: READMEs, markdown, package.json, licences, changelogs; and minified twins, maps, nested dependencies', () => {
    for (const p of ['README.md', 'readme.markdown', 'docs/api.md', 'package.json', 'LICENSE', 'license.txt', 'CHANGELOG.md', 'HISTORY.md', 'dist/index.min.js', 'dist/index.js.map', 'node_modules/dep/index.js', '.github/x.js']) {
      expect(isDepsCandidate(p), p).toBe(false);
    }
  });

  it('keeps at most FILES_PER_PACKAGE files, the shallowest first, and none over MAX_FILE_BYTES', () => {
    const entries = [
      { path: 'dist/esm/deep/a.js', size: 10 },
      { path: 'index.js', size: 10 },
      { path: 'huge.js', size: MAX_FILE_BYTES + 1 },
      { path: 'README.md', size: 10 },
      ...Array.from({ length: FILES_PER_PACKAGE + 5 }, (_, i) => ({ path: `lib/m${String(i).padStart(3, '0')}.js`, size: 10 })),
    ];
    const picked = pickPackageFiles(entries);
    expect(picked).toHaveLength(FILES_PER_PACKAGE);
    expect(picked[0]).toBe('index.js');
    expect(picked).not.toContain('huge.js');
    expect(picked).not.toContain('README.md');
    expect(picked).not.toContain('dist/esm/deep/a.js');
  });
});

describe('the dependency-folder set: queries', () => {
  it('removes the package name, its scope with it, and plural forms', () => {
    expect(removeNames('Chalk is terminal string styling done right', packageNames('chalk'))).toBe('is terminal string styling done right');
    expect(removeNames('Babel types: builders for Babel types nodes', packageNames('@babel/types'))).not.toMatch(/babel types/i);
    expect(removeNames('Find-up finds a file by walking up parent directories', packageNames('find-up'))).toBe('finds a file by walking up parent directories');
  });

  it("takes the query from the shipped README's first descriptive sentence, never from package.json's description", () => {
    const dir = installedPackage({
      'package.json': JSON.stringify({ name: 'left-pad', version: '1.0.0', description: 'Zebra quokka narwhal description words' }),
      'README.md': '# left-pad\n\n[![build](https://ci.example/badge.svg)](https://ci.example)\n\nLeft-pad pads a string on the left with spaces or zeros.\n',
      'index.js': 'module.exports = function leftPad(s, n) { return s.padStart(n); };\n',
    });
    const c = depsCase('left-pad@1.0.0', dir);
    expect(typeof c).toBe('object');
    if (typeof c === 'string') return;
    expect(c.query).toBe('pads a string on the left with spaces or zeros.');
    expect(c.query).not.toMatch(/zebra|quokka|narwhal/i);
    expect(c.files).toEqual(['index.js']);
    expect(c.root).toBe('left-pad@1.0.0');
  });

  it('gives no case, and says why, for a package without a README sentence, or without code', () => {
    const described = { 'package.json': JSON.stringify({ name: 'x', description: 'A perfectly good description from npm' }), 'index.js': 'x' };
    expect(depsCase('x@1.0.0', installedPackage(described))).toBe('no README shipped');
    expect(depsCase('x@1.0.0', installedPackage({ 'README.md': 'A parser for configuration files of many kinds.\n', 'data.json': '{}' }))).toBe('no code file shipped');
    expect(depsCase('x@1.0.0', installedPackage({ 'README.md': '# x\n\n## Install\n', 'index.js': 'x' }))).toMatch(/no descriptive sentence/);
  });
});

describe('the dependency-folder set: list, install and halves', () => {
  const list = JSON.parse(readFileSync(DEPS_LIST_FILE, 'utf8')) as DepsList;

  it('pins several dozen packages at exact versions, none held out or skipped by the rule', () => {
    expect(list.packages.length).toBeGreaterThanOrEqual(60);
    expect(new Set(list.packages).size).toBe(list.packages.length);
    for (const spec of list.packages) {
      const { name, version } = splitSpec(spec);
      expect(version, spec).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
      expect(skippedByName(name), spec).toBe(false);
      expect(isHeldOut(name.replace(/^@[^/]+\//, '')), spec).toBe(false);
    }
  });

  it('skips held-out names, type-only packages and platform binaries by name', () => {
    for (const n of ['zod', 'fastify', 'express', '@types/node', '@rollup/rollup-linux-x64-musl', '@esbuild/darwin-arm64']) expect(skippedByName(n), n).toBe(true);
    for (const n of ['chalk', '@babel/types', 'ansi-styles']) expect(skippedByName(n), n).toBe(false);
  });

  it('splits the packages into balanced tuning and held-out halves by split.ts, on the exact name@version', () => {
    const halves = splitHalves(list.packages);
    const tune = list.packages.filter((s) => halves.get(s) === 'tune').length;
    expect(Math.abs(tune - (list.packages.length - tune))).toBeLessThanOrEqual(1);
    expect(splitHalves([...list.packages].reverse())).toEqual(halves);
  });

  it('orders a registry listing by downloads, most first, and reads only name, version and downloads', () => {
    const tsv = 'name\tversion\tdownloads_a_month\tsummary\nsmall\t1.0.0\t10\tnpm description\nbig\t2.0.0\t900\tother\nbad\t1.0.0\tx\t\n';
    expect(rankListing(tsv)).toEqual([
      { name: 'big', version: '2.0.0' },
      { name: 'small', version: '1.0.0' },
    ]);
  });

  it('installs only what is missing at its exact version, with install scripts off', () => {
    const prefix = installedPackage({ 'node_modules/chalk/package.json': JSON.stringify({ name: 'chalk', version: '5.3.0' }) });
    const calls: string[][] = [];
    ensureInstalled(['chalk@5.3.0', '@babel/types@8.1.2'], prefix, (cmd, args) => calls.push([cmd, ...args]));
    expect(calls).toEqual([['npm', 'install', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', '@babel/types@8.1.2']]);
    calls.length = 0;
    ensureInstalled(['chalk@5.3.0'], prefix, (cmd, args) => calls.push([cmd, ...args]));
    expect(calls).toEqual([]);
    expect(installedDir(prefix, '@babel/types')).toBe(join(prefix, 'node_modules', '@babel', 'types'));
  });

  it('names folders scope+name@version and lets CodeRAG index the build folders packages ship', () => {
    expect(depsRoot('@babel/types@8.1.2')).toBe('babel+types@8.1.2');
    expect(splitSpec('@babel/types@8.1.2')).toEqual({ name: '@babel/types', version: '8.1.2' });
    const skip = depsIndexConfig().file_analysis.skip_directories;
    expect(skip).toContain('node_modules');
    expect(skip).not.toContain('dist');
    expect(skip).not.toContain('build');
  });
});
