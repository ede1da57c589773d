/**
 * A task text (an issue report, a bug description, an agent's task) read for what points into the code: the
 * anchors. Files named by a stack frame or in the prose, names in backticks or code, dotted and qualified
 * names, command-line options and error classes are pointers into the symbol table and the paths, not ordinary
 * words; the rest of the text is prose, ranked by BM25F with weights fitted for long requests (taskRank.ts).
 *
 * Pure and linear in the text: no regular expression here backtracks over more than a line or a short token,
 * so a megabyte of pasted log is read in milliseconds.
 */
import type { Anchor, AnchorKind, AnchorSource } from './types.js';

export type { Anchor, AnchorKind, AnchorSource } from './types.js';

export interface TaskText {
  anchors: Anchor[];
  /** Whether the text reads as a task (long, or holding a stack trace or a code block) rather than a few keywords or a commit message. */
  isTask: boolean;
  /** The characters read; a longer text is cut there (`truncated`). */
  text: string;
  truncated: boolean;
}

/** A longer text is cut: the anchors and the words that matter come first in any report worth reading. */
export const MAX_TASK_CHARS = 200_000;
/**
 * A text of at least this many words is read as a task. A commit message's subject and first paragraph (bench/eval's
 * commit set) are mostly shorter, and are ranked as they always were.
 */
const TASK_WORDS = 50;

const CODE_EXTENSIONS =
  'py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|mts|cts|go|rs|java|kt|kts|scala|rb|php|c|h|cc|cpp|cxx|hpp|hh|cs|swift|m|mm|lua|sh|vue|svelte|ex|exs|erl|hs|ml|clj|dart|r|jl|pl|sql';
const CODE_FILE = new RegExp(`\\.(?:${CODE_EXTENSIONS})$`, 'i');
/** A path-like word, then an optional `:line[:col]`. */
const PATH_TOKEN = new RegExp(`^((?:[A-Za-z]:)?[\\w.@+~/\\\\-]*[A-Za-z_][\\w@+-]*\\.(?:${CODE_EXTENSIONS}))(:\\d+)?(?::\\d+)?$`);
const PYTHON_FRAME = /^\s*File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?/;
/** `at fn (file:line:col)`, `at file:line:col`, `at async Foo.bar (file:///x.mjs:1:2)`, Java's `at a.b.C.m(C.java:42)`. */
const AT_FRAME = /^\s*at (?:async )?(?:([\w$.<>[\]]+?)(?: \[as [\w$]+\])? ?\()?((?:file:\/\/)?[^\s()]+?)\)?\s*$/;
/** Go's `pkg/path.(*Type).Method(...)` and `pkg.Func(...)` lines of a goroutine dump. */
const GO_FUNC = /^([\w./-]*?)\.(?:\(\*?(\w+)\)\.)?(\w+)\([^)]*\)\s*$/;
/** Rust backtrace frames: `  3: crate::module::Type::method` (`::h1a2b…` hash suffixes dropped). */
const RUST_FRAME = /^\s*\d+: ((?:[\w<>{}]+::)+[\w<>{}]+?)(?:::h[0-9a-f]{16})?\s*$/;
const BACKTICK = /`([^`\n]{1,200})`/g;
const FENCE = /^(?:```|~~~)[^\n]*\n([\s\S]*?)^(?:```|~~~)\s*$/gm;
const DOTTED = /(?<![\w.$/\\-])[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)+(?:\(\))?(?![\w$/\\-]|\.[A-Za-z_$])/g;
const OPTION = /(?<![\w-])--([A-Za-z][\w]*(?:-[\w]+)*)(?![\w-])/g;
/** A word of the prose written as code: snake_case (`pretty_print`, `_print_helpers`) or with a capital inside (`MatrixSymbol`, `getValue`). */
const PROSE_IDENTIFIER = /(?<![\w.$/\\:#-])(?:_*[A-Za-z][A-Za-z0-9]*_\w*[A-Za-z0-9]\w*|[a-z][a-z0-9]*[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)(?![\w$/\\-]|\.[A-Za-z_$]|::|#)/g;
const ERROR_NAME = /(?:Error|Exception|Warning|Exit|Interrupt)$/;
const ERROR_CLASS = /(?<!\w)([A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Exit|Interrupt))(?![\w])/g;
/** Inside code: a name that is called or defined. */
const CALLED = /(?<![\w$])([A-Za-z_$][\w$]*)\s*\(/g;
const DEFINED = /\b(?:def|class|function|fn|func|struct|interface|trait|enum|type)\s+([A-Za-z_$][\w$]*)/g;
const IMPORTED = /^\s*(?:from\s+([\w.]+)\s+import\s+([\w, ()]+)|import\s+([\w.]+))/gm;

/** Words that look like names but say nothing about a repository's code. */
const COMMON_NAMES = new Set([
  'print', 'len', 'str', 'int', 'float', 'list', 'dict', 'set', 'tuple', 'range', 'type', 'isinstance', 'open', 'super', 'self', 'cls',
  'console.log', 'require', 'import', 'return', 'if', 'for', 'while', 'with', 'assert', 'lambda', 'new', 'this', 'e.g', 'i.e', 'etc',
  'repr', 'format', 'main', 'Object.<anonymous>', 'anonymous', 'module', 'exports', 'np', 'pd', 'plt', 'os.path', 'sys.argv',
]);

/** Python's and JavaScript's own errors: defined by no repository, so not a pointer into one. */
const BUILTIN_ERRORS = new Set([
  'Error', 'Exception', 'BaseException', 'ValueError', 'TypeError', 'KeyError', 'IndexError', 'AttributeError', 'RuntimeError',
  'NameError', 'ImportError', 'ModuleNotFoundError', 'NotImplementedError', 'AssertionError', 'ZeroDivisionError', 'OSError',
  'IOError', 'FileNotFoundError', 'PermissionError', 'StopIteration', 'RecursionError', 'UnicodeDecodeError', 'UnicodeEncodeError',
  'OverflowError', 'MemoryError', 'SyntaxError', 'IndentationError', 'LookupError', 'ArithmeticError', 'SystemExit',
  'KeyboardInterrupt', 'DeprecationWarning', 'UserWarning', 'RuntimeWarning', 'FutureWarning', 'PendingDeprecationWarning',
  'SyntaxWarning', 'ResourceWarning', 'ReferenceError', 'RangeError', 'EvalError', 'URIError', 'AggregateError',
  'NullPointerException', 'IllegalArgumentException', 'IllegalStateException', 'RuntimeException', 'IOException',
  'UnsupportedOperationException', 'ClassCastException', 'IndexOutOfBoundsException', 'ArrayIndexOutOfBoundsException',
]);

/**
 * A frame's or a path's line and column (`Foo.java:128`, `app.js:12:5`), a port (`localhost:8080`) and Python's
 * `line 128`: positions, not numbers the code uses, so they are no words of the request.
 */
const POSITION = /(?<=[\w)\]"'])(?::\d+)+|\bline \d+/gi;

/** The text with its positions (POSITION) blanked. */
export function withoutPositions(text: string): string {
  return text.replace(POSITION, ' ');
}

/**
 * The names a report writes in backticks, lower-cased, the common ones included (`dict`, `set`): too common to
 * point at a file, they still say which type a report is about.
 */
export function backtickedNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const [, inline] of text.matchAll(BACKTICK)) {
    const name = /^[A-Za-z_$][\w$]*$/.exec((inline as string).trim());
    if (name) out.add(name[0].toLowerCase());
  }
  return out;
}

/** Python's binary operators and the methods that implement them, both ways round. */
const OPERATOR_METHODS: Readonly<Record<string, readonly string[]>> = {
  '+': ['__add__', '__radd__'], '-': ['__sub__', '__rsub__'], '*': ['__mul__', '__rmul__'], '/': ['__truediv__', '__rtruediv__', '__div__', '__rdiv__'],
  '//': ['__floordiv__', '__rfloordiv__'], '%': ['__mod__', '__rmod__'], '**': ['__pow__', '__rpow__'], '@': ['__matmul__', '__rmatmul__'],
  '==': ['__eq__'], '!=': ['__ne__'], '<': ['__lt__', '__gt__'], '>': ['__gt__', '__lt__'], '<=': ['__le__', '__ge__'], '>=': ['__ge__', '__le__'],
  '&': ['__and__', '__rand__'], '|': ['__or__', '__ror__'], '^': ['__xor__', '__rxor__'],
};
/** A binary operator written between two operands with a space either side (`B * Identity`), as code is written. */
const BINARY_OPERATOR = /[\w)\]] (\*\*|\/\/|==|!=|<=|>=|[-+*/%@<>&|^]) [\w(\[]/g;
/** In a title, only after a call or an index (`Dagger() * IdentityOperator()`): prose has dashes between words. */
const TITLE_OPERATOR = /[)\]] (\*\*|\/\/|==|!=|<=|>=|[-+*/%@<>&|^]) [\w(\[]/g;

/**
 * The methods that implement the binary operators a report's code, backticked spans and title use (`__mul__` and
 * `__rmul__` for `Dagger() * IdentityOperator()`): for the classes it names, the place such an expression goes wrong.
 */
export function operatorMethods(text: string): Set<string> {
  const out = new Set<string>();
  const { code } = splitCode(text);
  const spans = [...code, ...[...text.matchAll(BACKTICK)].map((m) => m[1] as string)];
  const operators = [...spans.flatMap((span) => [...span.matchAll(BINARY_OPERATOR)]), ...titleOf(text).matchAll(TITLE_OPERATOR)];
  for (const m of operators) for (const name of OPERATOR_METHODS[m[1] as string] ?? []) out.add(name);
  return out;
}

/** A report's title: its first line that is not blank. */
export function titleOf(text: string): string {
  return text.split('\n').find((line) => line.trim()) ?? '';
}

/** Reads a task text for its anchors. */
export function parseTaskText(input: string): TaskText {
  const truncated = input.length > MAX_TASK_CHARS;
  const text = truncated ? input.slice(0, MAX_TASK_CHARS) : input;
  const anchors = new AnchorList();
  const rest = readFrames(text, anchors);
  const { code, prose } = splitCode(rest);
  for (const block of code) readCode(block, anchors, 'code');
  for (const [, inline] of prose.matchAll(BACKTICK)) readInline(inline as string, anchors);
  readProse(prose, anchors);
  const words = countWords(text);
  const isTask = words >= TASK_WORDS || anchors.has('frame') || code.length > 0;
  return { anchors: anchors.list(), isTask, text, truncated };
}

class AnchorList {
  private readonly byKey = new Map<string, Anchor>();

  /** `line`: the line number a frame names in the path. */
  add(kind: AnchorKind, raw: string, source: AnchorSource, line?: number): void {
    const text = kind === 'path' ? normalisePath(raw) : kind === 'symbol' ? normaliseName(raw) : raw;
    if (!text || (kind === 'symbol' && (COMMON_NAMES.has(text) || text.length < 3))) return;
    const key = `${kind}\0${text.toLowerCase()}`;
    const known = this.byKey.get(key);
    const lines = [...new Set([...(known?.lines ?? []), ...(line && line > 0 ? [line] : [])])].sort((a, b) => a - b);
    // The strongest source wins: a name in a frame and in the prose is a frame's name.
    const kept = !known || SOURCE_ORDER.indexOf(source) < SOURCE_ORDER.indexOf(known.source) ? { kind, text, source } : known;
    this.byKey.set(key, lines.length ? { ...kept, lines } : kept);
  }

  has(source: AnchorSource): boolean {
    for (const a of this.byKey.values()) if (a.source === source) return true;
    return false;
  }

  /** The anchors, without a path that only repeats the end of a longer one (`Jsoup.java` of `org/jsoup/Jsoup.java`). */
  list(): Anchor[] {
    const all = [...this.byKey.values()];
    const paths = all.filter((a) => a.kind === 'path').map((a) => `/${a.text.toLowerCase()}`);
    return all.filter((a) => a.kind !== 'path' || !paths.some((p) => p.length > a.text.length + 1 && p.endsWith(`/${a.text.toLowerCase()}`)));
  }
}

const SOURCE_ORDER: readonly AnchorSource[] = ['frame', 'backtick', 'identifier', 'code', 'dotted', 'error', 'prose'];

/**
 * Stack frames of Python, JavaScript/TypeScript, Java, Go and Rust traces, read line by line; returns the text
 * with the frame lines blanked, so their runtime's names are not read again as the reporter's.
 */
function readFrames(text: string, anchors: AnchorList): string {
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.length <= MAX_FRAME_LINE && readFrame(line, anchors)) lines[i] = '';
  });
  // Go (`\t/src/x/y.go:12 +0x1d`), Rust (`at ./src/lib.rs:10:5`, `panicked at src/main.rs:2:5`) and any other
  // `file:line` mention: a path with a line number is a frame whatever the language.
  for (const token of pathTokens(text)) {
    if (token.line) anchors.add('path', token.path, 'frame', token.line);
  }
  // A link to a line of a file (GitHub's and GitLab's `…/blob/<ref>/<path>#L135`) points where a frame does.
  for (const m of text.matchAll(PERMALINK)) anchors.add('path', m[1] as string, 'frame', Number(m[2]));
  return lines.join('\n');
}

/** A link to a file's line on a forge: `https://github.com/o/r/blob/2.16/src/x/Version.java#L135` (GitLab adds `/-`). */
const PERMALINK = /https?:\/\/[^\s/]+\/[^\s/]+\/[^\s/]+\/(?:-\/)?blob\/[^\s/]+\/([^\s#?]+)#L(\d+)/g;

/** Reads one line as a frame; false when it is none. */
function readFrame(line: string, anchors: AnchorList): boolean {
  const python = PYTHON_FRAME.exec(line);
  if (python) {
    anchors.add('path', python[1] as string, 'frame', Number(python[2]));
    if (python[3] && !python[3].startsWith('<')) anchors.add('symbol', python[3], 'frame');
    return true;
  }
  const at = AT_FRAME.exec(line);
  if (at) {
    readAtFrame(at[1], at[2] as string, anchors);
    return true;
  }
  const go = GO_FUNC.exec(line);
  if (go) {
    const pkg = go[1] as string;
    if (pkg && pkg !== 'runtime' && !pkg.startsWith('runtime/') && pkg !== 'testing') anchors.add('symbol', go[2] ? `${go[2]}.${go[3]}` : (go[3] as string), 'frame');
    return true;
  }
  const rust = RUST_FRAME.exec(line);
  if (rust) {
    const path = (rust[1] as string).split('::');
    const name = path.slice(-2).filter((p) => !p.startsWith('<') && !p.includes('closure')).join('.');
    if (!RUST_RUNTIME.has(path[0] as string) && name) anchors.add('symbol', name, 'frame');
    return true;
  }
  return false;
}

const MAX_FRAME_LINE = 2_000;
const RUST_RUNTIME = new Set(['std', 'core', 'alloc', 'tokio', 'rust_begin_unwind', '__rust_begin_short_backtrace']);

/** `at fn (where)`: JavaScript's `where` is a file, Java's `Class.java:42` names the class's file. */
function readAtFrame(fn: string | undefined, where: string, anchors: AnchorList): void {
  const java = /^([\w$]+)\.java(?::(\d+))?$/.exec(where);
  if (java && fn) {
    // `at org.pkg.Outer$Inner.method(Outer.java:42)`: the file is the outer class's, the symbol Class.method.
    const parts = fn.split('.');
    const method = parts.pop() as string;
    const cls = (parts.pop() ?? '').split('$').pop() ?? '';
    anchors.add('path', `${parts.join('/')}${parts.length ? '/' : ''}${java[1]}.java`, 'frame', Number(java[2] ?? 0));
    if (cls) anchors.add('symbol', method.startsWith('<') ? cls : `${cls}.${method}`, 'frame');
    return;
  }
  const file = where.replace(/(?::\d+){1,2}$/, '');
  if (!CODE_FILE.test(file)) return;
  anchors.add('path', file, 'frame', Number(/^:(\d+)/.exec(where.slice(file.length))?.[1] ?? 0));
  if (fn && !/^(?:Object\.|Module\.|process\.|node:|new Promise)/.test(fn)) anchors.add('symbol', fn.replace(/^new /, ''), 'frame');
}

/**
 * The path-like words of a text, each with the line number written after it (`x.go:12`; 0 for none), found by splitting on
 * what no path holds and testing each word once: linear in the text, however long its words.
 */
function* pathTokens(text: string): Generator<{ path: string; line: number }> {
  for (const raw of text.split(/[\s"'`()<>[\]{},;|=]+/)) {
    if (raw.length < 4 || raw.length > MAX_PATH_TOKEN || raw.includes('://')) continue;
    const m = PATH_TOKEN.exec(raw.replace(/[.:!?]+$/, ''));
    if (m) yield { path: m[1] as string, line: m[2] ? Number(m[2].slice(1)) : 0 };
  }
}

const MAX_PATH_TOKEN = 400;

/** Fenced code blocks apart from the prose around them. */
function splitCode(text: string): { code: string[]; prose: string } {
  const code: string[] = [];
  const prose = text.replace(FENCE, (_, body: string) => {
    code.push(body);
    return '\n';
  });
  return { code, prose };
}

/** Code the reporter pasted: the names it defines, calls and imports. */
function readCode(code: string, anchors: AnchorList, source: AnchorSource): void {
  for (const m of code.matchAll(IMPORTED)) {
    if (m[1]) {
      anchors.add('symbol', m[1], source);
      for (const name of (m[2] as string).split(/[\s,()]+/)) if (name) anchors.add('symbol', `${m[1]}.${name}`, source);
    } else if (m[3] && m[3].includes('.')) anchors.add('symbol', m[3], source);
  }
  for (const m of code.matchAll(DEFINED)) anchors.add('symbol', m[1] as string, source);
  for (const m of code.matchAll(DOTTED)) anchors.add('symbol', m[0], source);
  for (const m of code.matchAll(CALLED)) {
    const name = m[1] as string;
    // A plain call of a short lower-case word (`len(x)`, `get(1)`) is too common to point anywhere.
    if (name.length >= 4 || /[A-Z_]/.test(name)) anchors.add('symbol', name, source);
  }
  for (const token of pathTokens(code)) anchors.add('path', token.path, source);
  for (const m of code.matchAll(ERROR_CLASS)) if (!BUILTIN_ERRORS.has(m[1] as string)) anchors.add('symbol', m[1] as string, source);
  for (const m of code.matchAll(OPTION)) anchors.add('option', m[1] as string, source);
}

/** One backticked span: a name, a call, a path, an option, or a short piece of code. */
function readInline(inline: string, anchors: AnchorList): void {
  const span = inline.trim();
  const option = /^--?([A-Za-z][\w-]*)(?:[= ].*)?$/.exec(span);
  if (option?.[1] && span.startsWith('--')) {
    anchors.add('option', option[1], 'backtick');
    return;
  }
  if (!/\s/.test(span) && CODE_FILE.test(span)) {
    anchors.add('path', span, 'backtick');
    return;
  }
  const name = /^[@]?([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*)(?:\(.*\))?$/.exec(span);
  if (name?.[1]) {
    anchors.add('symbol', name[1], 'backtick');
    return;
  }
  readCode(span, anchors, 'backtick');
}

/** Paths, dotted names, options and error classes written in the prose. */
function readProse(prose: string, anchors: AnchorList): void {
  const withoutTicks = prose.replace(BACKTICK, ' ');
  for (const token of pathTokens(withoutTicks)) anchors.add('path', token.path, 'prose');
  const withoutUrls = withoutTicks.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, ' ');
  for (const m of withoutUrls.matchAll(DOTTED)) {
    const name = m[0];
    // `e.g.`, version numbers and file names are not names; a dotted name with a capital or an underscore, or of
    // three parts or more, reads as code (`os.path.join`, `QuerySet.filter`, `self.assertEqual`).
    if (new RegExp(`\\.(?:${CODE_EXTENSIONS}|html|txt|md|rst|json|yml|yaml|toml|cfg|ini|org|com|io)$`, 'i').test(name)) continue;
    if (/[A-Z_]|::|#|\(\)$/.test(name) || name.split('.').length >= 3) anchors.add('symbol', name, 'dotted');
  }
  for (const m of withoutUrls.matchAll(OPTION)) anchors.add('option', m[1] as string, 'prose');
  for (const m of withoutUrls.replace(OPTION, ' ').matchAll(PROSE_IDENTIFIER)) if (!ERROR_NAME.test(m[0])) anchors.add('symbol', m[0], 'identifier');
  for (const m of withoutUrls.matchAll(ERROR_CLASS)) if (!BUILTIN_ERRORS.has(m[1] as string)) anchors.add('symbol', m[1] as string, 'error');
}

/**
 * A path as the repository would hold it: forward slashes, no scheme, no `…/` or `./` in front, and no folder
 * of an installation (`site-packages/`, `node_modules/`, `/home/me/proj/`) that no repository path starts with:
 * those are cut at the last such folder, and the path is matched by its end (resolveAnchors in taskRank.ts).
 */
export function normalisePath(raw: string): string {
  let p = raw.trim().replace(/^file:\/\//, '').replace(/\\/g, '/').replace(/^[A-Za-z]:\//, '/');
  p = p.replace(/^(?:…|\.\.\.)\/?/, '').replace(/^(?:\.\.?\/)+/, '');
  const installed = p.lastIndexOf('/site-packages/');
  if (installed >= 0) p = p.slice(installed + '/site-packages/'.length);
  const modules = p.lastIndexOf('node_modules/');
  if (modules >= 0) p = p.slice(modules + 'node_modules/'.length);
  return p.replace(/^\/+/, '').replace(/\/{2,}/g, '/');
}

/** `Foo::bar`, `Foo#bar`, `foo()`, `@decorator` -> dotted form without call parentheses. */
export function normaliseName(raw: string): string {
  return raw.trim().replace(/^@/, '').replace(/\(\)$/, '').replace(/::|#/g, '.').replace(/^\.+|\.+$/g, '');
}

function countWords(text: string): number {
  let n = 0;
  for (const _ of text.matchAll(/[A-Za-z]{2,}/g)) if (++n >= TASK_WORDS) break;
  return n;
}

/**
 * The messages a text quotes: text in double quotes (straight or curly) of at least two words, and what follows
 * `SomeError:` or `panic:` on a line of a trace. A definition whose own words hold a message's is the one that
 * raises or prints it. Single quotes are left alone: prose's apostrophes would pair up as quotes.
 */
export function quotedMessages(text: string): string[] {
  const out = new Set<string>();
  const read = text.slice(0, MAX_TASK_CHARS);
  for (const [, message] of [...read.matchAll(QUOTED), ...read.matchAll(RAISED)]) if (/\S\s+\S/.test(message as string)) out.add((message as string).trim());
  return [...out].slice(0, MAX_MESSAGES);
}

const QUOTED = /["“]([^"“”\n]{6,200})["”]/g;
const RAISED = /^\s*(?:[\w.$]*(?:Error|Exception)|panic|fatal error|error(?:\[E\d+\])?):\s+([^\n]{6,200})$/gim;
const MAX_MESSAGES = 20;