import { describe, expect, it } from 'vitest';
import { indexRepo } from '../../src/lib.js';
import { symbolTerms } from '../../src/extract/symbolTerms.js';
import type { CodeSymbol, RepoIndex } from '../../src/index/types.js';
import { parseVocabulary } from '../../src/index/vocabulary.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import { Tokenizer } from '../../src/search/profileTokens.js';
import { SYMBOL_PARAMS, symbolQuery, symbolScores } from '../../src/search/symbolRank.js';
import type { Anchor, SearchRequest } from '../../src/search/types.js';
import { makeTempRepo } from '../support/tempRepo.js';

/** Ranks from the index alone: no file is read, so what is found comes from what the index stores. */
const fromIndex = (index: RepoIndex) => new SearchCorpus([{ key: index.repo_name, file: '', index }]);
const topSymbol = (index: RepoIndex, request: SearchRequest) => search(fromIndex(index), { granularity: 'symbol', ...request }).symbols?.[0];

const symbol = (name: string, start_line: number, end_line: number, ast_path = name): CodeSymbol => ({ kind: 'function', name, ast_path, start_line, end_line });
/** The symbol answers for `query` over a repository of `files`, indexed offline. */
const symbolAnswers = async (files: Record<string, string>, query: string, maxResults = 20) =>
  search(fromIndex(await indexRepo(makeTempRepo(files).root)), { granularity: 'symbol', maxResults, query }).symbols ?? [];

describe('a definition\'s own words', () => {
  it('are the words of its lines less those of the definitions nested in it', () => {
    const text = ['class Parser:', '    grammar = load_grammar()', '    def feed(self, token):', '        self.tokens.append(token)', '    def reset(self):', '        self.tokens.clear()'].join('\n');
    const [parser, feed, reset] = symbolTerms(text, [symbol('Parser', 1, 6), symbol('feed', 3, 4, 'Parser-feed'), symbol('reset', 5, 6, 'Parser-reset')]);
    expect(parseVocabulary(parser).map(([w]) => w).sort()).toEqual(['class', 'grammar', 'load_grammar', 'Parser'].sort());
    expect(parseVocabulary(feed).map(([w]) => w)).toEqual(expect.arrayContaining(['token', 'tokens', 'append', 'feed']));
    expect(parseVocabulary(feed).map(([w]) => w)).not.toContain('clear');
    expect(parseVocabulary(reset).map(([w]) => w)).toContain('clear');
  });

  it('are bounded per definition, most frequent first', () => {
    const body = Array.from({ length: 200 }, (_, i) => `    word${i} = word${i} + 1`).join('\n');
    const [terms] = symbolTerms(`def big():\n${body}\n    return often + often + often`, [symbol('big', 1, 202)], 16);
    const entries = parseVocabulary(terms);
    expect(entries).toHaveLength(16);
    expect(entries[0]).toEqual(['often', 3]);
  });

  it('never hold a secret the file holds', () => {
    const text = 'def connect():\n    key = "AKIAIOSFODNN7EXAMPLE"\n    return client(key)\n';
    const [terms] = symbolTerms(text, [symbol('connect', 1, 3)]);
    expect(terms).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(terms).toContain('client');
  });
});

describe('ranking definitions, from the index alone', () => {
  it('puts the method whose body does what a report says above its siblings, whose names say nothing of it', async () => {
    const repo = makeTempRepo({
      'pkg/manifest.py': [
        'class Manifest:',
        '    def manifest_path(self):',
        '        return self.root / "MANIFEST"',
        '',
        '    def _read_block(self, stream):',
        '        header = stream.readline()',
        '        if not header.startswith("#%"):',
        '            raise ValueError("cannot parse the manifest header")',
        '        return header',
        '',
        '    def write_all(self, entries):',
        '        for entry in entries:',
        '            self.out.write(entry)',
        '',
      ].join('\n'),
      'pkg/other.py': 'def unrelated():\n    return 1\n',
    });
    const index = await indexRepo(repo.root);
    expect(topSymbol(index, { query: 'Loading fails with "cannot parse the manifest header" on an old file' })).toMatchObject({ name: '_read_block', file_path: 'pkg/manifest.py' });
    expect(search(fromIndex(index), { keywords: ['header', 'stream'] }).references[0]?.symbols[0]?.name).toBe('_read_block');
  });

  it('answers a short query with the matching definitions by relevance, not in file order', async () => {
    const filler = Array.from({ length: 12 }, (_, i) => `export function helper${i}(x: number): number {\n  return x + ${i};\n}\n`).join('\n');
    const repo = makeTempRepo({
      'src/net.ts': `${filler}\nexport function send(request: Request): Promise<Response> {\n  return retryWithBackoff(() => fetch(request), 5);\n}\n`,
    });
    const index = await indexRepo(repo.root);
    const [reference] = search(fromIndex(index), { keywords: ['retry', 'backoff'] }).references;
    expect(reference?.symbols[0]?.name).toBe('send');
  });

  it('reduces a request\'s inflected words to the base the code uses: "pushed" finds push', async () => {
    const repo = makeTempRepo({
      'src/ctx.py': 'class AppContext:\n    def push(self):\n        _cv_app.set(self)\n\n    def pop(self):\n        _cv_app.reset()\n',
      'src/app.py': 'class App:\n    def run(self):\n        return self.handle()\n',
    });
    const index = await indexRepo(repo.root);
    expect(topSymbol(index, { query: 'where is the app context pushed' })).toMatchObject({ name: 'push', file_path: 'src/ctx.py' });
  });

  it('puts a class that lacks the method its sibling classes have and the report asks for above the siblings\' methods', async () => {
    const printer = (name: string, kinds: readonly string[], extra = '') =>
      [`class ${name}(Base):`, ...kinds.map((t) => `    def _print_${t}(self, expr):\n        return self.join(expr.args)\n`), extra].join('\n');
    const order = async (wolframKinds: readonly string[], sameFile = false) => {
      const fortran = printer('Fortran', ['Pow', 'Mul', 'Add', 'Symbol'], '    def _print_Float(self, expr):\n        printed = repr(expr)\n        return printed.replace("e", "d")\n');
      const wolfram = `${printer('Wolfram', wolframKinds)}\n\ndef mathematica_code(expr):\n    return Wolfram().doprint(expr)\n`;
      const repo = makeTempRepo(sameFile ? { 'printing/mathematica.py': `${wolfram}\n\n${fortran}` } : { 'printing/mathematica.py': wolfram, 'printing/fortran.py': fortran });
      const answer = search(fromIndex(await indexRepo(repo.root)), { granularity: 'symbol', maxResults: 50, query: 'mathematica_code(expr) prints a Float wrong: 1.0e-4 where Mathematica wants 1.0*^-4' });
      return (answer.symbols ?? []).map((s) => s.name);
    };
    const siblings = await order(['Pow', 'Mul', 'Add', 'Symbol']);
    expect(siblings.indexOf('Wolfram')).toBeGreaterThanOrEqual(0);
    expect(siblings.indexOf('Wolfram')).toBeLessThan(siblings.indexOf('_print_Float'));
    // A class that shares no methods with the one holding `_print_Float` is no printer missing it.
    const stranger = await order(['Tree', 'Leaf']);
    expect(stranger.indexOf('_print_Float')).toBeLessThan(stranger.indexOf('Wolfram'));
    // Nor is a sibling lifted above a method of its own file: the report points at both alike.
    const together = await order(['Pow', 'Mul', 'Add', 'Symbol'], true);
    expect(together.indexOf('_print_Float')).toBeLessThan(together.indexOf('Wolfram'));
  });

  it('puts a class that lacks the method for a type the report backticks, however common its name, right after the function the report names', async () => {
    const printer = (name: string, kinds: readonly string[]) =>
      [`class ${name}(Printer):`, ...kinds.map((t) => `    def _print_${t}(self, expr):\n        return "%s(%s)" % (expr.__class__.__name__, self.join(expr))\n`)].join('\n');
    const repr = `${printer('ReprPrinter', ['list', 'tuple', 'Symbol', 'Integer'])}\n    def emptyPrinter(self, expr):\n        return str(expr)\n\n\ndef print_elements(elements):\n    """Prints the elements of a list or a tuple properly."""\n    return ", ".join(srepr(e) for e in elements)\n\n\ndef srepr(expr):\n    """Prints the expression so that eval gives it back."""\n    return ReprPrinter().doprint(expr)\n`;
    const symbols = await symbolAnswers({ 'printing/repr.py': repr, 'printing/str.py': printer('StrPrinter', ['list', 'tuple', 'Symbol', 'Integer', 'dict', 'set']) }, 'srepr not printing dict and set properly\n\n`srepr` prints the elements of `list` and `tuple` correctly, but the elements of `dict` and `set` wrong:\n\n```python\n>>> srepr({x: y})\n{x: y}\n```\n', 50);
    const names = symbols.map((s) => `${s.file_path}:${s.name}`);
    // Right after the function the report names: the printer it calls is what lacks `_print_dict`, as its sibling shows.
    expect(names.slice(0, 2)).toEqual(['printing/repr.py:srepr', 'printing/repr.py:ReprPrinter']);
  });

  it('puts an overload right behind its namesake the report is about, as a fix to one often edits the other', async () => {
    const java = [
      'public final class Types {',
      '  /** Resolves a type variable against its declaring class, recursively. */',
      '  public static Type resolve(Type context, Class<?> rawType, Type toResolve) {',
      '    if (toResolve == null) throw new IllegalStateException("type variable cannot be resolved");',
      '    return resolve(context, rawType, toResolve, new HashMap<TypeVariable<?>, Type>());',
      '  }',
      '  private static Type resolve(Type context, Class<?> raw, Type target, Map<Object, Object> seen) {',
      '    while (true) { if (seen.containsKey(target)) { return target; } seen.put(target, raw); }',
      '  }',
      ...['canonicalize', 'getRawType', 'typeToString', 'getGenericSupertype'].map((name) =>
        `  public static Type ${name}(Type type) {\n    // a type variable of a generic class\n    return type;\n  }`),
      '}',
    ].join('\n');
    const symbols = await symbolAnswers({ 'src/main/java/com/example/Types.java': java }, 'Stack overflow when a type variable of a generic class refers to itself\n\nResolving such a type variable against its declaring class recurses without end; it happens for any class whose type parameter is bounded by the class itself, and ends in "type variable cannot be resolved".');
    const names = symbols.map((s) => `${s.name}@${s.start_line}`);
    expect(names.slice(0, 2)).toEqual(['resolve@3', 'resolve@7']);
  });

  it('reads an operator a report\'s code uses between classes it names as their method implementing it', async () => {
    const method = (name: string, body: string) => `    def ${name}(self, other):\n        ${body}\n`;
    const operator = [
      'class Operator(Expr):',
      method('__mul__', 'return Mul(self, other)'),
      method('_apply_operator', 'return None'),
      '',
      'class IdentityOperator(Operator):',
      method('_apply_operator', 'return other'),
      method('_represent_default_basis', 'return eye(self.N)'),
      method('_eval_commutator', 'return Integer(0)'),
      method('__mul__', 'if isinstance(other, Operator):\n            return other\n        return Mul(self, other)'),
    ].join('\n');
    const symbols = await symbolAnswers({ 'quantum/operator.py': operator, 'quantum/dagger.py': 'class Dagger(Expr):\n    def __new__(cls, arg):\n        return arg.adjoint()\n' }, 'Dagger() * IdentityOperator() is not simplified\n\n```\nA = Operator(\'A\')\nIdentity = IdentityOperator()\nA * Identity  # gives A\nB = Dagger(A)\nB * Identity  # gives A^dagger I\n```\n');
    const names = symbols.map((s) => s.ast_path);
    const mul = names.indexOf('IdentityOperator-__mul__');
    expect(mul).toBeGreaterThanOrEqual(0);
    for (const sibling of ['IdentityOperator-_apply_operator', 'IdentityOperator-_represent_default_basis', 'IdentityOperator-_eval_commutator']) expect(mul).toBeLessThan(names.indexOf(sibling));
  });

  it('lifts no Python namesake as an overload: a property\'s setter is not its getter\'s overload', async () => {
    const python = [
      'class Card:',
      '    @property',
      '    def value(self):',
      '        """The card\'s value, parsed from its image: quotes doubled, strings unescaped."""',
      '        return self._parse_value(self._image)',
      ...['keyword', 'comment', 'image', 'rawkeyword'].map((name) => `    def ${name}(self):\n        """The card's ${name}, from its image."""\n        return self._${name}\n`),
      '    @value.setter',
      '    def value(self, value):',
      '        self._modified = True',
    ].join('\n');
    const symbols = await symbolAnswers({ 'fits/card.py': python }, 'Inconsistency in double single-quote management in FITS Card\n\nThe value parsed from a card image loses one of its doubled quotes when it is unescaped; the keyword, comment and image are right.');
    const values = symbols.flatMap((s, i) => (s.name === 'value' ? [i] : []));
    expect(values[0]).toBe(0);
    expect(values[1]).toBeGreaterThan(1);
  });

  it('puts equals and hashCode right behind the compareTo a report is about: one contract binds them', async () => {
    const java = [
      'public class Version implements Comparable<Version> {',
      '  public boolean isSnapshot() { return snapshotInfo != null && snapshotInfo.length() > 0; }',
      '  public String toString() { return major + "." + minor + "." + patch; }',
      '  public int getMajorVersion() { return major; }',
      '  public int getMinorVersion() { return minor; }',
      '  @Override public int hashCode() { return artifactId.hashCode() ^ groupId.hashCode() + major - minor + patch; }',
      '  @Override public boolean equals(Object o) { Version other = (Version) o; return other.major == major && other.minor == minor; }',
      '  @Override public int compareTo(Version other) { int diff = major - other.major; return diff; }',
      '}',
    ].join('\n');
    const symbols = await symbolAnswers({ 'src/main/java/com/example/Version.java': java }, 'Compare snapshot info in `Version`\n\nAccording to semver, 1.0.0-alpha < 1.0.0-beta. However, `Version.compareTo` does not account for the snapshot info in its comparison of major, minor and patch versions. Does it make sense to compare the snapshot info as well?');
    const names = symbols.map((s) => s.name);
    expect(names[0]).toBe('compareTo');
    expect(names.slice(1, 3).sort()).toEqual(['equals', 'hashCode']);
  });

  it('scores a definition whose every name word the title says, in any order, above one whose words weigh more but the title does not name', () => {
    const tokenizer = new Tokenizer();
    const symbols = [symbol('_check_required_columns', 1, 5), symbol('remove_column', 6, 12), symbol('check', 13, 15)];
    const weigh = (word: string, weight: number): Array<[string, number]> => tokenizer.text(word).map((t) => [t, weight]);
    const termWeight = new Map([...weigh('check required column', 1), ...weigh('remove', 3), ...weigh('exception', 2)]);
    const title = new Set(tokenizer.text('TimeSeries: misleading exception when required column check fails'));
    const [checkColumns, remove, check] = symbolScores(symbols, symbolQuery(termWeight, [], 0, [], SYMBOL_PARAMS, { titleTerms: title }), tokenizer);
    const [withoutTitle, removeWithoutTitle] = symbolScores(symbols, symbolQuery(termWeight, [], 0, [], SYMBOL_PARAMS), tokenizer);
    expect(withoutTitle).toBeLessThan(removeWithoutTitle as number);
    expect(checkColumns).toBeGreaterThan(remove as number);
    // A name of one word is in too many titles to be pointed at by one.
    expect(check).toBe(symbolScores(symbols, symbolQuery(termWeight, [], 0, [], SYMBOL_PARAMS), tokenizer)[2]);
  });

  it('reads a name and a class the report both names as that class\'s method, or the method of the class whose name extends it', () => {
    const tokenizer = new Tokenizer();
    const symbols = [
      symbol('world_to_pixel', 1, 9, 'HighLevelWCSMixin-world_to_pixel'),
      symbol('world_to_pixel_values', 10, 30, 'SlicedLowLevelWCS-world_to_pixel_values'),
      symbol('pixel_to_world_values', 31, 50, 'SlicedLowLevelWCS-pixel_to_world_values'),
      symbol('world_to_pixel_values', 51, 70, 'FITSWCSAPIMixin-world_to_pixel_values'),
    ];
    const anchors: Anchor[] = [
      { kind: 'symbol', text: 'world_to_pixel', source: 'backtick' },
      { kind: 'symbol', text: 'SlicedLowLevelWCS', source: 'backtick' },
    ];
    const termWeight = new Map(tokenizer.text('world pixel').map((t): [string, number] => [t, 1]));
    const scores = symbolScores(symbols, symbolQuery(termWeight, anchors), tokenizer);
    const best = symbols[scores.indexOf(Math.max(...scores))];
    expect(best?.ast_path).toBe('SlicedLowLevelWCS-world_to_pixel_values');
    // The same name in a class the report does not name is no anchor; nor is a sibling whose name does not extend it.
    expect(scores[3]).toBeLessThan(scores[0] as number);
    expect(scores[2]).toBeLessThan(scores[0] as number);
  });

  it('puts a method the report names with its class above its namesakes named bare, though their files rank higher', async () => {
    const repo = makeTempRepo({
      'fits/hdulist.py': 'class HDUList:\n    @classmethod\n    def fromstring(cls, data):\n        """Create an HDU list from a string of header data."""\n        return cls(header_from(data), string_data(data))\n',
      'fits/header.py': 'class Header:\n    @classmethod\n    def fromstring(cls, data, sep=""):\n        """Create a header from a byte string of header data."""\n        return cls(split_cards(data.decode("ascii"), sep))\n',
      'fits/card.py': 'class Card:\n    @classmethod\n    def fromstring(cls, image):\n        card = cls()\n        card._image = image\n        return card\n',
    });
    const index = await indexRepo(repo.root);
    const report = [
      'Header.fromstring does not accept Python 3 bytes',
      'The method `Header.fromstring` creates a header from a byte string holding the whole header data. By byte string it',
      'really means the str type, which on Python 2 could be raw binary data but on Python 3 is not: it works on unicode',
      'strings and assumes the header data can be encoded as ASCII. Its counterpart reading files works in text or binary',
      'mode, so the simplest fix is to accept unicode or bytes header strings. `Card.fromstring` likely needs the same.',
    ].join('\n');
    const found = (search(fromIndex(index), { granularity: 'symbol', query: report }).symbols ?? []).map((s) => `${s.file_path}:${s.name}`);
    expect(found.indexOf('fits/card.py:fromstring')).toBeLessThan(found.indexOf('fits/hdulist.py:fromstring'));
  });

  it('puts a function nested in the one a report is about right after it, though its own words say nothing of the report', async () => {
    const siblings = Array.from({ length: 6 }, (_, i) => `def render_product_${i}(expr):\n    return render_limits(expr.limits)\n`).join('\n');
    const repo = makeTempRepo({
      'printing/pretty.py': `${siblings}\ndef render_sum(expr):\n    """Pretty-print a Sum with its limits."""\n    def stack(lines, height):\n        return [line.center(height) for line in lines]\n    return stack(render_limits(expr.limits), 3)\n`,
    });
    const index = await indexRepo(repo.root);
    const names = (search(fromIndex(index), { granularity: 'symbol', query: 'The pretty printer misaligns a Sum with its limits' }).symbols ?? []).map((s) => s.name);
    expect(names.slice(0, 2)).toEqual(['render_sum', 'stack']);
  });
});

/**
 * Each file defines `save` twice, on two types; the trace's frame names a line of the second, and neither its
 * function name (where the runtime gives one) nor its words tell the two apart: without the line, the first wins.
 */
const FRAMES: Array<[language: string, path: string, source: string, trace: string, line: number]> = [
  [
    'Python',
    'src/store.py',
    'class Alpha:\n    def save(self, record):\n        self.items.append(record)\n        return record\n\n\nclass Beta:\n    def save(self, record):\n        raise ValueError("record is read only")\n',
    'Traceback (most recent call last):\n  File "/srv/app/src/store.py", line 9, in save',
    8,
  ],
  [
    'JavaScript',
    'lib/store.js',
    'class Alpha {\n  save(record) {\n    this.items.push(record);\n    return record;\n  }\n}\n\nclass Beta {\n  save(record) {\n    throw new Error("record is read only");\n  }\n}\nmodule.exports = { Alpha, Beta };\n',
    '    at /srv/app/lib/store.js:10:11\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
    9,
  ],
  [
    'TypeScript',
    'src/store.ts',
    'export class Alpha {\n  items: string[] = [];\n  save(record: string): string {\n    this.items.push(record);\n    return record;\n  }\n}\n\nexport class Beta {\n  save(record: string): never {\n    throw new Error("record is read only");\n  }\n}\n',
    '    at file:///srv/app/src/store.ts:11:11',
    10,
  ],
  [
    'Java',
    'src/main/java/com/acme/Store.java',
    'package com.acme;\n\npublic class Store {\n    static class Alpha {\n        void save(String record) {\n            items.add(record);\n        }\n    }\n\n    static class Beta {\n        void save(String record) {\n            throw new IllegalStateException("record is read only");\n        }\n    }\n}\n',
    '\tat com.acme.Store.lambda$0(Store.java:12)\n\tat java.base/java.lang.Thread.run(Thread.java:833)',
    11,
  ],
  [
    'Go',
    'store.go',
    'package store\n\ntype Alpha struct{ items []string }\n\nfunc (a *Alpha) Save(record string) error {\n\ta.items = append(a.items, record)\n\treturn nil\n}\n\ntype Beta struct{}\n\nfunc (b *Beta) Save(record string) error {\n\tpanic("record is read only")\n}\n',
    'goroutine 1 [running]:\nexample.com/store.glob..func1(...)\n\t/srv/app/store.go:13 +0x1d',
    12,
  ],
  [
    'Rust',
    'src/store.rs',
    'pub struct Alpha {\n    items: Vec<String>,\n}\n\nimpl Alpha {\n    pub fn save(&mut self, record: String) {\n        self.items.push(record);\n    }\n}\n\npub struct Beta;\n\nimpl Beta {\n    pub fn save(&self, _record: String) {\n        panic!("record is read only");\n    }\n}\n',
    "thread 'main' panicked at src/store.rs:15:9:",
    14,
  ],
];

describe('a stack frame\'s line', () => {
  it.each(FRAMES)('points at the %s definition that encloses it', async (_language, path, source, trace, line) => {
    const repo = makeTempRepo({ [path]: source, 'README.md': '# store\n' });
    const index = await indexRepo(repo.root);
    const top = topSymbol(index, { query: `Saving fails\n\n${trace}` });
    expect(top).toMatchObject({ file_path: path, start_line: line });
    expect(top?.name.toLowerCase()).toBe('save');
  });
});

describe('edit locations from bad input', () => {
  it('answers a traceback none of whose frames is in the indexes from its words, and says which files it read it as naming', async () => {
    const repo = makeTempRepo({ 'src/store.py': FRAMES[0]?.[2] ?? '' });
    const index = await indexRepo(repo.root);
    const trace = 'Saving a record fails\n\nTraceback (most recent call last):\n  File "/usr/lib/python3/elsewhere/other.py", line 4000, in nowhere\nValueError: record is read only';
    const answer = search(fromIndex(index), { query: trace, granularity: 'symbol' });
    expect(answer.task?.anchors).toContainEqual({ kind: 'path', text: 'usr/lib/python3/elsewhere/other.py', source: 'frame', lines: [4000] });
    expect(answer.symbols?.[0]).toMatchObject({ file_path: 'src/store.py', name: 'save', start_line: 8 });
  });

  it('reads the first 200,000 characters of a 1 MB issue and says it was cut', async () => {
    const repo = makeTempRepo({ 'src/store.py': FRAMES[0]?.[2] ?? '' });
    const index = await indexRepo(repo.root);
    const issue = `Saving is read only\n\n${'the record store says the record is read only when saving '.repeat(18_000)}`;
    expect(issue.length).toBeGreaterThan(1_000_000);
    const answer = search(fromIndex(index), { query: issue, granularity: 'symbol' });
    expect(answer.task?.truncated).toBe(true);
    expect(answer.symbols?.[0]?.file_path).toBe('src/store.py');
  });

  it('ranks the definitions of a file that has 20,000 of them, and keeps each one\'s words bounded', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => `def h${i}(e):\n    return e\n`).join('');
    const repo = makeTempRepo({ 'src/handlers.py': `${many}\ndef shutdown_gracefully(event):\n    drain_connections(event)\n` });
    const index = await indexRepo(repo.root);
    const file = index.file_summaries.find((f) => f.file_path === 'src/handlers.py');
    expect(file?.symbols.length).toBe(20_001);
    expect(topSymbol(index, { query: 'drain the connections on shutdown' })).toMatchObject({ name: 'shutdown_gracefully' });
  }, 30_000);

  it('gives a minified file\'s one long line to no definition it cannot place, and still answers', async () => {
    const minified = `!function(){${Array.from({ length: 3000 }, (_, i) => `function f${i}(a){return a+${i}}`).join(';')}}();`;
    const repo = makeTempRepo({ 'dist/app.min.js': minified, 'src/retry.js': 'function retryWithBackoff(fn) {\n  return fn();\n}\nmodule.exports = retryWithBackoff;\n' });
    const index = await indexRepo(repo.root);
    expect(topSymbol(index, { query: 'retry with backoff' })).toMatchObject({ file_path: 'src/retry.js', name: 'retryWithBackoff' });
  });
});
