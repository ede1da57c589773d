import { appendFileSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { committedFixture, copyFixture } from '../support/reuseRuns.js';
import { makeTempDir } from '../support/tempRepo.js';

describe('coderag index run again into the same folder', () => {
  it('reuses every unchanged entry, and indexes every file again with --full', async () => {
    const repo = path.join(makeTempDir(), 'poly');
    copyFixture(repo);
    const out = makeTempDir();
    expect((await runCli(['index', repo, '--out', out])).code).toBe(0);

    const again = await runCli(['index', repo, '--out', out]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('poly: 26 of 26 entries reused (26 by mtime and size, 0 by git blob, 0 by content hash); 0 to extract');

    const full = await runCli(['index', repo, '--out', out, '--full']);
    expect(full.code).toBe(0);
    expect(full.stderr).not.toContain('entries reused');
    expect(full.stderr).toContain('poly: 26 files indexed');
  }, 60_000);

  it('says how many files left the index since the last run: deleted and moved away', async () => {
    const repo = path.join(makeTempDir(), 'poly');
    copyFixture(repo);
    const out = makeTempDir();
    expect((await runCli(['index', repo, '--out', out])).code).toBe(0);
    rmSync(path.join(repo, 'src/ring_buffer.c'));
    renameSync(path.join(repo, 'src/matrix.cpp'), path.join(repo, 'src/grid.cpp'));

    const again = await runCli(['index', repo, '--out', out]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/poly: 25 files indexed, 0 skipped, [\d.]+s; 25 reused \(24 by mtime and size, 0 by git blob, 1 by content hash\), 0 extracted, 2 removed\n/);
  }, 60_000);

  it('writes nothing when nothing changed, and says so; an edit rewrites the index and its pack', async () => {
    const repo = path.join(makeTempDir(), 'poly');
    copyFixture(repo);
    const out = makeTempDir();
    expect((await runCli(['index', repo, '--out', out])).code).toBe(0);
    const before = snapshot(out);
    const folderDate = statSync(out).mtimeMs;
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining(['poly_index.json', '.poly_index.json.state', 'indexing_summary.json', 'indexing_statistics.json', '.coderag-search/poly_index.pack']),
    );

    const again = await runCli(['index', repo, '--out', out]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/poly: 26 files indexed, 0 skipped, \d+\.\ds; 26 reused \(26 by mtime and size, 0 by git blob, 0 by content hash\), 0 extracted; index unchanged, not written/);
    // Every output keeps its bytes and its modification time: the search pack still answers for the index.
    expect(snapshot(out)).toEqual(before);
    // Not even a temp file came and went.
    expect(statSync(out).mtimeMs).toBe(folderDate);

    appendFileSync(path.join(repo, 'src/cache/lruCache.ts'), '\nexport function evictAll(): void {}\n');
    const edited = await runCli(['index', repo, '--out', out]);
    expect(edited.code).toBe(0);
    expect(edited.stderr).not.toContain('index unchanged');
    const after = snapshot(out);
    expect(after['poly_index.json']).not.toEqual(before['poly_index.json']);
    expect(after['.coderag-search/poly_index.pack']).not.toEqual(before['.coderag-search/poly_index.pack']);
  }, 60_000);

  it('in a git work tree, writes the commit subjects once and nothing more when nothing changed; --no-history leaves them out', async () => {
    const repo = committedFixture('Import the polyglot fixture');
    const out = makeTempDir();
    expect((await runCli(['index', repo, '--out', out])).code).toBe(0);
    expect(readFileSync(path.join(out, 'poly_index.json'), 'utf8')).toContain('"Import the polyglot fixture"');
    const before = snapshot(out);

    const again = await runCli(['index', repo, '--out', out]);
    expect(again.stderr).toContain('index unchanged, not written');
    expect(snapshot(out)).toEqual(before);

    const without = await runCli(['index', repo, '--out', out, '--no-history']);
    expect(without.code).toBe(0);
    expect(without.stderr).not.toContain('index unchanged');
    expect(readFileSync(path.join(out, 'poly_index.json'), 'utf8')).not.toContain('"history"');
  }, 60_000);
});

/** Every file under `dir`, by relative path: its bytes (as a digest-free string) and its modification time. */
function snapshot(dir: string, prefix = ''): Record<string, { mtimeMs: number; bytes: string }> {
  const files: Record<string, { mtimeMs: number; bytes: string }> = {};
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(files, snapshot(dir, relative));
    else files[relative] = { mtimeMs: statSync(path.join(dir, relative)).mtimeMs, bytes: readFileSync(path.join(dir, relative)).toString('base64') };
  }
  return files;
}
