import { describe, expect, it } from 'vitest';
import {
  baselineQueryText,
  bm25Idf,
  bm25QueryTerms,
  bm25Rank,
  buildBm25,
  codeTokens,
  keywordRank,
  keywordTerms,
} from './baselines.js';
import { caseMetrics, firstHitRank, recallAtK, reciprocalRank, summarise } from './metrics.js';
import { isCandidatePath, isSourceFile } from './paths.js';
import { cleanMessage, extractMessage, namedFile, skipReason } from './select.js';

// Toy corpus: 3 documents.
//   a.ts -> parse, config, file                              (len 3)
//   b.ts -> parseconfig, parse, config, reads, config        (len 5)
//   c.ts -> render, html                                     (len 2)    avgdl = 10/3
const corpus = [
  { path: 'a.ts', text: 'parse config file' },
  { path: 'b.ts', text: 'parseConfig reads config' },
  { path: 'c.ts', text: 'render html' },
];

describe('keyword baseline', () => {
  it('tokenises the query into distinct lower-case words >= 3 chars without stopwords', () => {
    expect(keywordTerms('Parse the CONFIG files, in a config dir #12')).toEqual(['parse', 'config', 'files', 'dir']);
  });

  it('counts distinct words as substrings, then total hits, then path', () => {
    const docs = corpus.map((d) => ({ path: d.path, text: d.text.toLowerCase() }));
    const hits = keywordRank(docs, keywordTerms('Parse the config files'));
    // a: parse x1, config x1 -> (2, 2); b: parse x1 (inside parseconfig), config x2 -> (2, 3); c: no hit.
    expect(hits).toEqual([
      { path: 'b.ts', distinct: 2, total: 3 },
      { path: 'a.ts', distinct: 2, total: 2 },
    ]);
    // Equal counts fall back to path order.
    expect(keywordRank([{ path: 'z', text: 'html' }, { path: 'y', text: 'html' }], ['html']).map((h) => h.path)).toEqual(['y', 'z']);
  });
});

describe('bm25 baseline', () => {
  it('keeps whole tokens and adds camelCase / snake_case parts', () => {
    expect(codeTokens('parseConfig HTTPServer show_default x')).toEqual([
      'parseconfig', 'parse', 'config', 'httpserver', 'http', 'server', 'show_default', 'show', 'default',
    ]);
    expect(bm25QueryTerms('the config and the Config')).toEqual(['config']);
  });

  it('builds document statistics', () => {
    const idx = buildBm25(corpus);
    expect(idx.n).toBe(3);
    expect(idx.avgdl).toBeCloseTo(10 / 3, 12);
    expect(idx.df.get('config')).toBe(2);
    expect(idx.df.get('parse')).toBe(2);
    expect(idx.docs[1]?.tf.get('config')).toBe(2);
    expect(idx.docs[1]?.len).toBe(5);
  });

  it('pins the BM25 arithmetic (k1=1.2, b=0.75)', () => {
    const idx = buildBm25(corpus);
    // idf(config) = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln 1.6
    expect(bm25Idf(3, 2)).toBeCloseTo(0.4700036292457356, 12);
    // a: tf 1, dl/avgdl 0.9 -> ln1.6 * 2.2 / (1 + 1.2 * (0.25 + 0.675)) = 0.49005...
    // b: tf 2, dl/avgdl 1.5 -> ln1.6 * 4.4 / (2 + 1.2 * (0.25 + 1.125)) = 0.56658...
    const r = bm25Rank(idx, ['config']);
    expect(r.map((x) => x.path)).toEqual(['b.ts', 'a.ts']);
    expect(r[0]?.score).toBeCloseTo(0.5665797174469142, 12);
    expect(r[1]?.score).toBeCloseTo(0.49005117741261534, 12);

    // html: df 1 -> idf ln(1 + 2.5/1.5); c: tf 1, dl/avgdl 0.6 -> 1.17273...
    // parse: a 0.49005 (as config above), b tf 1 dl/avgdl 1.5 -> ln1.6 * 2.2 / 2.65
    const r2 = bm25Rank(idx, bm25QueryTerms('HTML parse'));
    expect(r2.map((x) => x.path)).toEqual(['c.ts', 'a.ts', 'b.ts']);
    expect(r2[0]?.score).toBeCloseTo(1.1727306286009775, 12);
    expect(r2[2]?.score).toBeCloseTo((Math.log(1.6) * 2.2) / 2.65, 12);
  });

  it('uses keywords plus the target stem in target mode', () => {
    expect(baselineQueryText({ query: '', target: 'lib/helpers/callbackify.js', keywords: ['dns', 'lookup'] })).toBe(
      'dns lookup callbackify',
    );
    expect(baselineQueryText({ query: 'plain query', keywords: [] })).toBe('plain query');
  });
});

describe('metrics', () => {
  const ranked = ['x', 'a', 'y', 'b', 'a'];
  const answers = ['a', 'b'];
  it('recall@k is the fraction of answers in the top k', () => {
    expect(recallAtK(ranked, answers, 1)).toBe(0);
    expect(recallAtK(ranked, answers, 2)).toBe(0.5);
    expect(recallAtK(ranked, answers, 5)).toBe(1);
    expect(recallAtK(ranked, answers, 10)).toBe(1);
  });
  it('reciprocal rank uses the first answer', () => {
    expect(firstHitRank(ranked, answers)).toBe(2);
    expect(reciprocalRank(ranked, answers)).toBe(0.5);
    expect(reciprocalRank(['x'], answers)).toBe(0);
    expect(firstHitRank(['x'], answers)).toBeUndefined();
  });
  it('duplicates do not take a slot', () => {
    expect(recallAtK(['x', 'x', 'a'], ['a'], 2)).toBe(1);
  });
  it('summarises means over cases', () => {
    const s = summarise([caseMetrics(ranked, answers), caseMetrics(['b'], answers)]);
    expect(s).toEqual({ cases: 2, r1: 0.25, r5: 0.75, r10: 0.75, mrr: 0.75 });
    expect(summarise([])).toEqual({ cases: 0, r1: 0, r5: 0, r10: 0, mrr: 0 });
  });
});

describe('case selection', () => {
  it('takes the subject and first prose paragraph', () => {
    const raw = 'feat: add x (#12)\n\n## Summary\n\n- [x] I have read\nthe guide\n\nReal text here\nCloses #12\n\nMore\n\nCo-authored-by: A <a@b>';
    expect(extractMessage(raw)).toBe('feat: add x (#12)\n\nReal text here');
    expect(cleanMessage('fix(types): add missing types (#6590)')).toBe('types add missing types');
  });
  it('detects a message naming a changed file by basename or stem, whole word', () => {
    expect(namedFile('Update help.go docs', ['help.go'])).toBe('help.go');
    expect(namedFile('fix(fetch): abort', ['lib/adapters/fetch.js'])).toBe('lib/adapters/fetch.js');
    expect(namedFile('improve helpers', ['help.go'])).toBeUndefined();
  });
  it('applies the skip rules', () => {
    const ok = { changedSource: ['src/a.py'], addedSource: [] };
    expect(skipReason({ message: 'Support incremental output in the pager', ...ok })).toBeUndefined();
    expect(skipReason({ message: 'Revert "x y z w"', ...ok })).toBe('revert');
    expect(skipReason({ message: 'chore(deps): bump foo from 1 to 2', ...ok })).toBe('dependency');
    expect(skipReason({ message: 'fix a typo in the help output', ...ok })).toBe('typo');
    expect(skipReason({ message: '3.1.2', ...ok })).toBe('version');
    expect(skipReason({ message: 'validate color, fix explicit black color argument', ...ok })).toBeUndefined();
    expect(skipReason({ message: 'fix broken pager', ...ok })).toBe('short-message');
    expect(skipReason({ message: 'fix the broken pager now', changedSource: [], addedSource: [] })).toBe('no-source');
  });
  it('classifies source and candidate paths', () => {
    expect(isSourceFile('src/click/core.py')).toBe(true);
    expect(isSourceFile('tests/test_core.py')).toBe(false);
    expect(isSourceFile('command_test.go')).toBe(false);
    expect(isSourceFile('__tests__/a.test.js')).toBe(false);
    expect(isSourceFile('docs/conf.py')).toBe(false);
    expect(isSourceFile('index.d.ts')).toBe(true);
    expect(isSourceFile('README.md')).toBe(false);
    expect(isCandidatePath('tests/test_core.py')).toBe(true);
    expect(isCandidatePath('node_modules/x/index.js')).toBe(false);
    expect(isCandidatePath('dist/axios.js')).toBe(false);
    expect(isCandidatePath('dist/axios.js', true)).toBe(true);
  });
});

describe('bm25 term counts across trees', () => {
  it('counts a file version once and gives the same statistics when it appears again in another tree', () => {
    const first = buildBm25(corpus);
    const again = buildBm25([...corpus, { path: 'copy/a.ts', text: 'parse config file' }]);
    expect(again.docs[3]?.tf).toBe(again.docs[0]?.tf);
    expect(again.docs[0]?.tf).toEqual(first.docs[0]?.tf);
    expect(again.df.get('parse')).toBe(3);
    expect(bm25Rank(buildBm25(corpus), ['config']).map((h) => h.path)).toEqual(bm25Rank(first, ['config']).map((h) => h.path));
  });
});
