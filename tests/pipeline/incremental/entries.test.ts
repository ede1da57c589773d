import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import { MemoryEntries } from '../../../src/pipeline/incremental/incremental.js';
import { skippedSummary } from '../../../src/pipeline/profile.js';

const file = (p: string) => ({ path: p, absolute: `/repo/${p}`, size: 1, mtimeMs: 0 });

describe('entries kept in memory, for an index returned rather than written', () => {
  it('build the index in path order from the entries as they finished', async () => {
    const entries = new MemoryEntries();
    entries.takeFrom(null);
    for (const p of ['src/z.ts', 'src/a.ts']) await entries.addFresh({ summary: skippedSummary(file(p), 'binary', 'binary'), relationships: [], record: null });
    const index = entries.build({ repoName: 'demo', repoPath: '/repo', config: defaultConfig(), configFile: null, gitCommit: null, startedAt: 0 }, () => 10);
    expect(index.file_summaries.map((s) => s.file_path)).toEqual(['src/a.ts', 'src/z.ts']);
    expect(index.analysis_metadata.duration_ms).toBe(10);
  });

  it('take no previous entries: an index in memory is always built whole', async () => {
    const entries = new MemoryEntries();
    await expect(entries.addReused()).rejects.toThrow(/reuses no previous entries/);
  });
});
