import { describe, expect, it } from 'vitest';
import type { CodeSymbol, FileSummary } from '../../src/index/types.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import { TASK_PARAMS, fuseRankings, rarestTerms, resolveAnchors } from '../../src/search/taskRank.js';
import type { Anchor, SearchRequest } from '../../src/search/types.js';
import { corpusOf, staticProfile } from '../support/fileSummary.js';

const symbol = (name: string, kind: CodeSymbol['kind'] = 'function', start_line = 1, ast_path = name, doc?: string): CodeSymbol => ({
  kind, name, ast_path, start_line, end_line: start_line + 9, ...(doc ? { doc } : {}),
});

const file = (file_path: string, fields: Partial<FileSummary> = {}): FileSummary =>
  staticProfile(file_path, { file_type: 'Python source', language: 'Python', lines_of_code: 60, ...fields });

const paths = (corpus: SearchCorpus, request: SearchRequest): string[] => search(corpus, { maxResults: 10, ...request }).references.map((r) => r.file_path);

/** A hub holding every word of the reports below many times, a small module, its test and a doc page. */
const HUB_WORDS = 'repr exception object raise format error message printing pretty output value string broken bare fails';
function project(): SearchCorpus {
  return corpusOf([
    file('src/pkg/main.py', {
      lines_of_code: 3000,
      symbols: [symbol('Session', 'class'), symbol('run', 'method', 50, 'Session-run'), symbol('format_output', 'function', 300)],
      key_concepts: ['session', 'output', 'format'],
      vocabulary: HUB_WORDS.split(' ').map((w) => `${w}:40`).join(' '),
    } as Partial<FileSummary>),
    file('src/pkg/_io/saferepr.py', {
      lines_of_code: 80,
      symbols: [symbol('saferepr'), symbol('_format_repr_exception', 'function', 20), symbol('SafeRepr', 'class', 40), symbol('repr_instance', 'method', 45, 'SafeRepr-repr_instance')],
      vocabulary: 'repr:6 exception:3 format:2 object:1',
    } as Partial<FileSummary>),
    file('src/pkg/builders/manpage.py', { lines_of_code: 90, symbols: [symbol('ManualPageBuilder', 'class')], vocabulary: 'manpage:3 builder:2 section:2' } as Partial<FileSummary>),
    file('src/pkg/builders/html.py', { lines_of_code: 400, symbols: [symbol('HtmlBuilder', 'class')], vocabulary: 'page:30 output:20 build:12 section:10 settings:6 configuration:5 wrong:2' } as Partial<FileSummary>),
    file('src/pkg/lint/expand_modules.py', { lines_of_code: 70, symbols: [symbol('expand_modules'), symbol('_is_ignored_file', 'function', 30)], vocabulary: 'ignore_paths:3 modules:4 expand:2' } as Partial<FileSummary>),
    file('src/pkg/walker.py', { lines_of_code: 500, symbols: [symbol('walk_folder')], vocabulary: 'ignore:30 paths:30 folder:25 recursive:12 files:20 skip:10 patterns:8 run:10 setting:4 vendored:1' } as Partial<FileSummary>),
    file('tests/test_saferepr.py', {
      role: 'test', lines_of_code: 200, symbols: [symbol('test_repr_exception'), symbol('test_broken_repr', 'function', 30)],
      vocabulary: 'repr:30 exception:20 broken:12 raise:10 saferepr:10 message:5', local_imports: ['src/pkg/_io/saferepr.py'],
    } as Partial<FileSummary>),
    file('docs/printing.rst', { role: 'docs', language: 'Text', file_type: 'reStructuredText', lines_of_code: 300, vocabulary: 'repr:20 printing:15 pretty:12 exception:8 output:9' } as Partial<FileSummary>),
  ]);
}

const REPORT = [
  'Pretty printing fails with an exception when an object has a broken __repr__',
  '',
  'When the repr of an object raises, the whole output is lost. I would expect the error message to be printed instead of',
  'crashing; the bare exception escapes and the value is never shown. This happens with any object whose repr raises an',
  'exception, and the string that should have been printed as a fallback never reaches the output at all.',
].join('\n');

const TRACE = [
  'Traceback (most recent call last):',
  '  File "/usr/lib/python3.11/site-packages/pkg/_io/saferepr.py", line 23, in _format_repr_exception',
  '    exc_info = _try_repr_or_str(exc)',
  'RuntimeError: No active exception to reraise',
].join('\n');

/** A report naming an option (`--ignore-paths`) whose words a larger walker module holds many times. */
const OPTION_REPORT = [
  'Recursive runs ignore the setting that should skip folders',
  '',
  'With `--ignore-paths` set to a vendored folder, a recursive run still reports every file below it. The configured',
  'patterns work when each file is given on the command line, and fail as soon as the tool expands the folder by itself.',
  'I expected the run to skip those files and print nothing for them, the way it does when they are listed one by one;',
  'instead the output is as long as if the setting had never been given at all.',
].join('\n');

/** The task ranking without the plain keyword ranking fused in. */
const TASK_ALONE = { ...TASK_PARAMS, fusion: { ...TASK_PARAMS.fusion, plain: 0 } };

describe('ranking a task text', () => {
  it('keeps the small module a stack frame names at the top, above the hub holding every word', () => {
    expect(paths(project(), { query: `${REPORT}\n\n${TRACE}` })[0]).toBe('src/pkg/_io/saferepr.py');
  });

  it('puts source above the tests and docs that repeat the report\'s words', () => {
    const ranked = paths(project(), { query: REPORT });
    expect(ranked.indexOf('src/pkg/_io/saferepr.py')).toBeLessThan(ranked.indexOf('tests/test_saferepr.py'));
    expect(ranked.indexOf('src/pkg/_io/saferepr.py')).toBeLessThan(ranked.indexOf('docs/printing.rst'));
  });

  it('finds a file by an option the text names, through the identifier it becomes in code (in the task ranking alone)', () => {
    expect(paths(project(), { query: OPTION_REPORT, taskParams: TASK_ALONE })[0]).toBe('src/pkg/lint/expand_modules.py');
  });

  it('joins words the code runs together, so "man page" reaches manpage.py', () => {
    const text = [
      'Wrong section numbers in the generated man page',
      '',
      'When I build the man page of my project, every section number in the output is 1, whatever the configuration',
      'says. The value from the settings is never used and the printed page has the wrong section. Building the other',
      'formats works and their output is fine; only the man page output is broken, so installing it puts it in the',
      'wrong place and the manual cannot be found by the system.',
    ].join('\n');
    // Without the compound, nothing of the text is a token of manpage.py: it would not be in the answer at all.
    expect(paths(project(), { query: text }).slice(0, 2)).toContain('src/pkg/builders/manpage.py');
  });

  it('reports what it read the text as', () => {
    const answer = search(project(), { query: `${REPORT}\n\n${TRACE}` });
    expect(answer.task?.anchors).toContainEqual({ kind: 'path', text: 'pkg/_io/saferepr.py', source: 'frame', lines: [23] });
    expect(answer.task?.truncated).toBe(false);
  });

  it('lists a reference\'s symbols best first for a task, the one a frame names first', () => {
    const answer = search(project(), { query: `${REPORT}\n\n${TRACE}` });
    const saferepr = answer.references.find((r) => r.file_path === 'src/pkg/_io/saferepr.py');
    expect(saferepr?.symbols[0]?.name).toBe('_format_repr_exception');
  });

  it('leaves a short query to the keyword ranker: the same answer as before', () => {
    const corpus = project();
    const answer = search(corpus, { query: 'saferepr exception' });
    expect(answer.task).toBeUndefined();
    expect(answer.references[0]?.file_path).toBe('src/pkg/_io/saferepr.py');
  });

  it('answers a text of only punctuation, or only a traceback of files it does not hold, without failing', () => {
    const punctuation = search(project(), { query: '!!! ... ??? '.repeat(30_000) }).notice ?? '';
    expect(punctuation).toMatch(/only stopwords, numbers, single letters or punctuation/);
    expect(punctuation.length).toBeLessThan(400);
    const foreign = ['Traceback (most recent call last):', '  File "/usr/lib/python3.11/threading.py", line 980, in _bootstrap', 'KeyError: 3'].join('\n');
    const answer = search(project(), { query: foreign });
    expect(answer.task?.anchors.map((a) => a.text)).toContain('usr/lib/python3.11/threading.py');
    expect(Array.isArray(answer.references)).toBe(true);
  });
});

describe('resolving a task text\'s anchors', () => {
  const modules = () =>
    corpusOf([
      file('src/app/db/models/__init__.py', { symbols: [symbol('Model', 'class')] }),
      file('src/app/db/models/query.py', { symbols: [symbol('QuerySet', 'class')] }),
      file('src/app/forms/models.py', { symbols: [symbol('ModelForm', 'class')] }),
      file('src/app/db/utils.py'),
    ]);
  const resolved = (corpus: SearchCorpus, anchor: Anchor): string[] => [...resolveAnchors(corpus, [anchor]).keys()].map((d) => corpus.path(d));

  it('reads a dotted name as a module path, a package\'s __init__.py answering for its folder', () => {
    const corpus = modules();
    expect(resolved(corpus, { kind: 'symbol', text: 'app.db.models.Widget', source: 'dotted' })).toEqual(['src/app/db/models/__init__.py']);
    expect(resolved(corpus, { kind: 'symbol', text: 'db.models.query.Prefetch', source: 'dotted' })).toEqual(['src/app/db/models/query.py']);
  });

  it('finds a frame\'s file by the longest tail of its path that a file has', () => {
    const corpus = modules();
    expect(resolved(corpus, { kind: 'path', text: 'site-packages/app/forms/models.py', source: 'frame' })).toEqual(['src/app/forms/models.py']);
    expect(resolved(corpus, { kind: 'path', text: 'db/utils.py', source: 'frame' })).toEqual(['src/app/db/utils.py']);
  });
});

describe('symbol-level answers', () => {
  it('ranks the symbols of the best files, the named one first, with file, kind and lines', () => {
    const answer = search(project(), { query: `${REPORT}\n\n${TRACE}`, granularity: 'symbol', maxResults: 5 });
    expect(answer.symbols?.[0]).toMatchObject({ file_path: 'src/pkg/_io/saferepr.py', name: '_format_repr_exception', kind: 'function', start_line: 20, end_line: 29, score: 1 });
    expect(answer.symbols).toHaveLength(5);
    const scores = answer.symbols?.map((s) => s.score) ?? [];
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('ranks symbols for a few keywords too, and keeps only the asked kind', () => {
    const answer = search(project(), { query: 'saferepr repr', granularity: 'symbol', type: 'method' });
    expect(answer.symbols?.length).toBeGreaterThan(0);
    expect(answer.symbols?.every((s) => s.kind === 'method')).toBe(true);
    expect(answer.symbols?.[0]?.name).toBe('repr_instance');
  });

  it('puts the longer of two equally matching functions first for a task text, not for a few keywords', () => {
    const sized = (name: string, start_line: number, end_line: number): CodeSymbol => ({ kind: 'function', name, ast_path: name, start_line, end_line });
    const corpus = corpusOf([
      file('src/pkg/parsing.py', {
        symbols: [sized('parse_header', 1, 4), sized('parse_body', 10, 130)],
        vocabulary: 'parse:12 header:6 body:6 token:5 stream:4',
      } as Partial<FileSummary>),
    ]);
    // The report says `header` more often than `body`: by their names alone, parse_header matches it better.
    const report = [
      'Parsing fails on a header followed by a body',
      '',
      'When I parse a stream that starts with a header, the parse stops early and the header is read twice. I expected the',
      'whole stream to be parsed once, whatever the length of the header or the number of tokens in the stream. This worked',
      'in the previous release and broke after the upgrade of the parser; every stream with a header fails the same way.',
    ].join('\n');
    const named = (query: string): string[] => search(corpus, { query, granularity: 'symbol' }).symbols?.map((s) => s.name) ?? [];
    expect(named(report).slice(0, 2)).toEqual(['parse_body', 'parse_header']);
    expect(named('parse header body').slice(0, 2)).toEqual(['parse_header', 'parse_body']);
  });

  it('gives no symbol list unless asked', () => {
    expect(search(project(), { query: REPORT }).symbols).toBeUndefined();
  });
});

describe('fusing the plain keyword ranking into a task\'s', () => {
  /** A large module holding the report's words many times, which the plain ranking (size prior, coverage) puts first. */
  const tables = (): SearchCorpus =>
    corpusOf([
      file('pkg/table/writer.py', { lines_of_code: 900, vocabulary: 'table:20 writer:10 column:12 quantity:3 unit:2 format:6 precision:1 digits:1 values:5 round:1 convert:1 file:4 read:2' } as Partial<FileSummary>),
      file('pkg/units/quantity.py', { lines_of_code: 2500, vocabulary: 'quantity:60 unit:50 convert:20 conversion:10 values:30 precision:2 format:5' } as Partial<FileSummary>),
      file('pkg/table/column.py', { lines_of_code: 80, vocabulary: 'column:20 quantity:4 unit:4 format:6 precision:6 digits:4' } as Partial<FileSummary>),
      file('pkg/io/ascii.py', { lines_of_code: 60, vocabulary: 'table:8 writer:6 read:6 round:3 trip:3 file:4' } as Partial<FileSummary>),
    ]);
  const report = [
    'Unit conversion of a quantity loses its precision when the table is written',
    '',
    'Writing a table whose column holds a quantity converts the unit and the values come back rounded. I expected the precision',
    'to be kept as it is when the quantity is printed on its own; the conversion happens somewhere in the writer and the digits',
    'are cut to the default format. Loading the file back gives different numbers, so a round trip through the table loses data.',
  ].join('\n');
  // The title's own weight aside (it lifts the quantity module too; tested below).
  const rankOf = (fusion: { plain: number; k: number }, title = 0): number =>
    paths(tables(), { query: report, taskParams: { ...TASK_PARAMS, title, fusion: { ...TASK_PARAMS.fusion, ...fusion } } }).indexOf('pkg/units/quantity.py') + 1;

  it('lifts the file the plain ranking puts first, which the task ranking alone puts last', () => {
    expect(paths(tables(), { keywords: ['unit conversion quantity precision table written'] })[0]).toBe('pkg/units/quantity.py');
    expect(rankOf({ plain: 0, k: 0 })).toBe(4);
    expect(rankOf({ plain: 1, k: 0 })).toBe(2);
    expect(rankOf({ plain: 1, k: 60 })).toBe(3);
  });

  it('keeps a page of the docs below the code when only the body names docs in passing (the title asks for roles in both rankings)', () => {
    const corpus = corpusOf([
      file('src/cards/wrap.py', { lines_of_code: 120, vocabulary: 'wrap:8 word:6 text:5 width:4 line:3 card:2' } as Partial<FileSummary>),
      file('src/cards/render.py', { lines_of_code: 300, vocabulary: 'card:20 render:12 text:6 theme:5' } as Partial<FileSummary>),
      // An issue template: the report was written from it, so it holds most of the report's words.
      file('.github/ISSUE_TEMPLATE/bug_report.md', {
        role: 'docs', language: 'Markdown', file_type: 'Markdown documentation', lines_of_code: 30,
        vocabulary: 'describe:3 bug:4 reproduce:3 expected:3 behavior:3 screenshots:2 steps:2 documentation:2 word:1 wrapping:1 text:1',
      } as Partial<FileSummary>),
    ]);
    const report = [
      'Bug: word wrapping',
      '',
      'Describe the bug: long words are not wrapped and the text runs off the card. Steps to reproduce: add a long word to the',
      'description, as the documentation shows. Expected behavior: the text wraps at the card width. Screenshots below. The',
      'documentation does not say anything about the width of a word or of a line; I expected the wrapping to follow it.',
    ].join('\n');
    const ranked = paths(corpus, { query: report });
    expect(ranked[0]).toBe('src/cards/wrap.py');
    expect(ranked.indexOf('.github/ISSUE_TEMPLATE/bug_report.md')).toBeGreaterThan(1);
  });

  it('weighs the words of the title above the same words in the body', () => {
    expect(rankOf({ plain: 0, k: 0 }, 0)).toBe(4);
    expect(rankOf({ plain: 0, k: 0 }, 0.5)).toBe(3);
  });

  it('can let a file the plain ranking strongly prefers outvote an option anchor on a small module (the cost of fusing)', () => {
    const ranked = paths(project(), { query: OPTION_REPORT });
    expect(ranked.slice(0, 2)).toEqual(['src/pkg/walker.py', 'src/pkg/lint/expand_modules.py']);
  });

  it('weighs each file\'s symbols by its score in the task ranking alone, the scale symbol ranking was fitted to', () => {
    const symbolsOf = (taskParams: typeof TASK_PARAMS) => search(project(), { query: `${REPORT}\n\n${TRACE}`, granularity: 'symbol', taskParams }).symbols?.map((s) => `${s.file_path}:${s.name}`);
    expect(symbolsOf({ ...TASK_PARAMS, fusion: { ...TASK_PARAMS.fusion, plain: 1 } })).toEqual(symbolsOf(TASK_ALONE));
  });

  it('searches only the rarest words of a long text in the plain ranking, when told how many', () => {
    const input = { terms: ['quantity', 'trip', 'column'], targetName: [], targetLanguage: '' };
    expect(rarestTerms(tables(), input, 2).terms).toEqual(['trip', 'column']);
    expect(rarestTerms(tables(), input, 0).terms).toEqual(['quantity', 'trip', 'column']);
  });

  it('adds reciprocal ranks when k is set, and scores divided by each ranking\'s best when it is 0', () => {
    const task = [{ doc: 1, score: 8 }, { doc: 2, score: 4 }];
    const plain = [{ doc: 3, score: 10 }, { doc: 2, score: 5 }];
    const byDoc = (ranked: Array<{ doc: number; score: number }>) => Object.fromEntries(ranked.map(({ doc, score }) => [doc, score]));
    expect(byDoc(fuseRankings(task, plain, { plain: 2, k: 10 }))).toEqual({ 1: 1 / 11, 2: 1 / 12 + 2 / 12, 3: 2 / 11 });
    expect(byDoc(fuseRankings(task, plain, { plain: 2, k: 0 }))).toEqual({ 1: 1, 2: 0.5 + 1, 3: 2 });
  });
});
