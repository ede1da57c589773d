import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadIndexes, RecentProfiles } from '../../src/search/load.js';
import { staticProfile } from '../support/fileSummary.js';
import { makeTempDir } from '../support/tempRepo.js';

const goodIndex = (name: string) => ({
  repo_name: name,
  total_files: 1,
  file_summaries: [{ file_path: 'a.ts', file_type: 'TypeScript source', main_functions: ['a'], key_concepts: [], dependencies: [], summary: 's', lines_of_code: 1, last_modified: '' }],
  relationships: [],
});

describe('loading an indexes folder', () => {
  it('loads good indexes beside a corrupt one and names the corrupt one', async () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'alpha_index.json'), JSON.stringify(goodIndex('alpha')));
    writeFileSync(path.join(dir, 'beta_index.json'), JSON.stringify(goodIndex('beta')));
    writeFileSync(path.join(dir, 'broken_index.json'), '{"repo_name": "broken", "file_summ');
    writeFileSync(path.join(dir, 'list.json'), '[1, 2]');
    const { indexes, warnings } = await loadIndexes(dir);
    expect(indexes.map((i) => i.key)).toEqual(['alpha_index', 'beta_index']);
    expect(warnings).toEqual(['skipped broken_index.json: not valid JSON', 'skipped list.json: not a repository index (not a JSON object)']);
  });

  it('does not take run reports for repositories', async () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'alpha_index.json'), JSON.stringify(goodIndex('alpha')));
    writeFileSync(path.join(dir, 'indexing_summary.json'), JSON.stringify({ indexing_completion_time: 'x', output_files: {} }));
    writeFileSync(path.join(dir, 'indexing_statistics.json'), JSON.stringify({ report_generation_time: 'x' }));
    const { indexes, warnings } = await loadIndexes(dir);
    expect(indexes.map((i) => i.index.repo_name)).toEqual(['alpha']);
    expect(warnings).toEqual([]);
  });

  it('fills fields a DeepCode-written index lacks', async () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'old_index.json'), JSON.stringify({ repo_name: 'old', file_summaries: [{ file_path: 'x.py' }] }));
    const [loaded] = (await loadIndexes(dir)).indexes;
    expect(loaded?.index.file_summaries[0]).toMatchObject({ file_path: 'x.py', main_functions: [], symbols: [], status: 'ok', summary: '' });
    expect(loaded?.index.relationships).toEqual([]);
  });

  it('fails clearly on a missing folder', async () => {
    await expect(loadIndexes('/nonexistent/coderag/indexes')).rejects.toMatchObject({ message: 'indexes folder not found: /nonexistent/coderag/indexes', exitCode: 2 });
  });
});

describe('the profiles a packed index keeps after reading them', () => {
  it('drop the least recently used once their bytes pass the bound, and never one larger than it', () => {
    const recent = new RecentProfiles(100);
    const [a, b, c, huge] = ['a.ts', 'b.ts', 'c.ts', 'huge.ts'].map((p) => staticProfile(p));
    recent.add(0, a!, 40);
    recent.add(1, b!, 40);
    expect(recent.get(0)).toBe(a);
    recent.add(2, c!, 40);
    expect(recent.get(1)).toBeUndefined();
    expect(recent.get(0)).toBe(a);
    expect(recent.get(2)).toBe(c);
    expect(recent.add(3, huge!, 101)).toBe(huge);
    expect(recent.get(3)).toBeUndefined();
  });
});
