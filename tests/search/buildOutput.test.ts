import { describe, expect, it } from 'vitest';
import type { FileSummary } from '../../src/index/types.js';
import { isBuildOutput, moduleKey } from '../../src/search/buildOutput.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import { corpusOf, staticProfile } from '../support/fileSummary.js';

const file = (file_path: string, fields: Partial<FileSummary>): FileSummary =>
  staticProfile(file_path, { file_type: 'JavaScript source', language: 'JavaScript', ...fields });

/** Words of the other modules a bundle concatenates. */
const FILLER = Array.from({ length: 10 }, (_, i) => `helper${i}`).join(' ');

function packageCorpus(folder: string): SearchCorpus {
  const files = [
    // Other packages' modules: the request's everyday words are everywhere.
    ...Array.from({ length: 12 }, (_, i) => file(`${folder}/other${i}.js`, { lines_of_code: 200, vocabulary: `fast:2 written javascript:3 stream${i}:5 buffer:4` })),
    // The module that is about the request: its rare words, more than once.
    file(`${folder}/matcher.js`, { lines_of_code: 120, vocabulary: 'glob:2 matcher pattern:4' }),
    // A bundle: 6,000 lines that mention every word of the request once, in passing.
    file(`${folder}/bundle.js`, { lines_of_code: 6000, vocabulary: `${FILLER} glob matcher fast accurate written javascript` }),
  ];
  return corpusOf(files);
}

const first = (corpus: SearchCorpus, query: string): string | undefined => search(corpus, { query, maxResults: 5 }).references[0]?.file_path;

describe('the module a file is one form of', () => {
  it('is its path without build folders and src/, its name cut at the first dot', () => {
    expect(moduleKey('glob/dist/esm/walker.js')).toBe('glob/walker');
    expect(moduleKey('glob/dist/commonjs/walker.js')).toBe('glob/walker');
    expect(moduleKey('glob/src/walker.ts')).toBe('glob/walker');
    expect(moduleKey('js-yaml/dist/js-yaml.cjs.js')).toBe(moduleKey('js-yaml/dist/js-yaml.d.ts'));
    expect(moduleKey('lib/parse.js')).not.toBe(moduleKey('lib/format.js'));
    expect(moduleKey('a/index.js')).not.toBe(moduleKey('b/index.js'));
    expect(moduleKey('.eslintrc.js')).not.toBe(moduleKey('.prettierrc.js'));
  });
});

describe('build output in the bm25f ranker', () => {
  it('knows build folders by name, not hand-written source or a locale folder', () => {
    for (const p of ['dist/index.js', 'dist/cjs/index.js', 'lib/esm/parse.mjs', 'build/lib/index.js', 'umd/react-is.js', 'bundles/core.umd.js']) {
      expect(isBuildOutput(p), p).toBe(true);
    }
    for (const p of ['src/index.ts', 'lib/parse.js', 'index.js', 'locales/es/messages.js', 'distance/index.js', 'dist.js']) {
      expect(isBuildOutput(p), p).toBe(false);
    }
  });

  it('ranks a build on its text alone: a bundle that mentions every word once does not beat the module that is about the request', () => {
    const query = 'Blazing fast and accurate glob matcher written in JavaScript';
    expect(first(packageCorpus('dist'), query)).toBe('dist/matcher.js');
  });

  it('keeps coverage and the size prior for hand-written source, where the larger file that covers the request wins', () => {
    const query = 'Blazing fast and accurate glob matcher written in JavaScript';
    expect(first(packageCorpus('src'), query)).toBe('src/bundle.js');
  });
});
