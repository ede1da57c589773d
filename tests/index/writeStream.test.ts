import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toJson } from '../../src/index/serialize.js';
import { createHash } from 'node:crypto';
import { RawArray, writeJsonStreamAtomic } from '../../src/index/writeStream.js';
import { DIGEST } from '../../src/shared/atomicFile.js';
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
  ])('writes the bytes toJson writes (indent %i, ensure_ascii %s) and their digest', async (indent, ensureAscii) => {
    const file = path.join(makeTempDir(), 'out', 'repo_index.json');
    const style = { indent, ensureAscii };
    const { digest } = await writeJsonStreamAtomic(file, index, style);
    const expected = toJson(index, style);
    expect(readFileSync(file, 'utf8')).toBe(expected);
    expect(digest).toBe(createHash(DIGEST).update(expected).digest('hex'));
  });

  it('writes an object with no keys as {}', async () => {
    const file = path.join(makeTempDir(), 'empty.json');
    await writeJsonStreamAtomic(file, {}, { indent: 2, ensureAscii: false });
    expect(readFileSync(file, 'utf8')).toBe('{}');
  });
});

describe('writing an index whose profiles are given as bytes', () => {
  it('writes the bytes toJson writes for the same profiles, and says where each landed', async () => {
    const file = path.join(makeTempDir(), 'raw_index.json');
    const style = { indent: 2, ensureAscii: false };
    const elements = index.file_summaries.map((summary) => Buffer.from(JSON.stringify(summary, null, 2).replaceAll('\n', '\n    ')));
    const placed: Array<[number, number]> = [];
    await writeJsonStreamAtomic(file, { ...index, file_summaries: new RawArray(elements.length, (i) => [elements[i] as Buffer], (_i, start, end) => placed.push([start, end])) }, style);
    const written = readFileSync(file);
    expect(written.toString('utf8')).toBe(toJson(index, style));
    expect(placed.map(([start, end]) => JSON.parse(written.subarray(start, end).toString('utf8')))).toEqual(JSON.parse(toJson(index.file_summaries, style)));
  });

  it('writes an empty one as []', async () => {
    const file = path.join(makeTempDir(), 'empty_index.json');
    await writeJsonStreamAtomic(file, { file_summaries: new RawArray(0, () => []) }, { indent: 2, ensureAscii: false });
    expect(readFileSync(file, 'utf8')).toBe(toJson({ file_summaries: [] }, { indent: 2, ensureAscii: false }));
  });
});
