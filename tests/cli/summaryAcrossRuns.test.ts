/** `indexing_summary.json` names every repository indexed into its folder, by this run or an earlier one. */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { runIndex } from '../../src/pipeline/runIndex.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

const summaryOf = (outDir: string) => JSON.parse(readFileSync(path.join(outDir, 'indexing_summary.json'), 'utf8')) as { output_files: Record<string, string>; total_repositories_processed: number; total_repositories_in_folder: number };

describe('indexing_summary.json', () => {
  it('lists every repository in the folder when two runs index one each, and forgets one whose index is gone', async () => {
    const outDir = makeTempDir();
    const first = makeTempRepo({ 'a.ts': 'export const a = 1;\n' }, { name: 'alpha' });
    const second = makeTempRepo({ 'b.ts': 'export const b = 1;\n' }, { name: 'beta' });
    const one = await runIndex([first.root], { config: defaultConfig(), outDir });
    await runIndex([second.root], { config: defaultConfig(), outDir });
    const summary = summaryOf(outDir);
    expect(Object.keys(summary.output_files)).toEqual(['alpha', 'beta']);
    expect(summary.total_repositories_processed).toBe(1);
    expect(summary.total_repositories_in_folder).toBe(2);

    rmSync(one.written[0]!.outputPath);
    await runIndex([second.root], { config: defaultConfig(), outDir });
    expect(Object.keys(summaryOf(outDir).output_files)).toEqual(['beta']);
  });
});
