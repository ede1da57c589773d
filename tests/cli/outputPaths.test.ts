/**
 * Output paths that cannot be used fail at once with what is wrong with them, never a raw EEXIST from mkdir;
 * and `index --help` says which files are indexed, `.coderagignore` included.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

const aFile = (): string => {
  const file = path.join(makeTempDir(), 'indexes.json');
  writeFileSync(file, '{}');
  return file;
};

describe('an output path that cannot be used', () => {
  it('index --out naming an existing file says so, and exits 1 before indexing', async () => {
    const repo = makeTempRepo({ 'a.ts': 'export const a = 1;\n' });
    const file = aFile();
    const result = await runCli(['index', repo.root, '--out', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: cannot write to ${file} (paths.output_dir): a file of that name is there`);
    expect(result.stderr).toContain('hint: name a folder that can be created or written, with --out');
    expect(result.stderr).not.toMatch(/EEXIST|ENOTDIR/);
  });

  it('index --out under a file says part of its path is a file', async () => {
    const repo = makeTempRepo({ 'a.ts': 'export const a = 1;\n' });
    const inside = path.join(aFile(), 'indexes');
    const result = await runCli(['index', repo.root, '--out', inside]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: cannot write to ${inside} (paths.output_dir): part of its path is a file`);
  });

  // Node's own recursive mkdir never returns there (it makes /proc again and again).
  it.skipIf(!existsSync('/proc/self'))('index --out under /proc, where no folder can be made, says so instead of hanging', async () => {
    const repo = makeTempRepo({ 'a.ts': 'export const a = 1;\n' });
    const result = await runCli(['index', repo.root, '--out', '/proc/coderag-nowhere/indexes'], { timeoutMs: 20_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: cannot write to /proc/coderag-nowhere/indexes (paths.output_dir): no folder can be made there');
  });

  it('merge --out naming an existing file says so', async () => {
    const repo = makeTempRepo({ 'a.ts': 'export const a = 1;\n', 'b.ts': 'export const b = 1;\n' }, { git: true });
    const shards = makeTempDir();
    for (const shard of ['1/2', '2/2']) expect((await runCli(['index', repo.root, '--out', shards, '--shard', shard, '-q'])).code).toBe(0);
    const file = aFile();
    const result = await runCli(['merge', shards, '--out', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: cannot write to ${file} (paths.output_dir): a file of that name is there`);
    expect(result.stderr).not.toMatch(/EEXIST|ENOTDIR/);
  });
});

describe('coderag index --help', () => {
  it('says which files are indexed: .gitignore, .coderagignore and CodeRAG\'s own output left out', async () => {
    const result = await runCli(['index', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('.coderagignore');
    expect(result.stdout).toContain("CodeRAG's own output");
  });
});
