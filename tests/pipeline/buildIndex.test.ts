import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import type { FileRelationship, FileSummary } from '../../src/index/types.js';
import { buildRepoIndex, isoDate, sortRelationships } from '../../src/pipeline/buildIndex.js';
import { compareCodeUnits } from '../../src/shared/text.js';
import { skippedSummary } from '../../src/pipeline/profile.js';

const file = (path: string) => ({ path, absolute: `/repo/${path}`, size: 10, mtimeMs: 0 });
const ok = (path: string): FileSummary => ({ ...skippedSummary(file(path), 'too_large', 'x'), status: 'ok' });
const relationship = (from: string, to: string, type: string): FileRelationship => ({
  repo_file_path: from,
  target_file_path: to,
  relationship_type: type,
  confidence_score: 0.9,
  helpful_aspects: [],
  potential_contributions: [],
  usage_suggestions: '',
});

describe('building an index from its entries', () => {
  it('orders the files by path in code-point order, whatever order they finished in', () => {
    const index = buildRepoIndex({
      repoName: 'demo',
      repoPath: '/repo',
      summaries: [ok('src/b.ts'), ok('src/B.ts'), ok('src/a.ts')],
      relationships: [],
      config: defaultConfig(),
      configFile: null,
      gitCommit: null,
      startedAt: 1_000,
      finishedAt: 3_500,
    });
    expect(index.file_summaries.map((s) => s.file_path)).toEqual(['src/B.ts', 'src/a.ts', 'src/b.ts']);
    expect(index.total_files).toBe(3);
    expect(index.analysis_metadata.duration_ms).toBe(2_500);
    expect(index.analysis_metadata.analysis_date).toBe(isoDate(3_500));
  });

  it('counts the files by status and the skipped ones by the code of their reason', () => {
    const skipped = [skippedSummary(file('big.bin'), 'too_large', 'over the limit'), skippedSummary(file('data.bin'), 'binary', 'binary content')];
    const index = buildRepoIndex({
      repoName: 'demo',
      repoPath: '/repo',
      summaries: [ok('a.ts'), ...skipped],
      relationships: [],
      config: defaultConfig(),
      configFile: null,
      gitCommit: 'abc',
      startedAt: 0,
      finishedAt: 0,
    });
    expect(index.analysis_metadata.files_by_status).toEqual({ ok: 1, skipped: 2, failed: 0 });
    expect(Object.keys(index.analysis_metadata.skipped_by_reason).sort()).toEqual(['binary', 'too_large']);
  });

  it('orders relationships by file, then target, then type', () => {
    const sorted = sortRelationships([relationship('b.ts', 'x', 'uses'), relationship('a.ts', 'y', 'uses'), relationship('a.ts', 'x', 'tests'), relationship('a.ts', 'x', 'extends')]);
    expect(sorted.map((r) => `${r.repo_file_path} ${r.target_file_path} ${r.relationship_type}`)).toEqual(['a.ts x extends', 'a.ts x tests', 'a.ts y uses', 'b.ts x uses']);
  });

  it.each([
    ['a', 'b', -1],
    ['b', 'a', 1],
    ['Z', 'a', -1],
    ['same', 'same', 0],
  ])('compares %s with %s as %i, the same on every locale', (a, b, expected) => {
    expect(compareCodeUnits(a, b)).toBe(expected);
  });
});
