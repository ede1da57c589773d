import { describe, expect, it } from 'vitest';
import type { FileSummary } from '../../src/index/types.js';
import { FieldIndex, FieldIndexBuilder, type FieldIndexData } from '../../src/search/fieldIndex.js';
import { packPathFor, profileRangesOf, writePack } from '../../src/search/pack.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { staticProfile } from '../support/fileSummary.js';
import { makeTempDir } from '../support/tempRepo.js';

const files: FileSummary[] = [
  staticProfile('src/retry.ts', {
    key_concepts: ['retry', 'backoff'],
    vocabulary: 'retryAfter:3 backoff delay',
    symbols: [{ kind: 'function', name: 'retry', ast_path: 'retry', start_line: 1, end_line: 9, doc: 'Retries with backoff.' }],
    local_imports: ['src/clock.ts'],
    history: ['retry: back off longer'],
  }),
  staticProfile('src/clock.ts', { key_concepts: ['clock'], vocabulary: 'now:2 delay', language: 'TypeScript' }),
  staticProfile('docs/guide.md', { key_concepts: ['retry', 'guide'], vocabulary: 'retry guide', language: 'Markdown', role: 'docs' }),
  staticProfile('test/retry.test.ts', { key_concepts: [], vocabulary: 'expect retry:2', role: 'test', local_imports: ['src/retry.ts'] }),
];

/** The pack a field index writes: every array and term of it, as bytes. */
function packBytes(data: FieldIndexData): Buffer {
  const file = path.join(makeTempDir(), 'demo_index.json');
  const contents = { repoName: 'demo', indexed: null, totalFiles: files.length, relationships: [], fieldIndex: new FieldIndex(data), profileRanges: profileRangesOf(new Float64Array(0)) };
  expect(writePack(file, { size: 0, mtimeMs: 0 }, contents)).toBe(true);
  return readFileSync(packPathFor(file));
}

describe('building a field index', () => {
  it('gives the same index when documents come in another order and their key concepts come last, as an index run gives them', () => {
    const inOrder = new FieldIndexBuilder();
    for (const file of files) inOrder.add({ repo: 'demo', file });

    // Made in the order 2, 0, 3, 1; the concepts of three of them chosen after all four are in.
    const made = [2, 0, 3, 1];
    const streamed = new FieldIndexBuilder();
    const numbers = made.map((n) => (n === 1 ? streamed.add({ repo: 'demo', file: files[n]! }) : streamed.addWithoutConcepts({ repo: 'demo', file: files[n]! })));
    made.forEach((n, d) => {
      if (n !== 1) streamed.addConcepts(numbers[d]!, files[n]!.key_concepts);
    });
    const order = Int32Array.from(files.map((_, n) => made.indexOf(n)));

    expect(packBytes(streamed.finish(order)).equals(packBytes(inOrder.finish()))).toBe(true);
  });

  it('refuses an order that leaves a document out, and a document whose key concepts never came', () => {
    const builder = new FieldIndexBuilder();
    builder.add({ repo: 'demo', file: files[0]! });
    builder.add({ repo: 'demo', file: files[1]! });
    expect(() => builder.finish(Int32Array.from([1, 1]))).toThrow(RangeError);

    const waiting = new FieldIndexBuilder();
    waiting.addWithoutConcepts({ repo: 'demo', file: files[0]! });
    expect(() => waiting.finish()).toThrow(/never got them/);
    expect(() => new FieldIndexBuilder().addConcepts(0, ['retry'])).toThrow(RangeError);
  });
});
