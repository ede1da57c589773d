import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FileSummary, RepoIndex } from '../../src/index/types.js';
import { formatMarkdown } from '../../src/search/format.js';
import { lineTerms, passageScores, reorderHead } from '../../src/search/passages.js';
import { Tokenizer } from '../../src/search/profileTokens.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import { MAX_SOURCE_BYTES, readRepositoryFile, type RepositoryFileReader } from '../../src/search/sourceFiles.js';
import { staticProfile } from '../support/fileSummary.js';

const tokenizer = new Tokenizer();
const weights = new Map([['piecewis', 2], ['modulo', 2], ['substitut', 1]].map(([t, w]) => [tokenizer.text(t as string)[0] as string, w as number]));
const lined = (text: string) => lineTerms(text, weights, tokenizer);
const filler = (n: number): string => Array.from({ length: n }, (_, i) => `value_${i % 7} = compute(other)`).join('\n');

describe('scoring passages', () => {
  it('scores a text whose words stand together above one that spreads them over thousands of lines', () => {
    const together = `${filler(100)}\ndef handle(piecewise, modulo):\n    substitution(piecewise % modulo)\n${filler(100)}`;
    const apart = `piecewise = 1\n${filler(2000)}\nmodulo = 2\n${filler(2000)}\nsubstitution = 3\n`;
    const [a, b] = passageScores([together, apart].map(lined), weights, 40) as [number, number];
    expect(a).toBeGreaterThan(b);
  });

  it('gives 0 to a text without any of the words and nothing to a text not read', () => {
    expect(passageScores([lined(filler(50)), undefined], weights, 40)).toEqual([0, undefined]);
  });
});

describe('a text tokenised line by line', () => {
  /** What lineTerms must give: each line through the tokenizer, as the passages were first scored. */
  const oracle = (text: string) => {
    const perLine = text.split('\n').map((line) => tokenizer.text(line));
    const hits = perLine.flatMap((tokens, line) => tokens.filter((t) => weights.has(t)).map((term) => ({ line, term })));
    return {
      lines: perLine.length,
      before: perLine.reduce((sums, tokens) => [...sums, (sums.at(-1) as number) + tokens.length], [0]),
      hitLines: hits.map((h) => h.line),
      hitTerms: hits.map((h) => h.term),
    };
  };
  const asPlain = (text: string) => {
    const { lines, before, hitLines, hitTerms } = lined(text);
    return { lines, before: [...before], hitLines, hitTerms };
  };

  it('counts each line\'s tokens as the tokenizer does and keeps where the weighted words stand, in order', () => {
    const text = 'def modulo_of(p):\n\n    # piecewise, then modulo\r\n  return piecewise % modulo\n';
    expect(oracle(text).hitLines).toEqual([0, 2, 2, 3, 3]);
    expect(asPlain(text)).toEqual(oracle(text));
  });

  it('splits identifiers where the tokenizer does: after digits, at other letters, at underscores kept inside', () => {
    const text = '2px modulo2piecewise café_modulo __init__ Piecewise_Modulo\n\n\u00e9modulo x9 _ 42';
    expect(asPlain(text)).toEqual(oracle(text));
  });

  it('agrees with the tokenizer on any text', () => {
    const alphabet = fc.constantFrom(...'ab_Z9 \n\t.é(modulo)piecewise'.split(''), 'modulo', 'piecewise', 'Modulo', '\r\n');
    fc.assert(fc.property(fc.array(alphabet, { maxLength: 60 }).map((parts) => parts.join('')), (text) => {
      expect(asPlain(text)).toEqual(oracle(text));
    }), { numRuns: 300 });
  });
});

describe('reordering the head of a ranking', () => {
  const ranked = [1, 2, 3, 4, 5, 6].map((doc, i) => ({ doc, score: 10 - i }));

  it('reorders only the first files, keeps the rest in place, and keeps scores from rising down the list', () => {
    const out = reorderHead(ranked, [0, 0, 9, 0, 0], 1);
    expect(out.map((r) => r.doc)).toEqual([3, 1, 2, 4, 5, 6]);
    for (let i = 1; i < out.length; i++) expect(out[i]?.score).toBeLessThanOrEqual(out[i - 1]?.score as number);
  });

  it('lets a file that could not be read keep its own standing', () => {
    // The first file unread: its own score (the head's best) stands in for its passage score.
    expect(reorderHead(ranked, [undefined, 1, 1, 1, 1], 1)[0]?.doc).toBe(1);
  });

  it('leaves the ranking as it was when no passage holds a word, or the weight is 0', () => {
    expect(reorderHead(ranked, [0, 0, 0, 0, 0], 1)).toEqual(ranked);
    expect(reorderHead(ranked, [0, 0, 9, 0, 0], 0)).toEqual(ranked);
  });
});

/** A hub whose profile holds every word of the report many times, and the small module that handles the case. */
const HUB_TEXT = ['piecewise', 'modulo', 'substitution', 'polynomial', 'error', 'assumptions', 'symbols']
  .map((word) => `def ${word}_helper():\n${filler(400)}\n    return ${word}`)
  .join('\n');
const MODULE_TEXT = `${filler(20)}\ndef substitution_mod(p, q):\n    # piecewise arguments under modulo: a substitution must not reach the polynomial code\n    if p.is_piecewise and q.is_modulo:\n        raise PolynomialError(substitution, assumptions, symbols)\n${filler(20)}`;
const REPORT = [
  'Unexpected PolynomialError on substitution into a piecewise expression under modulo',
  '',
  'With real symbols and these assumptions, substituting a value into an expression that holds a piecewise argument',
  'inside a modulo raises a polynomial error instead of returning the substituted expression. Without the assumptions',
  'the substitution works; clearing the cache between runs changes whether the error appears at all, which suggests',
  'the modulo evaluation reaches the polynomial code only in some orders of evaluation of the symbols involved.',
].join('\n');

function project(readFile?: RepositoryFileReader): SearchCorpus {
  const file = (file_path: string, fields: Partial<FileSummary>): FileSummary => staticProfile(file_path, { file_type: 'Python source', language: 'Python', ...fields });
  const files = [
    file('pkg/core/expr.py', { lines_of_code: 2800, vocabulary: 'piecewise:40 modulo:40 substitution:40 polynomial:40 error:40 assumptions:40 symbols:40 value:30' } as Partial<FileSummary>),
    file('pkg/core/mod.py', {
      lines_of_code: 45,
      symbols: [
        { kind: 'function', name: 'substitution_table', ast_path: 'substitution_table', start_line: 1, end_line: 20 },
        { kind: 'function', name: 'substitution_mod', ast_path: 'substitution_mod', start_line: 21, end_line: 25 },
      ],
      vocabulary: 'piecewise:1 modulo:1 substitution:1 polynomial:1 assumptions:1 symbols:1 substitution_mod:1' } as Partial<FileSummary>),
    file('pkg/core/numbers.py', { lines_of_code: 900, vocabulary: 'value:40 symbols:10 error:5' } as Partial<FileSummary>),
  ];
  const index = { repo_name: 'demo', total_files: files.length, file_summaries: files, relationships: [], analysis_metadata: { repo_path: '/repo' } } as unknown as RepoIndex;
  return new SearchCorpus([{ key: 'demo_index', file: '', index }], readFile ? { readFile } : {});
}

const SOURCES: Record<string, string> = { 'pkg/core/expr.py': HUB_TEXT, 'pkg/core/mod.py': MODULE_TEXT, 'pkg/core/numbers.py': filler(900) };
const first = (corpus: SearchCorpus, query: string): string | undefined => search(corpus, { query, maxResults: 3 }).references[0]?.file_path;

describe('a task ranked with its files read', () => {
  it('puts the module whose lines hold the report\'s words together above the hub that only holds them all', () => {
    expect(first(project(), REPORT)).toBe('pkg/core/expr.py');
    expect(first(project((root, p) => (root === '/repo' ? SOURCES[p] : undefined)), REPORT)).toBe('pkg/core/mod.py');
  });

  it('ranks from the index alone when the files cannot be read, and says so', () => {
    const corpus = project(() => undefined);
    expect(first(corpus, REPORT)).toBe('pkg/core/expr.py');
    const answer = search(corpus, { query: REPORT, maxResults: 3 });
    expect(answer.task?.passages_read).toBe(0);
    expect(formatMarkdown(answer)).toContain('ranked from the index alone');
  });

  it('says how many of the first files were read, and nothing of passages when it may not read files', () => {
    expect(search(project((_root, p) => SOURCES[p]), { query: REPORT, maxResults: 3 }).task?.passages_read).toBe(3);
    expect(search(project(), { query: REPORT, maxResults: 3 }).task).not.toHaveProperty('passages_read');
  });

  it('ranks first, of the module\'s symbols, the one whose own lines hold the report\'s words', () => {
    const symbols = (corpus: SearchCorpus) => search(corpus, { query: REPORT, granularity: 'symbol', maxResults: 5 }).symbols?.map((s) => s.name);
    const read = (root: string, p: string) => (root === '/repo' ? SOURCES[p] : undefined);
    // Their names match the report alike; by names alone the longer one comes first.
    expect(symbols(project())?.[0]).toBe('substitution_table');
    expect(symbols(project(read))?.[0]).toBe('substitution_mod');
  });

  it('reads nothing for a few keywords', () => {
    const read: string[] = [];
    const answer = search(project((_root, p) => (read.push(p), SOURCES[p])), { keywords: ['piecewise', 'modulo'], maxResults: 3 });
    expect(answer.references.length).toBeGreaterThan(0);
    expect(read).toEqual([]);
  });
});

describe('reading a repository file for its passages', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'coderag-sources-'));
  mkdirSync(path.join(root, 'src'));
  writeFileSync(path.join(root, 'src', 'a.py'), 'def a():\n    return 1\n');
  writeFileSync(path.join(root, 'src', 'blob.bin'), Buffer.from([0x70, 0x00, 0x71]));
  writeFileSync(path.join(root, 'src', 'big.js'), 'x'.repeat(MAX_SOURCE_BYTES + 1));
  writeFileSync(path.join(path.dirname(root), `${path.basename(root)}-outside.py`), 'secret = 1\n');

  it('reads a file of the repository as it is now', () => {
    expect(readRepositoryFile(root, 'src/a.py')).toBe('def a():\n    return 1\n');
  });

  it('reads nothing outside the repository, nothing binary, nothing too large, and nothing missing', () => {
    expect(readRepositoryFile(root, `../${path.basename(root)}-outside.py`)).toBeUndefined();
    expect(readRepositoryFile(root, 'src/blob.bin')).toBeUndefined();
    expect(readRepositoryFile(root, 'src/big.js')).toBeUndefined();
    expect(readRepositoryFile(root, 'src/gone.py')).toBeUndefined();
    expect(readRepositoryFile(root, 'src')).toBeUndefined();
  });
});
