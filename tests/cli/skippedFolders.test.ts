/**
 * What the walk leaves out is said: the folders skipped by name, with the files each held, in the index's
 * metadata, the closing line and the `--json` summary.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';
import { closingLine, reportRun } from '../../src/cli/report.js';
import { defaultConfig } from '../../src/config/schema.js';
import { runIndex } from '../../src/pipeline/runIndex.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

describe('folders skipped by name', () => {
  it('are named with their file counts in the closing line and the index', async () => {
    const repo = makeTempRepo({ 'lib/a.js': 'export const a = 1;\n', 'dist/a.js': 'x', 'dist/b.js': 'x', 'build/tool.js': 'x' }, { name: 'repo' });
    const result = await runIndex([repo.root], { config: defaultConfig(), outDir: makeTempDir() });
    const index = result.written[0]!.index;
    expect(index.analysis_metadata.skipped_folders).toEqual({ 'build/': 1, 'dist/': 2 });
    expect(closingLine(index)).toContain('1 file indexed, 0 skipped, 3 files in skipped folders (dist/ 2, build/ 1)');
  });

  it('are in the --json summary of the run', async () => {
    const repo = makeTempRepo({ 'lib/a.js': 'export const a = 1;\n', 'coverage/lcov.js': 'x' }, { name: 'repo' });
    expect((await jsonSummaryOf(repo.root, makeTempDir()))?.skipped_folders).toEqual({ 'coverage/': 1 });
  });
});

describe('the --json summary of a run', () => {
  it("carries the run's reuse figures, as the closing line says them: reused, extracted, removed, written", async () => {
    const repo = makeTempRepo({ 'lib/a.js': 'export const a = 1;\n', 'lib/b.js': 'export const b = 1;\n' }, { name: 'repo' });
    const outDir = makeTempDir();
    expect(await jsonSummaryOf(repo.root, outDir)).toMatchObject({ reused: 0, extracted: 2, removed: 0, written: true });
    expect(await jsonSummaryOf(repo.root, outDir)).toMatchObject({ reused: 2, extracted: 0, removed: 0, written: false });
  });
});

/** Indexes `root` into `outDir` and returns the repository's entry of the `--json` summary `index` prints. */
async function jsonSummaryOf(root: string, outDir: string): Promise<Record<string, unknown> | undefined> {
  const progress = createProgress({ stream: new PassThrough() as unknown as NodeJS.WriteStream, quiet: false, format: 'plain' });
  const result = await runIndex([root], { config: defaultConfig(), outDir, onEvent: progress.sink });
  let out = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    reportRun(result, progress, { quiet: false, json: true }, Date.now());
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return (JSON.parse(out) as { repositories: Array<Record<string, unknown>> }).repositories[0];
}
