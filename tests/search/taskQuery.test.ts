import { describe, expect, it } from 'vitest';
import { normaliseName, normalisePath, operatorMethods, parseTaskText, type Anchor } from '../../src/search/taskQuery.js';

const anchorsOf = (text: string): Anchor[] => parseTaskText(text).anchors;
const texts = (text: string, kind: Anchor['kind']): string[] => anchorsOf(text).filter((a) => a.kind === kind).map((a) => a.text);

describe('reading a task text for anchors', () => {
  it('takes the files and functions of a Python traceback, without the installation folders', () => {
    const text = [
      'Traceback (most recent call last):',
      '  File "/usr/lib/python3.9/site-packages/_pytest/_io/saferepr.py", line 23, in _format_repr_exception',
      '    exc_info = _try_repr_or_str(exc)',
      '  File "/home/me/proj/test_x.py", line 4, in <module>',
      'RuntimeError: No active exception to reraise',
    ].join('\n');
    expect(texts(text, 'path')).toEqual(['_pytest/_io/saferepr.py', 'home/me/proj/test_x.py']);
    expect(anchorsOf(text)).toContainEqual({ kind: 'symbol', text: '_format_repr_exception', source: 'frame' });
    expect(texts(text, 'symbol')).not.toContain('module');
  });

  it('takes the files and functions of a Node.js stack, file URLs included', () => {
    const text = [
      "TypeError: Cannot read properties of undefined (reading 'shape')",
      '    at ZodObject._parse (/app/node_modules/zod/lib/types.js:1234:20)',
      '    at async Server.handle (file:///srv/app/src/server/handler.ts:88:5)',
      '    at /srv/app/src/index.mjs:3:1',
      '    at Object.<anonymous> (/srv/app/run.js:1:1)',
    ].join('\n');
    expect(texts(text, 'path')).toEqual(['zod/lib/types.js', 'srv/app/src/server/handler.ts', 'srv/app/src/index.mjs', 'srv/app/run.js']);
    expect(texts(text, 'symbol')).toEqual(expect.arrayContaining(['ZodObject._parse', 'Server.handle']));
    expect(texts(text, 'symbol').some((s) => s.startsWith('Object.'))).toBe(false);
  });

  it('takes the class, method and file of a Java stack, inner classes under their outer file', () => {
    const text = [
      'Exception in thread "main" java.lang.IllegalStateException: closed',
      '\tat org.jsoup.parser.Tokeniser$State.read(Tokeniser.java:42)',
      '\tat org.jsoup.Jsoup.parse(Jsoup.java:30)',
      'Caused by: com.example.BadInputException: nope',
    ].join('\n');
    expect(texts(text, 'path')).toEqual(['org/jsoup/parser/Tokeniser.java', 'org/jsoup/Jsoup.java']);
    expect(texts(text, 'symbol')).toEqual(expect.arrayContaining(['State.read', 'Jsoup.parse', 'BadInputException']));
    expect(texts(text, 'symbol')).not.toContain('IllegalStateException');
  });

  it('takes the functions and files of a Go goroutine dump, not the runtime\'s', () => {
    const text = [
      'panic: runtime error: invalid memory address or nil pointer dereference',
      'goroutine 1 [running]:',
      'github.com/gin-gonic/gin.(*Context).Next(...)',
      '\t/go/pkg/mod/github.com/gin-gonic/gin@v1.9.0/context.go:174 +0x2b',
      'github.com/acme/api/handlers.GetUser(0xc000123456)',
      '\t/src/api/handlers/user.go:31 +0x1d',
      'runtime.goexit()',
    ].join('\n');
    expect(texts(text, 'symbol')).toEqual(expect.arrayContaining(['Context.Next', 'GetUser']));
    expect(texts(text, 'symbol')).not.toContain('goexit');
    expect(texts(text, 'path')).toEqual(expect.arrayContaining(['src/api/handlers/user.go']));
  });

  it('takes the panic location and the crate frames of a Rust backtrace, not std\'s', () => {
    const text = [
      "thread 'main' panicked at src/walk/dir.rs:117:9:",
      'index out of bounds',
      'stack backtrace:',
      '   0: rust_begin_unwind',
      '   1: core::panicking::panic_fmt',
      '   2: ignore::walk::WalkParallel::visit',
      '             at ./crates/ignore/src/walk.rs:1290:17',
    ].join('\n');
    expect(texts(text, 'path').sort()).toEqual(['crates/ignore/src/walk.rs', 'src/walk/dir.rs']);
    expect(texts(text, 'symbol')).toContain('WalkParallel.visit');
    expect(texts(text, 'symbol').some((s) => s.includes('panic'))).toBe(false);
  });

  it('reads dotted and qualified names in prose as names, and leaves e.g. and versions alone', () => {
    const text = 'Calling django.db.models.QuerySet.filter() or Foo::bar_baz (e.g. in 3.2.1) breaks, see www.example.com.';
    expect(texts(text, 'symbol')).toEqual(['django.db.models.QuerySet.filter', 'Foo.bar_baz']);
  });

  it('reads backticked names, calls, options and paths', () => {
    const text = 'The `--ignore-paths` option is ignored by `expand_modules()`; see `pylint/lint/expand_modules.py` and `Linter.check`.';
    const anchors = anchorsOf(text);
    expect(anchors).toContainEqual({ kind: 'option', text: 'ignore-paths', source: 'backtick' });
    expect(anchors).toContainEqual({ kind: 'symbol', text: 'expand_modules', source: 'backtick' });
    expect(anchors).toContainEqual({ kind: 'path', text: 'pylint/lint/expand_modules.py', source: 'backtick' });
    expect(anchors).toContainEqual({ kind: 'symbol', text: 'Linter.check', source: 'backtick' });
  });

  it('reads options and error classes written in prose', () => {
    const text = 'With --max-line-length=100 the checker raises a ConfigurationError instead of a ValueError.';
    expect(texts(text, 'option')).toEqual(['max-line-length']);
    expect(texts(text, 'symbol')).toEqual(['ConfigurationError']);
  });

  it('reads snake_case and camelCase words of the prose as names, not plain words, errors or dotted parts', () => {
    const text = 'Display bug when pretty_print shows a MatrixSymbol; getValue and Foo::bar_baz differ, a TypeError and ConfigError aside.';
    const anchors = anchorsOf(text);
    expect(anchors).toContainEqual({ kind: 'symbol', text: 'pretty_print', source: 'identifier' });
    expect(anchors).toContainEqual({ kind: 'symbol', text: 'MatrixSymbol', source: 'identifier' });
    expect(anchors).toContainEqual({ kind: 'symbol', text: 'getValue', source: 'identifier' });
    expect(texts(text, 'symbol').sort()).toEqual(['ConfigError', 'Foo.bar_baz', 'MatrixSymbol', 'getValue', 'pretty_print']);
    expect(anchors.find((a) => a.text === 'ConfigError')?.source).toBe('error');
  });

  it('reads the names a code block imports, defines and calls', () => {
    const text = ['Repro:', '```python', 'from sympy.printing.latex import latex', 'class MyPrinter(LatexPrinter):', '    pass', 'print(latex(Integral(x), mode="inline"))', '```'].join('\n');
    const symbols = texts(text, 'symbol');
    expect(symbols).toEqual(expect.arrayContaining(['sympy.printing.latex', 'sympy.printing.latex.latex', 'MyPrinter', 'Integral']));
    expect(symbols).not.toContain('print');
    expect(anchorsOf(text).every((a) => a.source === 'code')).toBe(true);
  });

  it('reads the operators code, backticks and a title use as the methods implementing them, not a path\'s slashes or prose\'s dashes', () => {
    const text = ['Dagger() * IdentityOperator() is not simplified', '', 'A well-known case; `a == b` fails too, see /usr/lib/python3/site.py.', '```', 'B * Identity', 'x = y**2', '```'].join('\n');
    expect([...operatorMethods(text)].sort()).toEqual(['__eq__', '__mul__', '__rmul__']);
    expect(operatorMethods('Adding two tables - a regression since 5.0 - breaks `Table.read`')).toEqual(new Set());
  });

  it('reads a link to a line of a file, GitHub\'s or GitLab\'s, as a frame at that line', () => {
    const text = 'However, `Version.compareTo` ignores it: https://github.com/FasterXML/jackson-core/blob/2.16/src/main/java/com/fasterxml/jackson/core/Version.java#L135 and https://gitlab.com/o/r/-/blob/main/lib/x.py#L7-L9 too.';
    const frames = anchorsOf(text).filter((a) => a.kind === 'path' && a.source === 'frame');
    expect(frames).toEqual([
      { kind: 'path', text: 'src/main/java/com/fasterxml/jackson/core/Version.java', source: 'frame', lines: [135] },
      { kind: 'path', text: 'lib/x.py', source: 'frame', lines: [7] },
    ]);
  });

  it('calls a long text, a stack trace or a code block a task, and keywords or a short message not', () => {
    expect(parseTaskText('ttl cache eviction').isTask).toBe(false);
    expect(parseTaskText('fix: keep headers\n\nHeaders set before a redirect were dropped.').isTask).toBe(false);
    expect(parseTaskText(Array.from({ length: 55 }, (_, i) => `word${i} text`).join(' ')).isTask).toBe(true);
    expect(parseTaskText('crash\n  File "a/b.py", line 3, in f').isTask).toBe(true);
    expect(parseTaskText('it fails:\n```\nx = f()\n```').isTask).toBe(true);
  });

  it('cuts a huge text and still reads it quickly, whatever its words', () => {
    const blob = 'A'.repeat(1_000_000) + ' x.py:3 ' + 'a.'.repeat(200_000);
    const started = Date.now();
    const task = parseTaskText(blob);
    expect(task.truncated).toBe(true);
    expect(task.text.length).toBe(200_000);
    // A bound far above the real cost (a few ms): what it guards against is a regular expression's quadratic blow-up.
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('finds nothing in punctuation alone', () => {
    expect(parseTaskText('!!! ??? ... --- ***').anchors).toEqual([]);
  });
});

describe('normalising what an anchor names', () => {
  it.each([
    ['…/_io/saferepr.py', '_io/saferepr.py'],
    ['./src/a.ts', 'src/a.ts'],
    ['C:\\proj\\lib\\x.py', 'proj/lib/x.py'],
    ['/usr/lib/node_modules/express/lib/router/index.js', 'express/lib/router/index.js'],
    ['file:///srv/a.mjs', 'srv/a.mjs'],
  ])('path %s -> %s', (raw, expected) => expect(normalisePath(raw)).toBe(expected));

  it.each([
    ['Foo::bar', 'Foo.bar'],
    ['Foo#bar', 'Foo.bar'],
    ['foo()', 'foo'],
    ['@dataclass', 'dataclass'],
  ])('name %s -> %s', (raw, expected) => expect(normaliseName(raw)).toBe(expected));
});
