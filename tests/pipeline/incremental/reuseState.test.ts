import { describe, expect, it } from 'vitest';
import { detailText, importsDigest, parseDetail, stateFileFor } from '../../../src/pipeline/incremental/reuseState.js';

describe('the reuse state a run leaves beside its index', () => {
  it('is a hidden file beside the index, so no index loader takes it for a repository', () => {
    expect(stateFileFor('/out/demo_index.json')).toBe('/out/.demo_index.json.state');
  });

  it('keeps a detail whose imports, terms and exports each parse back alone', () => {
    const detail = { imports: [{ specifier: './a', kind: 'import' }] as never, terms: [['retry', 2]] as never, exports: ['retry\tlater'] };
    const bytes = Buffer.from(detailText(detail));
    expect(parseDetail(bytes, 'imports')).toEqual({ imports: detail.imports, terms: null, exports: null });
    expect(parseDetail(bytes, 'terms')).toEqual({ imports: [], terms: detail.terms, exports: null });
    expect(parseDetail(bytes, 'exports')).toEqual({ imports: [], terms: null, exports: detail.exports });
  });

  it('reads a detail written before exports were kept, its exports as null', () => {
    const bytes = Buffer.from(`${JSON.stringify([{ specifier: './a', kind: 'import' }])}\t${JSON.stringify(['retry', 2])}`);
    expect(parseDetail(bytes, 'terms').terms).toEqual(['retry', 2]);
    expect(parseDetail(bytes, 'exports').exports).toBeNull();
  });

  it('tells resolved imports apart by their order and kind, not only by their names', () => {
    expect(importsDigest(['a'], ['src/b.ts'])).toBe(importsDigest(['a'], ['src/b.ts']));
    expect(importsDigest(['a', 'b'], [])).not.toBe(importsDigest(['b', 'a'], []));
    expect(importsDigest(['src/b.ts'], [])).not.toBe(importsDigest([], ['src/b.ts']));
  });
});
