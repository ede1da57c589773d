import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import { entryShape, loadPreviousIndex } from '../../../src/pipeline/incremental/incremental.js';
import { sameRepository } from '../../../src/pipeline/incremental/previousIndex.js';
import { makeTempDir } from '../../support/tempRepo.js';

describe('the previous index a run takes entries from', () => {
  it.each([
    ['the same folder', { path: '/a', origin: null }, { path: '/a', origin: 'git@x:r' }, true],
    ['clones of one origin', { path: '/a', origin: 'git@x:r' }, { path: '/b', origin: 'git@x:r' }, true],
    ['clones of two origins', { path: '/a', origin: 'git@x:r' }, { path: '/b', origin: 'git@x:s' }, false],
    ['a clone of the other folder', { path: '/clone', origin: 'file:///a' }, { path: '/a', origin: null }, true],
    ['two folders without origins', { path: '/a', origin: null }, { path: '/b', origin: null }, false],
  ])('counts %s as one repository: %s', (_name, a, b, expected) => {
    expect(sameRepository(a, b)).toBe(expected);
    expect(sameRepository(b, a)).toBe(expected);
  });

  it('is none when no index is there yet, without a warning', async () => {
    const loaded = await loadPreviousIndex(path.join(makeTempDir(), 'demo_index.json'), entryShape(defaultConfig(), null));
    expect(loaded.ok).toBe(false);
    expect(loaded.ok === false && loaded.warning).toBeFalsy();
  });
});
