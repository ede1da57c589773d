import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { copyFixture } from '../support/reuseRuns.js';
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
});
