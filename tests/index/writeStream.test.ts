import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toJson } from '../../src/index/serialize.js';
import { sha256 } from '../../src/pipeline/reuseState.js';
import { writeJsonStreamAtomic } from '../../src/index/writeStream.js';
import { makeTempDir } from '../support/tempRepo.js';

const index = {
  repo_name: 'naïve-repo',
  total_files: 2,
  file_summaries: [
    { file_path: 'a.ts', key_concepts: ['café', '日本'], symbols: [], nested: { deep: [1, { x: null }] } },
    { file_path: 'b.py', key_concepts: [], summary: 'emoji 😀 and "quotes"\nnewline', skipped: undefined },
  ],
  relationships: [],
  analysis_metadata: { schema_version: 1, token_usage: { prompt_tokens: 0 }, empty: {}, git_commit: null },
  left_out: undefined,
};

describe('writing an index piece by piece', () => {
  it.each([
    [2, false],
    [2, true],
    [0, false],
    [0, true],
    [4, true],
  ])('writes the bytes toJson writes (indent %i, ensure_ascii %s) and their SHA-256', async (indent, ensureAscii) => {
    const file = path.join(makeTempDir(), 'out', 'repo_index.json');
    const style = { indent, ensureAscii };
    const { sha256: digest } = await writeJsonStreamAtomic(file, index, style);
    const expected = toJson(index, style);
    expect(readFileSync(file, 'utf8')).toBe(expected);
    expect(digest).toBe(sha256(expected));
  });

  it('writes an object with no keys as {}', async () => {
    const file = path.join(makeTempDir(), 'empty.json');
    await writeJsonStreamAtomic(file, {}, { indent: 2, ensureAscii: false });
    expect(readFileSync(file, 'utf8')).toBe('{}');
  });
});
