import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  accAtK,
  alignHunks,
  datasetSources,
  fromMultiSweBench,
  functionMetrics,
  goldFiles,
  goldFunctions,
  HELD_OUT_ISSUE_REPOS,
  isHeldOutRepo,
  issueHalves,
  issueLanguage,
  issueLevelsTable,
  issueRows,
  mergeInstances,
  parseDataset,
  PB_ISSUE_REPOS,
  POLYBENCH_LOCAL_DATA,
  parsePatch,
  pythonDefs,
  selectHeldOutIssueCases,
  selectIssueCases,
  symbolHits,
  touchedDefs,
  touchedLines,
  type IssueCaseResult,
  type IssueInstance,
} from './issues.js';

// A made-up patch: one source file changed in two places, a test file, a doc page, and an added module.
const PATCH = [
  'diff --git a/pkg/core.py b/pkg/core.py',
  '--- a/pkg/core.py',
  '+++ b/pkg/core.py',
  '@@ -4,7 +4,7 @@ class Box:',
  '     def __init__(self, size):',
  '         self.size = size',
  ' ',
  '-    def area(self):',
  '+    def area(self, scale=1):',
  '         return self.size * self.size',
  ' ',
  ' ',
  '@@ -14,4 +14,6 @@ def helper(x):',
  '     if x:',
  '         return 1',
  '+    if x is None:',
  '+        return None',
  '     return 0',
  ' ',
  'diff --git a/pkg/tests/test_core.py b/pkg/tests/test_core.py',
  '--- a/pkg/tests/test_core.py',
  '+++ b/pkg/tests/test_core.py',
  '@@ -1,1 +1,2 @@',
  ' import pkg',
  '+import pytest',
  'diff --git a/docs/index.rst b/docs/index.rst',
  '--- a/docs/index.rst',
  '+++ b/docs/index.rst',
  '@@ -1 +1 @@',
  '-Old',
  '+New',
  'diff --git a/pkg/new.py b/pkg/new.py',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/pkg/new.py',
  '@@ -0,0 +1,2 @@',
  '+def fresh():',
  '+    return 1',
  '',
].join('\n');

// pkg/core.py at the base (the lines the hunks above name).
const CORE = [
  'import os', //                         1
  '', //                                  2
  'class Box:', //                        3
  '    def __init__(self, size):', //     4
  '        self.size = size', //          5
  '', //                                  6
  '    def area(self):', //               7
  '        return self.size * self.size', // 8
  '', //                                  9
  '', //                                 10
  '@cache', //                           11
  'def helper(x):', //                   12
  '    """Doc."""', //                  13
  '    if x:', //                        14 (these three lines are what the second hunk shows)
  '        return 1', //                 15
  '    return 0', //                     16
  '', //                                 17
].join('\n');

describe('issue set: gold files from a unified diff', () => {
  it('keeps modified source files, drops tests, docs and files the patch adds', () => {
    expect(goldFiles(PATCH)).toEqual(['pkg/core.py']);
  });

  it('reads each file, its hunks and added / deleted markers', () => {
    const files = parsePatch(PATCH);
    expect(files.map((f) => [f.oldPath, f.newPath, f.hunks.length])).toEqual([
      ['pkg/core.py', 'pkg/core.py', 2],
      ['pkg/tests/test_core.py', 'pkg/tests/test_core.py', 1],
      ['docs/index.rst', 'docs/index.rst', 1],
      [null, 'pkg/new.py', 1],
    ]);
    const deleted = parsePatch('diff --git a/m.py b/m.py\ndeleted file mode 100644\n--- a/m.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n');
    expect(deleted[0]).toMatchObject({ oldPath: 'm.py', newPath: null });
    expect(goldFiles('diff --git a/m.py b/m.py\ndeleted file mode 100644\n--- a/m.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n')).toEqual(['m.py']);
  });

  it('moves a hunk whose stated line is off to where its old side is (a patch that applies with an offset)', () => {
    const core = parsePatch(PATCH)[0];
    const shifted = `# licence\n# header\n${CORE}`;
    const moved = alignHunks(shifted, core?.hunks ?? []);
    expect(moved.map((h) => h.oldStart)).toEqual([6, 16]);
    expect(touchedDefs(shifted, touchedLines(moved)).map((d) => d.qualname)).toEqual(['Box.area', 'helper']);
    expect(alignHunks(CORE, core?.hunks ?? []).map((h) => h.oldStart)).toEqual([4, 14]);
  });

  it('numbers removed lines and insertion points at the base', () => {
    const core = parsePatch(PATCH)[0];
    expect(touchedLines(core?.hunks ?? [])).toEqual({ removed: [7], insertions: [{ after: 15, indent: 4 }] });
  });
});

describe('issue set: touched functions', () => {
  it('finds defs and classes by indentation, with decorators, docstrings and brackets', () => {
    const text = [
      'class A:', //                 1
      '    x = (1,', //              2
      '0)', //                       3  continuation at column 0 stays inside A
      '    @property', //            4
      '    def f(self):', //         5
      '        """', //              6
      'text at column 0', //         7  docstring line stays inside f
      '        """', //              8
      '        return 1', //         9
      '# a comment at column 0', // 10
      '        return 2', //        11
      '', //                        12
      'async def g():', //          13
      '    def inner():', //        14
      '        pass', //            15
      '    return inner', //        16
    ].join('\n');
    expect(pythonDefs(text).map((d) => [d.qualname, d.kind, d.start, d.line, d.end])).toEqual([
      ['A', 'class', 1, 1, 11],
      ['A.f', 'def', 4, 5, 11],
      ['g', 'def', 13, 13, 16],
      ['g.inner', 'def', 14, 14, 15],
    ]);
  });

  it('takes the innermost definition of each changed line, and the open one of each insertion', () => {
    const core = parsePatch(PATCH)[0];
    const defs = touchedDefs(CORE, touchedLines(core?.hunks ?? []));
    expect(defs.map((d) => d.qualname)).toEqual(['Box.area', 'helper']);
    expect(goldFunctions(PATCH, (p) => (p === 'pkg/core.py' ? CORE : undefined))).toEqual([
      { file: 'pkg/core.py', name: 'area', qualname: 'Box.area', kind: 'def', line: 7 },
      { file: 'pkg/core.py', name: 'helper', qualname: 'helper', kind: 'def', line: 12 },
    ]);
  });

  it('gives a new method to its class and module-level edits to no definition', () => {
    const text = ['import os', '', 'class C:', '    def a(self):', '        return 1', '', 'X = 1', ''].join('\n');
    // a method inserted after line 5 (indent 4): inside C, not inside a (indent 4 is not deeper than a's)
    expect(touchedDefs(text, { removed: [], insertions: [{ after: 5, indent: 4 }] }).map((d) => d.qualname)).toEqual(['C']);
    // a statement appended to a's body after line 5 (indent 8)
    expect(touchedDefs(text, { removed: [], insertions: [{ after: 5, indent: 8 }] }).map((d) => d.qualname)).toEqual(['C.a']);
    // changing X = 1, or the import
    expect(touchedDefs(text, { removed: [1, 7], insertions: [] })).toEqual([]);
  });
});

describe('issue set: metrics', () => {
  it('Acc@k needs every gold file in the top k', () => {
    expect(accAtK(['a', 'b', 'c'], ['a', 'c'], 2)).toBe(0);
    expect(accAtK(['a', 'b', 'c'], ['a', 'c'], 3)).toBe(1);
  });

  it('a ranked symbol hits a gold function by file, name and the def line within its lines', () => {
    const gold = [{ file: 'f.py', name: 'area', qualname: 'Box.area', kind: 'def' as const, line: 7 }];
    const sym = (file: string, name: string, start: number, end: number) => ({ file, name, ast_path: name, start_line: start, end_line: end });
    expect(functionMetrics([sym('f.py', 'Box', 3, 9), sym('f.py', 'area', 7, 8)], gold)).toEqual({ fnAcc1: 0, fnAcc5: 1, fnAcc10: 1, fnR10: 1 });
    expect(functionMetrics([sym('f.py', 'area', 7, 8)], gold).fnAcc1).toBe(1);
    expect(functionMetrics([sym('g.py', 'area', 7, 8)], gold).fnAcc10).toBe(0);
    expect(functionMetrics([sym('f.py', 'area', 20, 24)], gold).fnAcc10).toBe(0);
  });

  it("a Rust impl block is hit by its span, or by its type's definition in the same file; nothing else is", () => {
    const impl = { file: 'src/a.rs', name: 'Sink', qualname: 'Sink', kind: 'impl', line: 40 };
    const sym = (file: string, name: string, start: number, end: number, kind?: string) => ({ file, name, ast_path: name, start_line: start, end_line: end, ...(kind ? { kind } : {}) });
    expect(symbolHits(sym('src/a.rs', 'Sink', 40, 90, 'impl'), impl)).toBe(true);
    expect(symbolHits(sym('src/a.rs', 'Sink', 10, 20, 'struct'), impl)).toBe(true);
    expect(symbolHits(sym('src/b.rs', 'Sink', 10, 20, 'struct'), impl)).toBe(false);
    expect(symbolHits(sym('src/a.rs', 'Sink', 41, 45, 'method'), impl)).toBe(false);
    expect(symbolHits(sym('src/a.rs', 'Sink', 10, 20, 'struct'), { ...impl, kind: 'fn' })).toBe(false);
  });
});

describe('issue set: gold functions in the brace languages', () => {
  const diff = (path: string, oldStart: number, body: string[]): string =>
    [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`, `@@ -${oldStart},${body.filter((l) => l[0] !== '+').length} +${oldStart},${body.filter((l) => l[0] !== '-').length} @@`, ...body, ''].join('\n');
  const gold = (path: string, base: string, oldStart: number, body: string[]): string[] =>
    goldFunctions(diff(path, oldStart, body), (p) => (p === path ? base : undefined)).map((g) => `${g.qualname}@${g.line} ${g.kind}`);

  const RUST_BASE = ['struct Sink { n: u8 }', 'impl Sink {', '    fn matched(&self) -> bool {', '        true', '    }', '}', ''].join('\n');
  const JAVA_BASE = ['class A {', '  int n;', '  void f() {', '    n++;', '  }', '}', ''].join('\n');
  const GO_BASE = ['package p', '', 'func (s *S) Serve() {', '\treturn', '}', ''].join('\n');
  const JS_BASE = ['const f = (x) => {', '  return x', '}', 'const g = 1', ''].join('\n');

  it.each([
    ['a changed line in a Rust method', 'src/a.rs', RUST_BASE, 3, ['     fn matched(&self) -> bool {', '-        true', '+        false', '     }'], ['Sink.matched@3 fn']],
    ['a new Rust method goes to its impl', 'src/a.rs', RUST_BASE, 5, ['     }', '+    fn more(&self) {}', ' }'], ['Sink@2 impl']],
    ['a Rust struct field changed', 'src/a.rs', RUST_BASE, 1, ['-struct Sink { n: u8 }', '+struct Sink { n: u16 }'], ['Sink@1 struct']],
    ['a new Java field goes to its class', 'src/A.java', JAVA_BASE, 2, ['   int n;', '+  int m;', '   void f() {'], ['A@1 class']],
    ['a Java method body', 'src/A.java', JAVA_BASE, 4, ['-    n++;', '+    n--;'], ['A.f@3 method']],
    ['an inserted comment alone touches nothing', 'src/A.java', JAVA_BASE, 4, ['     n++;', '+    // why', '   }'], []],
    ['a Go method', 'p/s.go', GO_BASE, 4, ['-\treturn', '+\treturn // done'], ['S.Serve@3 method']],
    ['a new top-level Go function touches no definition', 'p/s.go', GO_BASE, 5, [' }', '+func New() *S { return nil }'], []],
    ['a JS arrow function bound to a const', 'lib/f.js', JS_BASE, 2, ['-  return x', '+  return x + 1'], ['f@1 function']],
    ['a JS module-level statement touches no definition', 'lib/f.js', JS_BASE, 4, ['-const g = 1', '+const g = 2'], []],
  ])('%s', (_name, path, base, oldStart, body, want) => {
    expect(gold(path, base, oldStart, body)).toEqual(want);
  });
});

describe('issue set: case selection', () => {
  const inst = (repo: string, n: number): IssueInstance => ({
    instance_id: `${repo.replace('/', '__')}-${n}`,
    repo,
    base_commit: 'abc',
    problem_statement: 'x',
    patch: '',
  });

  it('reads a JSON array or JSON lines, and merges copies by instance_id', () => {
    const a = inst('sympy/sympy', 1);
    expect(parseDataset(JSON.stringify([a, { instance_id: 'no-patch' }]))).toEqual([a]);
    expect(parseDataset(`${JSON.stringify(a)}\n\n${JSON.stringify(inst('sympy/sympy', 2))}\n`)).toHaveLength(2);
    expect(mergeInstances([[a], [{ ...a, patch: 'other' }, inst('sympy/sympy', 3)]]).map((i) => [i.instance_id, i.patch])).toEqual([
      ['sympy__sympy-1', ''],
      ['sympy__sympy-3', ''],
    ]);
  });

  it('never selects a held-out repository, and caps each repository deterministically', () => {
    const all = [
      ...Array.from({ length: 10 }, (_, n) => inst('sympy/sympy', n)),
      ...Array.from({ length: 3 }, (_, n) => inst('astropy/astropy', n)),
      inst('psf/requests', 1),
      inst('pytest-dev/pytest', 1),
      inst('pallets/flask', 1),
      inst('sphinx-doc/sphinx', 1),
    ];
    const picked = selectIssueCases(all, 4);
    expect(picked.filter((i) => i.repo === 'sympy/sympy')).toHaveLength(4);
    expect(picked.filter((i) => i.repo === 'astropy/astropy')).toHaveLength(3);
    expect(picked.some((i) => isHeldOutRepo(i.repo))).toBe(false);
    // even when asked for explicitly
    expect(selectIssueCases(all, 4, ['psf/requests', 'pallets/flask'])).toEqual([]);
    // the same choice in any input order
    expect(selectIssueCases([...all].reverse(), 4).map((i) => i.instance_id).sort()).toEqual(picked.map((i) => i.instance_id).sort());
    for (const r of ['psf/requests', 'pytest-dev/pytest', 'pylint-dev/pylint', 'sphinx-doc/sphinx', 'mwaskom/seaborn', 'pydata/xarray', 'pallets/flask', 'colinhacks/zod', 'encode/httpx', 'gin-gonic/gin']) {
      expect(isHeldOutRepo(r)).toBe(true);
    }
    expect(isHeldOutRepo('django/django')).toBe(false);
  });

  it("reads the held-out repositories' cases only for their own report, and only theirs", () => {
    const all = [
      ...Array.from({ length: 3 }, (_, n) => inst('sympy/sympy', n)),
      ...Array.from({ length: 5 }, (_, n) => inst('pytest-dev/pytest', n)),
      inst('psf/requests', 1),
      inst('encode/httpx', 1),
    ];
    const report = selectHeldOutIssueCases(all, 4);
    expect(report.map((i) => i.repo)).toEqual(['psf/requests', ...Array(4).fill('pytest-dev/pytest')]);
    expect(report.every((i) => isHeldOutRepo(i.repo))).toBe(true);
    // the Python repositories of issue 20's measurement: httpx is held out, but not in SWE-bench
    expect(HELD_OUT_ISSUE_REPOS.every(isHeldOutRepo)).toBe(true);
    expect(report.some((i) => i.repo === 'encode/httpx')).toBe(false);
  });
});

describe('issue set: Multi-SWE-bench rows and languages', () => {
  const row = {
    org: 'fasterxml',
    repo: 'jackson-core',
    number: 980,
    title: 'Fix the number check (the pull request: never the query)',
    body: 'Fixes #973',
    base: { label: 'fasterxml:2.15', ref: '2.15', sha: 'b0f217a' },
    resolved_issues: [
      { number: 973, title: 'Too long numbers are not rejected', body: 'Parsing `1e99999` gives Infinity.' },
      { number: 974, title: 'Second report', body: '' },
    ],
    fix_patch: 'diff --git a/src/main/java/A.java b/src/main/java/A.java\n',
    test_patch: 'diff --git a/src/test/java/ATest.java b/src/test/java/ATest.java\n',
    instance_id: 'fasterxml__jackson-core-980',
  };

  it('maps a row to an instance: the resolved issues are the text, fix_patch the patch, base.sha the commit', () => {
    expect(fromMultiSweBench(row)).toEqual({
      instance_id: 'fasterxml__jackson-core-980',
      repo: 'fasterxml/jackson-core',
      base_commit: 'b0f217a',
      problem_statement: 'Too long numbers are not rejected\n\nParsing `1e99999` gives Infinity.\n\nSecond report',
      patch: row.fix_patch,
    });
    const { instance_id: _omit, ...noId } = row;
    expect(fromMultiSweBench(noId)?.instance_id).toBe('fasterxml__jackson-core-980');
    expect(fromMultiSweBench({ ...row, resolved_issues: [] })).toBeUndefined();
    expect(fromMultiSweBench({ ...row, base: {} })).toBeUndefined();
    // parseDataset reads both formats, line by line
    const swe = { instance_id: 'sympy__sympy-1', repo: 'sympy/sympy', base_commit: 'a', problem_statement: 'x', patch: '' };
    expect(parseDataset(`${JSON.stringify(swe)}\n${JSON.stringify(row)}\n`).map((i) => i.repo)).toEqual(['sympy/sympy', 'fasterxml/jackson-core']);
  });

  it('matches repositories without regard to case and gives the listed spelling; languages per repository', () => {
    const i = fromMultiSweBench(row) as IssueInstance;
    expect(selectIssueCases([i], 6, ['FasterXML/jackson-core']).map((c) => c.repo)).toEqual(['FasterXML/jackson-core']);
    expect(issueLanguage('FasterXML/jackson-core')).toBe('java');
    expect(issueLanguage('fasterxml/JACKSON-core')).toBe('java');
    expect(issueLanguage('tokio-rs/tokio')).toBe('rust');
    expect(issueLanguage('iamkun/dayjs')).toBe('javascript');
    expect(issueLanguage('grpc/grpc-go')).toBe('go');
    expect(issueLanguage('sympy/sympy')).toBe('python');
    // held out stays held out in any language
    expect(selectIssueCases([{ ...i, repo: 'gin-gonic/gin' }], 6, ['gin-gonic/gin'])).toEqual([]);
  });

  it('draws the Python halves as before: the Multi-SWE-bench instances are split on their own', () => {
    const py = Array.from({ length: 12 }, (_, n): IssueInstance => ({ instance_id: `sympy__sympy-${n}`, repo: 'sympy/sympy', base_commit: 'a', problem_statement: 'x', patch: '' }));
    const ml = Array.from({ length: 9 }, (_, n): IssueInstance => ({ instance_id: `tokio-rs__tokio-${n}`, repo: 'tokio-rs/tokio', base_commit: 'a', problem_statement: 'x', patch: '' }));
    const alone = issueHalves(py);
    const both = issueHalves([...ml, ...py]);
    for (const i of py) expect(both.get(i.instance_id)).toBe(alone.get(i.instance_id));
    const mlHalves = ml.map((i) => both.get(i.instance_id));
    expect(mlHalves.filter((h) => h === 'tune')).toHaveLength(5);
    expect(mlHalves.filter((h) => h === 'holdout')).toHaveLength(4);
  });

  it('reports each language and its halves when there is more than one language', () => {
    const res = (repo: string, language: string, half: 'tune' | 'holdout', acc1: number, answers = ['a']): IssueCaseResult => ({
      set: 'issues', ranker: 'bm25', repo, language, half, commit: `${repo}-${half}-${acc1}`, base_commit: 'a', answers,
      r1: acc1, r5: acc1, r10: acc1, rr: acc1, firstRank: acc1 ? 1 : null, acc1, acc5: acc1, acc10: acc1, gold_functions: [], top10: [],
    });
    const rows = issueRows(['bm25'], [res('sympy', 'python', 'tune', 1), res('tokio', 'rust', 'tune', 0, ['a', 'b']), res('tokio', 'rust', 'holdout', 1)]);
    expect(rows.map((r) => [r.group, r.cases, r.acc1])).toEqual([
      ['sympy', 1, 1],
      ['tokio', 2, 0.5],
      ['lang: python', 1, 1],
      ['lang: python, tune', 1, 1],
      ['lang: rust', 2, 0.5],
      ['lang: rust, tune', 1, 0],
      ['lang: rust, held out', 1, 1],
      ['half: tune', 2, 0.5],
      ['half: held out', 1, 1],
      // Fixes of one file, as SWE-bench Lite keeps: tokio's two-file tuning case is not one.
      ['tune, one gold file', 1, 1],
      ['held out, one gold file', 1, 1],
      ['overall', 3, 2 / 3],
    ]);
    expect(issueRows(['bm25'], [res('sympy', 'python', 'tune', 1)]).map((r) => r.group)).toEqual(['sympy', 'half: tune', 'tune, one gold file', 'overall']);
  });

  it('puts files and definitions side by side per language and half, fn over the cases with gold definitions only', () => {
    const res = (ranker: string, language: string, half: 'tune' | 'holdout', acc: number, fn?: number): IssueCaseResult => ({
      set: 'issues', ranker, repo: language, language, half, commit: `${language}-${half}`, base_commit: 'a', answers: ['a'],
      r1: acc, r5: acc, r10: acc, rr: acc, firstRank: acc ? 1 : null, acc1: acc, acc5: acc, acc10: acc, gold_functions: [], top10: [],
      ...(fn === undefined ? {} : { fn: { fnAcc1: 0, fnAcc5: fn, fnAcc10: fn, fnR10: fn } }),
    });
    const results = [
      res('bm25', 'go', 'tune', 1), res('bm25', 'go', 'holdout', 0), res('bm25', 'java', 'tune', 1),
      res('bm25fn', 'go', 'tune', 0, 1), res('bm25fn', 'go', 'holdout', 1), res('bm25fn', 'java', 'tune', 1, 0),
    ];
    const table = issueLevelsTable(issueRows(['bm25', 'bm25fn'], results)).split('\n');
    expect(table[0]).toBe('| group | cases | bm25 files | bm25fn files | bm25fn fn (cases) |');
    expect(table.slice(2)).toEqual([
      '| go | 2 | .500 / .500 / .500 | .500 / .500 / .500 | .000 / 1.000 / 1.000 (1) |',
      '| go, tune | 1 | 1.000 / 1.000 / 1.000 | .000 / .000 / .000 | .000 / 1.000 / 1.000 (1) |',
      '| go, held out | 1 | .000 / .000 / .000 | 1.000 / 1.000 / 1.000 | - |',
      '| java | 1 | 1.000 / 1.000 / 1.000 | 1.000 / 1.000 / 1.000 | .000 / .000 / .000 (1) |',
      '| java, tune | 1 | 1.000 / 1.000 / 1.000 | 1.000 / 1.000 / 1.000 | .000 / .000 / .000 (1) |',
      '| tune | 2 | 1.000 / 1.000 / 1.000 | .500 / .500 / .500 | .000 / .500 / .500 (2) |',
      '| held out | 1 | .000 / .000 / .000 | 1.000 / 1.000 / 1.000 | - |',
      '| overall | 3 | .667 / .667 / .667 | .667 / .667 / .667 | .000 / .500 / .500 (2) |',
    ]);
  });
});

describe('issue set: the TypeScript group (SWE-PolyBench)', () => {
  // A row as the local copy holds it: SWE-bench's five fields and a few more (read past).
  const row = {
    instance_id: 'coder__code-server-6423',
    repo: 'coder/code-server',
    base_commit: '913fc3086678a9f265bdcb8ebbc68c1c199c33a7',
    problem_statement: '[Feat]: Set the host address with environment variable\n## What is your suggestion?\r\n',
    patch: 'diff --git a/src/node/cli.ts b/src/node/cli.ts\n--- a/src/node/cli.ts\n+++ b/src/node/cli.ts\n',
    fix_commit: 'a76e5241b',
    language: 'TypeScript',
    source: 'SWE-PolyBench',
  };
  const inst = (repo: string, n: number): IssueInstance => ({ instance_id: `${repo.replace('/', '__')}-${n}`, repo, base_commit: 'a', problem_statement: 'x', patch: '' });

  it('reads its rows as SWE-bench rows and gives its repositories the language typescript', () => {
    const [i] = parseDataset(`${JSON.stringify(row)}\n`);
    expect(i).toEqual({ instance_id: row.instance_id, repo: row.repo, base_commit: row.base_commit, problem_statement: row.problem_statement, patch: row.patch });
    expect(PB_ISSUE_REPOS.map((r) => r.repo)).toEqual(['coder/code-server']);
    expect(issueLanguage('coder/code-server')).toBe('typescript');
    expect(issueLanguage('Coder/Code-Server')).toBe('typescript');
    // held out stays held out: Multi-SWE-bench's TypeScript repositories never enter
    for (const r of ['vuejs/core', 'darkreader/darkreader', 'preactjs/preact', 'babel/babel', 'immutable-js/immutable-js']) expect(isHeldOutRepo(r)).toBe(true);
    expect(isHeldOutRepo('other/core')).toBe(false);
  });

  it('draws its halves on its own: adding the group moves no SWE-bench or Multi-SWE-bench case', () => {
    const py = Array.from({ length: 12 }, (_, n) => inst('sympy/sympy', n));
    const ml = Array.from({ length: 9 }, (_, n) => inst('tokio-rs/tokio', n));
    const ts = Array.from({ length: 7 }, (_, n) => inst('coder/code-server', n));
    const before = issueHalves([...py, ...ml]);
    const after = issueHalves([...ts, ...py, ...ml]);
    for (const i of [...py, ...ml]) expect(after.get(i.instance_id)).toBe(before.get(i.instance_id));
    const tsHalves = ts.map((i) => after.get(i.instance_id));
    expect(tsHalves.filter((h) => h === 'tune')).toHaveLength(4);
    expect(tsHalves.filter((h) => h === 'holdout')).toHaveLength(3);
    // capped like a Multi-SWE-bench repository, by SHA-256 of the id
    expect(selectIssueCases(ts, 6, PB_ISSUE_REPOS.map((r) => r.repo))).toHaveLength(6);
  });

  it('finds the local copy under the work folder, after the mirrors; a given file replaces both', () => {
    const work = mkdtempSync(join(tmpdir(), 'issues-local-'));
    try {
      const noMirror = (): string | undefined => undefined;
      expect(datasetSources(undefined, noMirror, {}, work)).toEqual([]);
      const file = join(work, POLYBENCH_LOCAL_DATA);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(row)}\n`);
      const found = datasetSources(undefined, noMirror, {}, work);
      expect(found).toHaveLength(1);
      expect(found[0]?.label).toContain('SWE-PolyBench TypeScript');
      expect(parseDataset(found[0]?.read() ?? '').map((i) => i.instance_id)).toEqual([row.instance_id]);
      // no mirror root at all: the local copy is still read
      const noRoot = (): string | undefined => {
        throw new Error('no mirror root');
      };
      expect(datasetSources(undefined, noRoot, {}, work)).toHaveLength(1);
      // --issues-data (or the environment variable) is read alone
      const given = join(work, 'given.jsonl');
      writeFileSync(given, '');
      expect(datasetSources(given, noMirror, {}, work).map((s) => s.label)).toEqual([given]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
