import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import type { RepoIndex } from '../../src/index/types.js';
import { buildRepoIndex } from '../../src/pipeline/buildIndex.js';
import { skippedSummary } from '../../src/pipeline/profile.js';
import { describeIndex, indexFileName, indexPathFor, writeRepoIndex, writeRunReports } from '../../src/pipeline/writeIndex.js';
import { makeTempDir } from '../support/tempRepo.js';

const file = (p: string) => ({ path: p, absolute: `/repo/${p}`, size: 10, mtimeMs: 0 });

function demoIndex(): RepoIndex {
  const summaries = [
    { ...skippedSummary(file('src/a.ts'), 'too_large', 'x'), status: 'ok' as const, file_type: 'TypeScript source', lines_of_code: 12 },
    { ...skippedSummary(file('src/b.ts'), 'too_large', 'x'), status: 'failed' as const, file_type: 'TypeScript source', reason: 'llm_error: 500' },
    skippedSummary(file('README.md'), 'unreadable', 'permission denied'),
  ];
  return buildRepoIndex({ repoName: 'demo', repoPath: '/repo', summaries, relationships: [], config: defaultConfig(), configFile: null, gitCommit: null, startedAt: 0, finishedAt: 0 });
}

describe('writing an index and the run reports', () => {
  it('names an index after its repository, with what a file name cannot hold replaced', () => {
    const config = defaultConfig();
    expect(indexFileName(config, 'my repo/x')).toBe(config.output.index_filename_pattern.replaceAll('{repo_name}', 'my_repo_x'));
  });

  it('names a shard\'s partial index apart from the whole index', () => {
    const config = defaultConfig();
    const whole = indexPathFor('/out', config, 'demo', null);
    const shard = indexPathFor('/out', config, 'demo', { index: 2, count: 3 });
    expect(path.dirname(shard)).toBe('/out');
    expect(shard).not.toBe(whole);
    expect(shard).toMatch(/shard-2-of-3/);
  });

  it('describes an index by its figures: file types, profiled files and lines, and the files that failed', () => {
    const described = describeIndex(demoIndex());
    expect(described.file_type_counts['TypeScript source']).toBe(2);
    expect(described.analyzed_files).toBe(1);
    expect(described.lines_of_code).toBe(12);
    expect(described.failed_files.map((f) => f.file_path)).toEqual(['README.md', 'src/b.ts']);
    expect('file_summaries' in described).toBe(false);
  });

  it('writes an index that reads back as the one given, and the reports the configuration asks for', async () => {
    const out = makeTempDir();
    const config = defaultConfig();
    const index = demoIndex();
    const written = await writeRepoIndex(index, out, config);
    expect(JSON.parse(readFileSync(written, 'utf8'))).toEqual(JSON.parse(JSON.stringify(index)));
    const reports = await writeRunReports([{ index: describeIndex(index), outputPath: written }], out, config, null);
    expect(reports.map((r) => path.basename(r))).toEqual([config.output.summary_filename, config.output.stats_filename]);
    config.output.generate_summary = false;
    config.output.generate_statistics = false;
    const none = makeTempDir();
    expect(await writeRunReports([], none, config, null)).toEqual([]);
    expect(existsSync(path.join(none, config.output.summary_filename))).toBe(false);
  });
});
