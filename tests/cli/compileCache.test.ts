/**
 * The plain search bundle is compiled with V8's code cache: the first run saves what V8 compiled, the next takes
 * it back, and a cache that is missing, damaged, stale or unwritable only costs the compilation.
 */
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileCacheDir, requireCompiled } from '../../src/cli/compileCache.js';
import { makeTempDir } from '../support/tempRepo.js';

const MODULE = `exports.greet = function greet(name) { return 'hello ' + name; };
exports.dirname = __dirname;
exports.viaRequire = require('node:path').basename(__filename);
`;

function moduleFile(source = MODULE): string {
  const file = path.join(makeTempDir(), 'entry.cjs');
  writeFileSync(file, source);
  return file;
}

interface Greeter {
  greet(name: string): string;
  dirname: string;
  viaRequire: string;
}

describe('requireCompiled', () => {
  it('runs a CommonJS file as require would, with its own require, __filename and __dirname', () => {
    const file = moduleFile();
    const loaded = requireCompiled(file, null);
    const exports = loaded.exports as Greeter;
    expect(exports.greet('cache')).toBe('hello cache');
    expect(exports.dirname).toBe(path.dirname(file));
    expect(exports.viaRequire).toBe('entry.cjs');
    expect(loaded.fromCache).toBe(false);
  });

  it('saves the compiled code after a run and takes it back on the next', () => {
    const file = moduleFile();
    const cache = makeTempDir();
    const first = requireCompiled(file, cache);
    (first.exports as Greeter).greet('first');
    first.save();
    expect(readdirSync(cache)).toEqual([expect.stringMatching(/^entry-[0-9a-f]{16}\.v8$/)]);
    const second = requireCompiled(file, cache);
    expect(second.fromCache).toBe(true);
    expect((second.exports as Greeter).greet('second')).toBe('hello second');
  });

  it('compiles again, and saves anew, when the cache is damaged', () => {
    const file = moduleFile();
    const cache = makeTempDir();
    requireCompiled(file, cache).save();
    const [name] = readdirSync(cache);
    const saved = readFileSync(path.join(cache, name!));
    writeFileSync(path.join(cache, name!), Buffer.concat([saved.subarray(0, 64), Buffer.alloc(saved.length - 64, 7)]));
    const damaged = requireCompiled(file, cache);
    expect(damaged.fromCache).toBe(false);
    expect((damaged.exports as Greeter).greet('anyway')).toBe('hello anyway');
    damaged.save();
    expect(requireCompiled(file, cache).fromCache).toBe(true);
  });

  it('never takes a cache made for another version of the file, even one of the same length and time', () => {
    const file = moduleFile();
    const cache = makeTempDir();
    const { mtime } = statSync(file);
    requireCompiled(file, cache).save();
    // As npm installs a patch release: another content, the same size, every file's mtime the same.
    writeFileSync(file, MODULE.replace("'hello '", "'howdy '"));
    utimesSync(file, mtime, mtime);
    const changed = requireCompiled(file, cache);
    expect(changed.fromCache).toBe(false);
    expect((changed.exports as Greeter).greet('there')).toBe('howdy there');
  });

  it("removes the same file's caches and temp files written more than a month ago when it writes one, and nothing else", () => {
    const file = moduleFile();
    const cache = makeTempDir();
    const old = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    const recent = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    for (const [name, time] of [['entry-0000000000000000.v8', old], ['entry-3333333333333333.v8.999.tmp', old], ['entry-1111111111111111.v8', recent], ['other-22222222.v8', old], ['entry-notes.txt', old]] as const) {
      writeFileSync(path.join(cache, name), 'x');
      utimesSync(path.join(cache, name), time, time);
    }
    requireCompiled(file, cache).save();
    const left = readdirSync(cache).sort();
    expect(left.filter((name) => !['entry-1111111111111111.v8', 'other-22222222.v8', 'entry-notes.txt'].includes(name))).toEqual([expect.stringMatching(/^entry-[0-9a-f]{16}\.v8$/)]);
    expect(left).toEqual(expect.arrayContaining(['entry-1111111111111111.v8', 'other-22222222.v8', 'entry-notes.txt']));
    expect(left).not.toContain('entry-0000000000000000.v8');
    expect(left).not.toContain('entry-3333333333333333.v8.999.tmp');
  });

  it('runs without a cache when its folder cannot be made, and fails nothing', () => {
    const file = moduleFile();
    const blocker = path.join(makeTempDir(), 'not-a-folder');
    writeFileSync(blocker, '');
    const loaded = requireCompiled(file, path.join(blocker, 'coderag'));
    expect(() => loaded.save()).not.toThrow();
    expect((loaded.exports as Greeter).greet('still')).toBe('hello still');
  });
});

describe('compileCacheDir', () => {
  it('is the user cache folder, XDG_CACHE_HOME first, and none when CODERAG_NO_COMPILE_CACHE is 1', () => {
    expect(compileCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/home/u' })).toBe('/x/cache/coderag');
    expect(compileCacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/coderag');
    expect(compileCacheDir({ HOME: '/home/u', CODERAG_NO_COMPILE_CACHE: '1' })).toBeNull();
    expect(compileCacheDir({}, () => '/home/v')).toBe('/home/v/.cache/coderag');
  });

  it('is none when there is no home to put it in, rather than an error', () => {
    const noHome = (): string => {
      throw new Error('ENOENT: no such user');
    };
    expect(compileCacheDir({}, noHome)).toBeNull();
    expect(compileCacheDir({}, () => '')).toBeNull();
  });
});
