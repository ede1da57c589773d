import { describe, expect, it } from 'vitest';
import { braceDefs, defLanguageOf, definitions, maskCode, type BraceLanguage } from './defs.js';

/** Each definition as `kind qualname start-end@line`. */
function outline(text: string, lang: BraceLanguage): string[] {
  return braceDefs(text, lang).map((d) => `${d.kind} ${d.qualname} ${d.start}-${d.end}@${d.line}`);
}

const src = (...lines: string[]): string => lines.join('\n');

interface Case {
  name: string;
  text: string;
  defs: string[];
}

const RUST: Case[] = [
  {
    name: 'functions in an impl, named by its self type, with attributes, generics and a where clause',
    text: src(
      'pub struct Foo<T> {', //                          1
      '    x: T,', //                                    2
      '}', //                                            3
      '#[cfg(test)]', //                                 4
      "impl<'a, T: Into<String>> Display for Foo<T> where T: Fn() -> u8 {", // 5
      '    #[inline]', //                                6
      '    pub(crate) fn fmt(&self, f: &mut Formatter<\'_>) -> Result<(), Error> {', // 7
      '        write!(f, "{}", self.x)', //              8
      '    }', //                                        9
      '}', //                                           10
    ),
    defs: ['struct Foo 1-3@1', 'impl Foo 4-10@5', 'fn Foo.fmt 6-9@7'],
  },
  {
    name: 'braces in strings, raw strings, byte strings, chars and comments are not code; lifetimes are not chars',
    text: src(
      'fn a<\'a>(s: &\'a str) -> char {', //          1
      '    let x = "}{"; let r = r#"} "{ "#;', //      2
      "    let c = '{'; let b = b'}'; let e = '\\'';", // 3
      '    /* } /* nested { */ } */ // }', //           4
      "    'outer: loop { break 'outer; }", //          5
      "    '}'", //                                     6
      '}', //                                           7
      'fn b() {}', //                                   8
    ),
    defs: ['fn a 1-7@1', 'fn b 8-8@8'],
  },
  {
    name: 'traits with signatures ending in `;`, unit and tuple structs, enums, modules and macro_rules (opaque)',
    text: src(
      'pub trait Tr: Send {', //                        1
      '    fn req(&self) -> u8;', //                    2
      '    fn dflt(&self) { }', //                      3
      '}', //                                           4
      'struct Unit;', //                                5
      'pub struct Pair(u8, u8);', //                    6
      'enum E { A { x: u8 }, B }', //                   7
      'mod inner {', //                                 8
      '    macro_rules! m {', //                        9
      '        ($t:ty) => { impl $t { fn f() {} } };', // 10
      '    }', //                                      11
      '}', //                                          12
    ),
    defs: ['trait Tr 1-4@1', 'fn Tr.req 2-2@2', 'fn Tr.dflt 3-3@3', 'struct Unit 5-5@5', 'struct Pair 6-6@6', 'enum E 7-7@7', 'mod inner 8-12@8', 'macro inner.m 9-11@9'],
  },
  {
    name: 'a function nested in a function, and closures that are not definitions',
    text: src('fn outer() {', '    let f = |x| { x + 1 };', '    fn inner() -> impl Iterator<Item = u8> {', '        std::iter::empty()', '    }', '}'),
    defs: ['fn outer 1-6@1', 'fn outer.inner 3-5@3'],
  },
];

const JAVA: Case[] = [
  {
    name: 'classes, constructors, generic methods, annotations and throws clauses',
    text: src(
      'package p;', //                                        1
      '@Deprecated', //                                       2
      'public final class Box<T extends Comparable<T>> implements Cloneable {', // 3
      '  private final Map<String, List<T>> m = new HashMap<>();', // 4
      '  public Box(T t) { this.t = t; }', //                  5
      '  @Override', //                                       6
      '  @SuppressWarnings("unchecked")', //                 7
      '  public <K, V> Map<K, V> get(Class<K> k) throws IOException, X {', // 8
      '    if (k == null) { throw new IOException("}"); }', // 9
      '    return null;', //                                 10
      '  }', //                                              11
      '  static { init(); }', //                             12
      '}', //                                                13
    ),
    defs: ['class Box 2-13@3', 'method Box.Box 5-5@5', 'method Box.get 6-11@8'],
  },
  {
    name: 'nested and anonymous classes, lambdas, interfaces with abstract methods, annotation members',
    text: src(
      'class Outer {', //                                   1
      '  static class Inner {', //                          2
      '    void run() {', //                                3
      '      Runnable r = () -> { go(); };', //             4
      '      new Thread(new Runnable() {', //               5
      '        public void run() { }', //                   6
      '      }).start();', //                               7
      '    }', //                                           8
      '  }', //                                             9
      '  interface Api { String name(); default int n() { return 1; } }', // 10
      '  @interface Ann { String value() default "{"; }', // 11
      '}', //                                              12
    ),
    defs: [
      'class Outer 1-12@1',
      'class Outer.Inner 2-9@2',
      'method Outer.Inner.run 3-8@3',
      'method Outer.Inner.run.run 6-6@6',
      'interface Outer.Api 10-10@10',
      'method Outer.Api.name 10-10@10',
      'method Outer.Api.n 10-10@10',
      'annotation Outer.Ann 11-11@11',
      'method Outer.Ann.value 11-11@11',
    ],
  },
  {
    name: "an enum's constants (with bodies) are not methods; its methods after the `;` are; text blocks and chars",
    text: src(
      'enum Op {', //                                       1
      '  PLUS("+") { int apply(int a) { return a; } },', // 2
      '  MINUS(\'{\');', //                                  3
      '  String s = """', //                                4
      '    } {', //                                         5
      '    """;', //                                        6
      '  Op(String s) { }', //                              7
      '}', //                                               8
    ),
    defs: ['enum Op 1-8@1', 'method Op.apply 2-2@2', 'method Op.Op 7-7@7'],
  },
];

const JS: Case[] = [
  {
    name: 'declarations, classes and their methods, getters, static, async, generators and #private',
    text: src(
      'export default function main(a, { b, c } = {}) {', // 1
      '  return a', //                                     2
      '}', //                                              3
      'class Dayjs extends Base {', //                     4
      '  constructor(cfg) { super(cfg) }', //              5
      '  get year() { return this.$y }', //                6
      '  static async *gen() { yield 1 }', //              7
      '  #hidden() { }', //                                8
      '  handle = () => { this.x() }', //                  9
      '}', //                                             10
    ),
    defs: [
      'function main 1-3@1',
      'class Dayjs 4-10@4',
      'method Dayjs.constructor 5-5@5',
      'method Dayjs.year 6-6@6',
      'method Dayjs.gen 7-7@7',
      'method Dayjs.#hidden 8-8@8',
      'method Dayjs.handle 9-9@9',
    ],
  },
  {
    name: 'function values bound to names, prototypes and object-literal keys; module.exports names nothing',
    text: src(
      'const f = async (x) => {', //                       1
      '  return x', //                                     2
      '}', //                                              3
      'proto.format = function (fmt) { return fmt }', //   4
      'Foo.prototype.bar = function named() {}', //        5
      'module.exports = function () {}', //                6
      'const api = {', //                                  7
      '  get(url) { return url },', //                     8
      '  post: function () {},', //                        9
      '  ordinal: n => `${n}.`,', //                      10
      '}', //                                             11
      'foo(function cb() { })', //                        12
      'foo(() => { })', //                                13
    ),
    // an object literal is no definition (its methods and keyed functions are)
    defs: ['function f 1-3@1', 'function format 4-4@4', 'method Foo.bar 5-5@5', 'method get 8-8@8', 'function post 9-9@9', 'function ordinal 10-10@10', 'function cb 12-12@12'],
  },
  {
    name: 'braces in strings, comments, template literals (nested) and regular expressions are not code',
    text: src(
      "const s = '}' + \"{\" // }", //                      1
      'const t = `a ${ `b ${ {x: 1}.x }` } }` /* { */', // 2
      'const re = /[}{]/g, d = 4 / 2 / 1', //               3
      'function g(x) {', //                                4
      '  if (/}/.test(x)) return x.replace(/\\//g, "{")', // 5
      '  return x', //                                     6
      '}', //                                              7
    ),
    defs: ['function g 4-7@4'],
  },
  {
    name: 'an arrow with an expression body ends where its statement ends, over lines it continues',
    text: src(
      'const a = (x) =>', //                               1
      '  x', //                                            2
      '    .map((y) => y)', //                             3
      '    .filter(Boolean)', //                           4
      'const b = 1', //                                    5
      'const c = (x) => x; function d() {}', //            6
    ),
    defs: ['function a 1-4@1', 'function c 6-6@6', 'function d 6-6@6'],
  },
];

JS.push({
  name: 'a method may be named like an operator (`delete`), a statement never opens one (`if`, `switch`, `catch`)',
  text: src('class H {', '  delete(key) {', '    if (key) { switch (key) { default: } }', '    try { } catch (e) { }', '  }', '}'),
  defs: ['class H 1-6@1', 'method H.delete 2-5@2'],
});

const TS: Case[] = [
  {
    name: 'interfaces, type aliases, enums, classes with signatures, overloads and generics',
    text: src(
      'export interface Config<T = any, D = any> {', //     1
      '  url?: string;', //                                2
      '  cb: (err: Error) => void;', //                    3
      '  get(key: string): T;', //                         4
      '}', //                                              5
      'type Parser = (v: string) => any;', //              6
      'export type Opts = {', //                           7
      '  a: number', //                                    8
      '}', //                                              9
      'export enum Code { Ok = 200 }', //                 10
      'export class Axios {', //                          11
      '  constructor(config?: Config);', //               12
      '  request<T = any, R = Response<T>>(config: Config<T>): Promise<R>;', // 13
      '}', //                                             14
      'export function all<T>(values: Array<T>): Promise<T[]>;', // 15
    ),
    defs: [
      'interface Config 1-5@1',
      'method Config.get 4-4@4',
      'type Parser 6-6@6',
      'type Opts 7-9@7',
      'enum Code 10-10@10',
      'class Axios 11-14@11',
      'method Axios.constructor 12-12@12',
      'method Axios.request 13-13@13',
      'function all 15-15@15',
    ],
  },
];

TS.push({
  name: 'a declaration without `;` does not swallow the namespace after it (its own signature is not read)',
  text: src('declare function dayjs (date?: string): dayjs.Dayjs', '', 'declare namespace dayjs {', '  class Dayjs {', '    clone(): Dayjs;', '  }', '}'),
  defs: ['namespace dayjs 3-7@3', 'class dayjs.Dayjs 4-6@4', 'method dayjs.Dayjs.clone 5-5@5'],
});

const GO: Case[] = [
  {
    name: 'functions, methods on value and pointer receivers (generic too), structs and interfaces, a type group',
    text: src(
      'package p', //                                      1
      '', //                                               2
      'var ErrX = errors.New("}")', //                     3
      '// Server serves.', //                              4
      'type Server struct {', //                           5
      '\tmu sync.Mutex', //                                6
      '\tcfg struct{ a int }', //                          7
      '}', //                                              8
      'func (s *Server) Serve(l net.Listener) (err error) {', // 9
      '\tgo func() { s.mu.Lock() }()', //                 10
      '\treturn nil', //                                  11
      '}', //                                             12
      'func (l List[T]) Len() int { return len(l) }', //  13
      'func Map[K comparable, V any](m map[K]V) []V {', // 14
      '\treturn nil', //                                  15
      '}', //                                             16
      'type (', //                                        17
      '\tA interface { M() }', //                         18
      '\tB struct{}', //                                  19
      ')', //                                             20
    ),
    defs: ['struct Server 5-8@5', 'method Server.Serve 9-12@9', 'method List.Len 13-13@13', 'func Map 14-16@14', 'interface A 18-18@18', 'struct B 19-19@19'],
  },
  {
    name: 'braces in raw strings, runes and comments are not code',
    text: src('func f() string {', '\tr := \'{\'', '\t/* } */ s := `}', '{`', '\treturn s // }', '}', 'func g() {}'),
    defs: ['func f 1-6@1', 'func g 7-7@7'],
  },
];

const TABLES: Array<[BraceLanguage, Case[]]> = [
  ['rust', RUST],
  ['java', JAVA],
  ['javascript', JS],
  ['typescript', TS],
  ['go', GO],
];

for (const [lang, cases] of TABLES) {
  describe(`definition finder: ${lang}`, () => {
    it.each(cases)('$name', ({ text, defs }) => {
      expect(outline(text, lang)).toEqual(defs);
    });
  });
}

describe('definition finder: masking and dispatch', () => {
  it('blanks comments to spaces and literals to zeros, keeping every offset and newline', () => {
    const text = 'let s = "a}\\"b"; // c }\nlet t = 1;';
    const m = maskCode(text, 'rust');
    expect(m).toHaveLength(text.length);
    expect(m).toBe('let s = 0000000; ' + ' '.repeat(6) + '\nlet t = 1;');
  });

  it('reads a JS `/` as division after a name, a number or `)`, and as a regular expression after an operator', () => {
    expect(maskCode('a = b / c / d', 'javascript')).toBe('a = b / c / d');
    expect(maskCode('a = (b) / c / d', 'javascript')).toBe('a = (b) / c / d');
    expect(maskCode('a = x(/}/)', 'javascript')).toBe('a = x(000)');
    expect(maskCode('return /a/.test(b)', 'javascript')).toBe('return 000.test(b)');
  });

  it('picks the finder by extension, Python included', () => {
    expect(['a.py', 'a.rs', 'A.java', 'a.mjs', 'index.d.ts', 'a.go', 'a.c', 'README.md'].map(defLanguageOf)).toEqual(['python', 'rust', 'java', 'javascript', 'typescript', 'go', undefined, undefined]);
    expect(definitions('class A:\n    def f(self):\n        pass\n', 'python').map((d) => `${d.kind} ${d.qualname} ${d.start}-${d.end}@${d.line}`)).toEqual(['class A 1-3@1', 'def A.f 2-3@2']);
  });

  it('stays linear on a long minified line and on unbalanced brackets', () => {
    const minified = 'function a(){return 1}'.repeat(20_000);
    const t = performance.now();
    expect(braceDefs(minified, 'javascript')).toHaveLength(20_000);
    expect(performance.now() - t).toBeLessThan(5_000);
    expect(outline('}} fn a() { ( }\nfn b() {}', 'rust')).toEqual(['fn a 1-1@1', 'fn b 2-2@2']);
  });
});
