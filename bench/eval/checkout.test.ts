import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { materialise } from './checkout.js';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd, encoding: 'utf8' }).trim();

describe('checkout: a mirror without some blobs', () => {
  const root = mkdtempSync(join(tmpdir(), 'coderag-checkout-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('extracts every other file and lists the absent ones, even when the archive stops between two files', () => {
    const work = join(root, 'work');
    execFileSync('git', ['init', '-q', work]);
    // git archive writes 10240-byte records: the pax header (1024), a.txt's header (512) and 8704 bytes of content
    // fill the first one exactly, so the stream ends on a record boundary when the absent blob stops it
    writeFileSync(join(work, 'a.txt'), 'x'.repeat(8703) + '\n');
    writeFileSync(join(work, 'b.dat'), 'a large data file, absent from the mirror\n');
    writeFileSync(join(work, 'c.txt'), 'last\n');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'three files');
    const sha = git(work, 'rev-parse', 'HEAD');
    const bare = join(root, 'mirror.git');
    execFileSync('git', ['clone', '-q', '--bare', '--no-local', work, bare]);
    // unpack, then drop the middle file's blob: `git archive` writes a.txt and stops before b.dat, between two
    // files, where tar sees a clean end
    const packs = execFileSync('sh', ['-c', `ls ${bare}/objects/pack/*.pack`], { encoding: 'utf8' }).trim().split('\n');
    for (const p of packs) {
      execFileSync('sh', ['-c', `mv "${p}" "${root}/p.pack" && rm -f ${bare}/objects/pack/* && git --git-dir=${bare} unpack-objects -q < "${root}/p.pack"`]);
    }
    const blob = git(work, 'rev-parse', 'HEAD:b.dat');
    rmSync(join(bare, 'objects', blob.slice(0, 2), blob.slice(2)));

    const trees = join(root, 'trees');
    const dir = materialise('demo', sha, bare, trees);
    expect(existsSync(join(dir, 'a.txt'))).toBe(true);
    expect(existsSync(join(dir, 'c.txt'))).toBe(true);
    expect(existsSync(join(dir, 'b.dat'))).toBe(false);
    expect(readFileSync(`${dir}.missing.txt`, 'utf8')).toBe('b.dat\n');
  });
});
