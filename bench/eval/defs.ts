/**
 * Definition finders for the issue set's function-level gold and the `bm25fn` baseline: for Python (pythonDefs,
 * by indentation, in issues.ts), Rust, Java, JavaScript, TypeScript and Go. Independent of CodeRAG's tree-sitter
 * extraction (src/extract/symbols.ts), which is the ranker under test.
 *
 * How the brace languages are read
 * 1. maskCode blanks what is not code, keeping every offset and every newline: comments become spaces, literals
 *    become `0`s (strings, raw strings, Rust byte strings and char literals, Java text blocks, Go raw strings and
 *    runes, JS/TS template literals with their `${…}` parts, regular-expression literals). A Rust lifetime `'a` is
 *    not a char literal; Rust block comments nest; a JS `/` starts a regular expression only where an operand
 *    may start (after an operator, an opening bracket, `}` or a keyword such as `return`), never after `)`, `]`,
 *    a name or a number, and a regex candidate that meets the end of its line is read as division.
 * 2. braceDefs walks the masked text with a stack of brackets. Each bracket level keeps its current segment: the
 *    code since the last `;`, `{` or `}` at that level (Go also ends one at a newline that would end a statement),
 *    with every closed `(…)` / `[…]` reduced to `()` / `[]` and (Java, Rust, TypeScript) every `<…>` to `<>`. When
 *    a `{` opens, its segment is the header; per-language patterns anchored at the header's end say whether it
 *    opens a definition, and which (class body, object literal, plain block, opaque). The definition runs to
 *    its matching `}`.
 *
 * What counts as a definition (SourceDef.kind)
 * - Rust: `fn` (with a body, or a signature ending in `;`), `impl` (named by its self type, `impl<T> Tr for
 *   Foo<T>` is `Foo`), `struct` / `enum` / `union` (with a body, or a tuple or unit struct ending in `;`), `trait`,
 *   `mod` with a body, `macro_rules!` (its body is opaque: the code inside a macro's template is not read).
 * - Java: `class`, `interface`, `enum`, `record`, `@interface`; methods and constructors (with a body, or ending
 *   in `;` in a class or interface body: abstract and interface methods, annotation members), including those of
 *   anonymous classes (`new Foo() { … }`). Enum constants' bodies and initializer blocks are not definitions.
 * - Go: `func` and methods (`func (r *T) Name`, named `Name`, qualified `T.Name`), `type X struct {…}` and
 *   `type X interface {…}` (also inside a `type ( … )` group). Function literals are not definitions.
 * - JavaScript and TypeScript: function declarations and named function expressions, classes, class and
 *   object-literal methods (getters, setters, `static`, `async`, generators, `#private`), and function values
 *   bound to a name: `const f = () => {…}`, `f = function () {…}`, `obj.f = …`, `X.prototype.f = …`,
 *   `key: () => …`, class fields `handle = () => {…}`. An arrow function with an expression body ends where its
 *   expression ends (`;`, `,` or the closing bracket at its level, or a newline that ends the statement). A
 *   binding to `module.exports` / `exports` names nothing (a named function there keeps its own name).
 *   TypeScript adds `interface`, `enum`, `namespace`, `type X = {…}`, and signatures ending in `;` (overloads,
 *   `declare function`, interface and abstract methods).
 *
 * A definition's `start` is its first line (Rust attributes, Java annotations and modifiers included; comments
 * above it are not), `line` the line of its name (the line a ranked symbol must contain to hit it), `end` the
 * line of its closing `}` (or `;`).
 *
 * Known limits: JSX is not read; a quoted object key (`'key': function`) names nothing; a definition inside a
 * template literal's `${…}` is not found; a header longer than HEADER_CHARS reduced characters is read by its
 * tail only; `impl` blocks whose self type has no name (`impl Tr for [T]`) are plain blocks.
 */
export type DefLanguage = 'python' | 'rust' | 'java' | 'javascript' | 'typescript' | 'go';
export type BraceLanguage = Exclude<DefLanguage, 'python'>;

export interface SourceDef {
  /** 'def' | 'class' (Python); 'fn' | 'impl' | 'struct' | 'enum' | 'union' | 'trait' | 'mod' | 'macro' (Rust); … */
  kind: string;
  name: string;
  /** Enclosing definitions' names and this one's (a Go method's receiver type first), joined with '.'. */
  qualname: string;
  /** First line, 1-based (decorators, attributes, annotations and modifiers included). */
  start: number;
  /** The line of the definition's name. */
  line: number;
  /** Last line: the closing brace's (a Python definition's last code line). */
  end: number;
}

/** The finder for a path, by its extension; undefined for files no finder reads. */
export function defLanguageOf(path: string): DefLanguage | undefined {
  const m = /\.([A-Za-z]+)$/.exec(path);
  switch (m?.[1]?.toLowerCase()) {
    case 'py':
      return 'python';
    case 'rs':
      return 'rust';
    case 'java':
      return 'java';
    case 'js':
    case 'mjs':
    case 'cjs':
    case 'jsx':
      return 'javascript';
    case 'ts':
    case 'mts':
    case 'cts':
    case 'tsx':
      return 'typescript';
    case 'go':
      return 'go';
    default:
      return undefined;
  }
}

/** Every definition of a text, ordered by first line (then by name line). */
export function definitions(text: string, lang: DefLanguage): SourceDef[] {
  if (lang === 'python') return pythonDefs(text).map((d) => ({ kind: d.kind, name: d.name, qualname: d.qualname, start: d.start, line: d.line, end: d.end }));
  return braceDefs(text, lang);
}

// ---------------------------------------------------------------------------------------------------------------
// Python definitions by indentation

export interface PyDef {
  kind: 'def' | 'class';
  name: string;
  /** Enclosing definitions' names and this one's, joined with '.'. */
  qualname: string;
  /** First line (the first decorator's, when decorated). */
  start: number;
  /** The `def` / `class` line. */
  line: number;
  /** Last line of the body that holds code (trailing blank and comment-only lines excluded). */
  end: number;
  indent: number;
}

export function indentOf(s: string): number {
  let n = 0;
  for (const ch of s) {
    if (ch === ' ') n++;
    else if (ch === '\t') n += 8 - (n % 8);
    else break;
  }
  return n;
}

/**
 * For each line (0-based), whether it starts a logical line (not inside a multi-line string, a bracket or after a
 * backslash), and whether it holds code (not blank, not only a comment).
 */
function logicalStarts(lines: readonly string[]): Array<{ starts: boolean; code: boolean }> {
  const out: Array<{ starts: boolean; code: boolean }> = [];
  let depth = 0;
  let triple: string | null = null;
  let continued = false;
  for (const line of lines) {
    const trimmed = line.trim();
    const starts = triple === null && depth === 0 && !continued;
    out.push({ starts, code: starts && trimmed !== '' && !trimmed.startsWith('#') });
    continued = false;
    let i = 0;
    while (i < line.length) {
      if (triple) {
        const j = line.indexOf(triple, i);
        if (j === -1) {
          i = line.length;
          break;
        }
        i = j + 3;
        triple = null;
        continue;
      }
      const ch = line[i] as string;
      if (ch === '#') break;
      if (ch === '"' || ch === "'") {
        if (line.startsWith(ch.repeat(3), i)) {
          triple = ch.repeat(3);
          i += 3;
          continue;
        }
        // a one-line string: skip to its closing quote
        let j = i + 1;
        while (j < line.length && line[j] !== ch) j += line[j] === '\\' ? 2 : 1;
        i = j + 1;
        continue;
      }
      if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') depth = Math.max(0, depth - 1);
      i++;
    }
    if (!triple && line.trimEnd().endsWith('\\') && !line.trim().startsWith('#')) continued = true;
  }
  return out;
}

const DEF_RE = /^(\s*)(?:async\s+def|def|class)\s+([A-Za-z_][A-Za-z0-9_]*)/;

/** Every `def`, `async def` and `class` of a Python text, in order, with its lines (1-based). */
export function pythonDefs(text: string): PyDef[] {
  const lines = text.split('\n');
  const info = logicalStarts(lines);
  const defs: PyDef[] = [];
  const open: PyDef[] = [];
  let lastCode = 0; // 1-based line of the last code line seen
  let decoratorStart: number | null = null;
  for (let k = 0; k < lines.length; k++) {
    const { starts, code } = info[k] as { starts: boolean; code: boolean };
    const lineNo = k + 1;
    if (!code) {
      // continuation lines of a statement belong to it
      if (!starts && lines[k]?.trim() !== '') lastCode = lineNo;
      continue;
    }
    const line = lines[k] as string;
    const indent = indentOf(line);
    while (open.length && (open[open.length - 1] as PyDef).indent >= indent) {
      const d = open.pop() as PyDef;
      d.end = Math.max(d.line, lastCode);
    }
    const trimmed = line.trim();
    if (trimmed.startsWith('@')) {
      decoratorStart ??= lineNo;
      lastCode = lineNo;
      continue;
    }
    const m = DEF_RE.exec(line);
    if (m) {
      const name = m[2] as string;
      const kind = /^\s*class\b/.test(line) ? 'class' : 'def';
      const qualname = [...open.map((d) => d.name), name].join('.');
      const d: PyDef = { kind, name, qualname, start: decoratorStart ?? lineNo, line: lineNo, end: lineNo, indent };
      defs.push(d);
      open.push(d);
    }
    decoratorStart = null;
    lastCode = lineNo;
  }
  for (const d of open) d.end = Math.max(d.line, lastCode);
  return defs;
}

// ---------------------------------------------------------------------------------------------------------------
// Masking

type Blank = Array<[from: number, to: number, literal: boolean]>;

const isIdentStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_$]/.test(c);
const isIdent = (c: string | undefined): boolean => c !== undefined && /[\w$]/.test(c);
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

/** The text with comments blanked to spaces and literals to `0`s, offsets and newlines kept. */
export function maskCode(text: string, lang: BraceLanguage): string {
  const blank: Blank = [];
  if (lang === 'javascript' || lang === 'typescript') scanJs(text, 0, blank, false);
  else if (lang === 'rust') scanRust(text, blank);
  else if (lang === 'go') scanC(text, blank, 'go');
  else scanC(text, blank, 'java');
  let out = '';
  let at = 0;
  for (const [from, to, literal] of blank) {
    if (from < at) continue;
    out += text.slice(at, from) + text.slice(from, to).replace(/[^\n\r]/g, literal ? '0' : ' ');
    at = to;
  }
  return out + text.slice(at);
}

/** End (exclusive) of a quoted literal opened at `i`; stops at a newline when `oneLine` (unterminated). */
function quotedEnd(text: string, i: number, quote: string, oneLine: boolean): number {
  let j = i + 1;
  while (j < text.length) {
    const c = text[j];
    if (c === '\\') j += 2;
    else if (c === quote) return j + 1;
    else if (c === '\n' && oneLine) return j;
    else j++;
  }
  return text.length;
}

function lineCommentEnd(text: string, i: number): number {
  const j = text.indexOf('\n', i);
  return j === -1 ? text.length : j;
}

/** Java and Go: comments, strings, chars / runes, Java text blocks, Go raw strings. */
function scanC(text: string, blank: Blank, lang: 'java' | 'go'): void {
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const d = text[i + 1];
    if (c === '/' && d === '/') {
      const j = lineCommentEnd(text, i);
      blank.push([i, j, false]);
      i = j;
    } else if (c === '/' && d === '*') {
      const k = text.indexOf('*/', i + 2);
      const j = k === -1 ? text.length : k + 2;
      blank.push([i, j, false]);
      i = j;
    } else if (lang === 'java' && text.startsWith('"""', i)) {
      let j = i + 3;
      while (j < text.length && !text.startsWith('"""', j)) j += text[j] === '\\' ? 2 : 1;
      j = Math.min(text.length, j + 3);
      blank.push([i, j, true]);
      i = j;
    } else if (c === '"' || c === "'") {
      const j = quotedEnd(text, i, c, true);
      blank.push([i, j, true]);
      i = j;
    } else if (lang === 'go' && c === '`') {
      const k = text.indexOf('`', i + 1);
      const j = k === -1 ? text.length : k + 1;
      blank.push([i, j, true]);
      i = j;
    } else if (isIdentStart(c)) {
      i++;
      while (isIdent(text[i])) i++;
    } else i++;
  }
}

/** Rust: nested block comments, strings, raw and byte strings, char and byte literals (not lifetimes). */
function scanRust(text: string, blank: Blank): void {
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const d = text[i + 1];
    if (c === '/' && d === '/') {
      const j = lineCommentEnd(text, i);
      blank.push([i, j, false]);
      i = j;
    } else if (c === '/' && d === '*') {
      let depth = 1;
      let j = i + 2;
      while (j < text.length && depth > 0) {
        if (text[j] === '/' && text[j + 1] === '*') {
          depth++;
          j += 2;
        } else if (text[j] === '*' && text[j + 1] === '/') {
          depth--;
          j += 2;
        } else j++;
      }
      blank.push([i, j, false]);
      i = j;
    } else if (c === '"') {
      const j = quotedEnd(text, i, '"', false);
      blank.push([i, j, true]);
      i = j;
    } else if (c === "'") {
      const j = rustCharEnd(text, i);
      if (j > 0) {
        blank.push([i, j, true]);
        i = j;
      } else i++; // a lifetime or a label
    } else if (isIdentStart(c)) {
      let j = i + 1;
      while (isIdent(text[j])) j++;
      const word = text.slice(i, j);
      const raw = /^(?:b|c)?r$/.test(word) ? /^(#*)"/.exec(text.slice(j, j + 256)) : null;
      if (raw) {
        const close = `"${raw[1] ?? ''}`;
        const k = text.indexOf(close, j + raw[0].length);
        const end = k === -1 ? text.length : k + close.length;
        blank.push([i, end, true]);
        i = end;
      } else if ((word === 'b' || word === 'c') && text[j] === '"') {
        const end = quotedEnd(text, j, '"', false);
        blank.push([i, end, true]);
        i = end;
      } else if (word === 'b' && text[j] === "'") {
        const end = rustCharEnd(text, j);
        if (end > 0) {
          blank.push([i, end, true]);
          i = end;
        } else i = j;
      } else i = j;
    } else i++;
  }
}

/** End of a Rust char literal opened at `i` (`'a'`, `'\n'`, `'\u{1F600}'`, `'é'`), or -1 for a lifetime / label. */
function rustCharEnd(text: string, i: number): number {
  if (text[i + 1] === '\\') {
    const k = text.indexOf("'", i + 3);
    return k !== -1 && k - i <= 12 ? k + 1 : -1;
  }
  const cp = text.codePointAt(i + 1);
  if (cp === undefined || text[i + 1] === '\n') return -1;
  const w = cp > 0xffff ? 2 : 1;
  return text[i + 1 + w] === "'" ? i + 2 + w : -1;
}

/** Words after which a JS `/` starts a regular expression, not a division. */
const JS_REGEX_AFTER = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

/**
 * JS / TS lexing from `start`; with `untilBrace`, stops after the `}` that closes a template's `${` (returns its
 * end). Blanks into `blank` when given (nested template parts are blanked whole by their template).
 */
function scanJs(text: string, start: number, blank: Blank | null, untilBrace: boolean): number {
  let i = start;
  let depth = 0;
  let regexOk = true;
  if (start === 0 && text.startsWith('#!')) {
    i = lineCommentEnd(text, 0);
    blank?.push([0, i, false]);
  }
  while (i < text.length) {
    const c = text[i] as string;
    const d = text[i + 1];
    if (c === '/' && d === '/') {
      const j = lineCommentEnd(text, i);
      blank?.push([i, j, false]);
      i = j;
      continue;
    }
    if (c === '/' && d === '*') {
      const k = text.indexOf('*/', i + 2);
      const j = k === -1 ? text.length : k + 2;
      blank?.push([i, j, false]);
      i = j;
      continue;
    }
    if (c === '/' && regexOk) {
      const j = regexEnd(text, i);
      if (j > 0) {
        blank?.push([i, j, true]);
        i = j;
        regexOk = false;
        continue;
      }
    }
    if (c === '"' || c === "'") {
      const j = quotedEnd(text, i, c, true);
      blank?.push([i, j, true]);
      i = j;
      regexOk = false;
      continue;
    }
    if (c === '`') {
      const j = templateEnd(text, i);
      blank?.push([i, j, true]);
      i = j;
      regexOk = false;
      continue;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (isIdentStart(c) || c === '#') {
      let j = i + 1;
      while (isIdent(text[j])) j++;
      regexOk = JS_REGEX_AFTER.has(text.slice(i, j));
      i = j;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(d ?? ''))) {
      let j = i + 1;
      while (j < text.length && /[\w.]/.test(text[j] as string)) j++;
      regexOk = false;
      i = j;
      continue;
    }
    if (untilBrace) {
      if (c === '{') depth++;
      else if (c === '}') {
        if (depth === 0) return i + 1;
        depth--;
      }
    }
    regexOk = c !== ')' && c !== ']';
    i++;
  }
  return text.length;
}

/** End of a regular-expression literal at `i`, or -1 when the line ends first (then `/` is a division). */
function regexEnd(text: string, i: number): number {
  let j = i + 1;
  let inClass = false;
  if (text[j] === '/' || text[j] === '*') return -1;
  while (j < text.length) {
    const c = text[j];
    if (c === '\\') j += 2;
    else if (c === '\n' || c === '\r') return -1;
    else if (inClass) {
      if (c === ']') inClass = false;
      j++;
    } else if (c === '[') {
      inClass = true;
      j++;
    } else if (c === '/') {
      j++;
      while (/[a-z]/.test(text[j] ?? '')) j++;
      return j;
    } else j++;
  }
  return -1;
}

/** End of a template literal at `i`, its `${…}` parts (nested templates included) read as code. */
function templateEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length) {
    const c = text[j];
    if (c === '\\') j += 2;
    else if (c === '`') return j + 1;
    else if (c === '$' && text[j + 1] === '{') j = scanJs(text, j + 2, null, true);
    else j++;
  }
  return text.length;
}

// ---------------------------------------------------------------------------------------------------------------
// Structure

/** Reduced header characters a pattern reads (the tail of a longer segment). */
export const HEADER_CHARS = 600;
const SEGMENT_KEEP = 4096;

/** What a `{` opened: `type` is a TypeScript interface or object type (signatures, no bodies). */
type Role = 'top' | 'block' | 'class' | 'enum' | 'type' | 'object' | 'paren' | 'opaque';

/** A segment: reduced characters and the offset in the text each came from. */
interface Seg {
  chars: string[];
  pos: number[];
}

interface Frame {
  open: '{' | '(' | '[' | '';
  at: number;
  role: Role;
  seg: Seg;
  def: SourceDef | null;
  /** A `;` has been seen at this level (a Java enum's constants end at the first). */
  sawSemi: boolean;
  /** '(' frames: the reduced text before the bracket (Go's `type (` groups). */
  before: string;
  /** A JS arrow function with an expression body, open at this level, and the last code offset of its body. */
  expr: SourceDef | null;
  exprLast: number;
}

/** What a header says: the definition it opens (indexes into the header view) and the role of its body. */
interface Found {
  kind: string;
  name: string;
  /** Index in the view of the name's first character. */
  nameAt: number;
  /** Index in the view where the definition starts. */
  startAt: number;
  /** Qualifier before the name (a Go receiver type, `X` of `X.prototype.f`), when not the enclosing definitions'. */
  qualifier?: string;
  role: Role;
}

interface View {
  text: string;
  pos: number[];
}

function newFrame(open: Frame['open'], at: number, role: Role, def: SourceDef | null, before = ''): Frame {
  return { open, at, role, seg: { chars: [], pos: [] }, def, sawSemi: false, before, expr: null, exprLast: -1 };
}

/** The last HEADER_CHARS characters of a segment as a view; Java, Rust and TS generics reduced to `<>`. */
function viewOf(seg: Seg, lang: BraceLanguage): View {
  const from = Math.max(0, seg.chars.length - HEADER_CHARS);
  let chars = seg.chars.slice(from);
  let pos = seg.pos.slice(from);
  if (lang === 'java' || lang === 'rust' || lang === 'typescript') [chars, pos] = reduceAngles(chars, pos);
  return { text: chars.join(''), pos };
}

/** Balanced `<…>` (innermost first) reduced to `<>`; `->`, `=>`, `<=`, `>=` and `<<` are not brackets. */
function reduceAngles(chars: string[], pos: number[]): [string[], number[]] {
  const outC: string[] = [];
  const outP: number[] = [];
  const opens: number[] = [];
  for (let k = 0; k < chars.length; k++) {
    const c = chars[k] as string;
    const prev = chars[k - 1];
    const next = chars[k + 1];
    if (c === '<' && next !== '=' && next !== '<' && prev !== '<') {
      opens.push(outC.length);
      outC.push(c);
      outP.push(pos[k] as number);
      continue;
    }
    if (c === '>' && prev !== '-' && prev !== '=' && next !== '=' && opens.length) {
      const o = opens.pop() as number;
      outC.length = o + 1;
      outP.length = o + 1;
      outC.push('>');
      outP.push(pos[k] as number);
      continue;
    }
    outC.push(c);
    outP.push(pos[k] as number);
  }
  return [outC, outP];
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

function lineOf(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] as number) <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

const firstCodeAt = (v: View): number => {
  const k = v.text.search(/\S/);
  return k === -1 ? 0 : k;
};

/** Every definition of a Rust, Java, JavaScript, TypeScript or Go text (see the module comment). */
export function braceDefs(text: string, lang: BraceLanguage): SourceDef[] {
  const m = maskCode(text, lang);
  const starts = lineStarts(m);
  const line = (offset: number): number => lineOf(starts, offset);
  const defs: SourceDef[] = [];
  const stack: Frame[] = [newFrame('', -1, 'top', null)];
  const top = (): Frame => stack[stack.length - 1] as Frame;
  const js = lang === 'javascript' || lang === 'typescript';

  const qualOf = (found: Found): string => {
    const outer = stack.flatMap((f) => (f.def ? [f.def.name] : []));
    return [...(found.qualifier !== undefined ? [found.qualifier] : outer), found.name].filter(Boolean).join('.');
  };
  const make = (found: Found, v: View, end: number): SourceDef => {
    let startAt = found.startAt;
    while (startAt < found.nameAt && isSpace(v.text[startAt])) startAt++;
    return { kind: found.kind, name: found.name, qualname: qualOf(found), start: line(v.pos[startAt] ?? 0), line: line(v.pos[found.nameAt] ?? 0), end };
  };
  const push = (f: Frame, c: string, at: number): void => {
    f.seg.chars.push(c);
    f.seg.pos.push(at);
    if (f.seg.chars.length > SEGMENT_KEEP) {
      f.seg.chars.splice(0, SEGMENT_KEEP / 2);
      f.seg.pos.splice(0, SEGMENT_KEEP / 2);
    }
  };
  const reset = (f: Frame): void => {
    f.seg = { chars: [], pos: [] };
  };
  const endExpr = (f: Frame): void => {
    if (!f.expr) return;
    f.expr.end = Math.max(f.expr.line, line(f.exprLast));
    f.expr = null;
  };
  const closeFrame = (f: Frame, at: number): void => {
    endExpr(f);
    if (f.def && f.open === '{') f.def.end = line(at);
  };

  for (let i = 0; i < m.length; i++) {
    const c = m[i] as string;
    const f = top();
    if (f.expr && !isSpace(c) && c !== ';' && c !== ',' && c !== ')' && c !== ']' && c !== '}') f.exprLast = i;
    switch (c) {
      case '{': {
        const v = viewOf(f.seg, lang);
        const found = f.role === 'opaque' ? 'opaque' : classify(v, f, lang, m);
        let role: Role;
        let def: SourceDef | null = null;
        if (found === null) role = blockRole(v, f, lang);
        else if (typeof found === 'string') role = found;
        else {
          role = found.role;
          def = make(found, v, line(i));
          defs.push(def);
        }
        stack.push(newFrame('{', i, role, def));
        break;
      }
      case '(':
      case '[':
        stack.push(newFrame(c, i, f.role === 'opaque' || f.role === 'type' ? f.role : 'paren', null, lang === 'go' ? f.seg.chars.slice(-24).join('') : ''));
        break;
      case ')':
      case ']':
      case '}': {
        const want = c === ')' ? '(' : c === ']' ? '[' : '{';
        let k = stack.length - 1;
        while (k > 0 && (stack[k] as Frame).open !== want) k--;
        if (k === 0) break; // unbalanced: ignored
        const openAt = (stack[k] as Frame).at;
        while (stack.length > k) closeFrame(stack.pop() as Frame, i);
        const parent = top();
        if (parent.expr) parent.exprLast = i;
        if (c === '}') reset(parent);
        else {
          push(parent, want, openAt);
          push(parent, c, i);
        }
        break;
      }
      case ';': {
        endExpr(f);
        if (f.role !== 'opaque') {
          const v = viewOf(f.seg, lang);
          const found = classifyBodiless(v, f, lang);
          if (found) defs.push(make(found, v, line(i)));
        }
        reset(f);
        f.sawSemi = true;
        break;
      }
      case ',':
        if (js) endExpr(f);
        push(f, c, i);
        break;
      case '\n': {
        if (js && f.expr && statementEnds(m, i)) endExpr(f);
        if (lang === 'go' && /[\w)\]}]/.test(lastCode(f.seg))) reset(f);
        else push(f, c, i);
        break;
      }
      case '=': {
        push(f, c, i);
        if (js && m[i + 1] === '>') {
          push(f, '>', i + 1);
          i++;
          if (!f.expr && f.role !== 'opaque' && firstCodeAfter(m, i + 1) !== '{') {
            const v = viewOf(f.seg, lang);
            const found = arrowBinding(v, f);
            if (found) {
              const def = make(found, v, line(i));
              defs.push(def);
              f.expr = def;
              f.exprLast = i;
            }
          }
        }
        break;
      }
      default:
        push(f, c, i);
    }
  }
  while (stack.length) closeFrame(stack.pop() as Frame, m.length - 1);
  return defs.sort((a, b) => a.start - b.start || a.line - b.line);
}

function lastCode(seg: Seg): string {
  for (let k = seg.chars.length - 1; k >= 0; k--) if (!isSpace(seg.chars[k])) return seg.chars[k] as string;
  return '';
}

function firstCodeAfter(m: string, i: number): string {
  let j = i;
  while (j < m.length && isSpace(m[j])) j++;
  return m[j] ?? '';
}

/**
 * Whether a newline at `i` ends a JS statement (for an expression-bodied arrow function): the line does not end
 * with an operator and the next code does not continue the expression.
 */
function statementEnds(m: string, i: number): boolean {
  let b = i - 1;
  while (b >= 0 && isSpace(m[b])) b--;
  const last = m[b] ?? '';
  if (/[=+\-*/%&|^!~?:<>,.([{]/.test(last)) return false;
  const next = firstCodeAfter(m, i + 1);
  return !/^[.?:+\-*/%&|^=<>,)\]}]$/.test(next);
}

// ---------------------------------------------------------------------------------------------------------------
// Header patterns

const NAME = '[A-Za-z_$][\\w$]*';
/** Words that are never a definition's name where a name is bound (`const if = …` cannot be). */
const JS_KEYWORDS = new Set([
  'if', 'for', 'while', 'switch', 'catch', 'with', 'function', 'return', 'typeof', 'do', 'else', 'try', 'finally', 'new',
  'await', 'yield', 'super', 'import', 'delete', 'void', 'throw', 'case', 'in', 'of', 'instanceof',
]);
/** Words before `(…) {` that open a statement, not a method: a method may be named `delete` or `get`, never `if`. */
const JS_STATEMENTS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'function', 'return', 'do', 'else', 'try', 'finally', 'await', 'yield', 'throw', 'case', 'typeof', 'void', 'new', 'super', 'import']);
const JAVA_KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'synchronized', 'try', 'do', 'else', 'finally', 'new', 'return', 'throw', 'super', 'this', 'assert', 'case', 'yield']);

/** A match's group index in the view (the `d` flag's indices). */
const groupAt = (m: RegExpExecArray, g: number): number => m.indices?.[g]?.[0] ?? m.index;

/** Whether the text before `at` lets a name there start a declaration (not `x = name()`, `a.name()`, `new Name()`). */
function declarationPrefix(text: string, at: number): boolean {
  const before = text.slice(Math.max(0, at - 40), at).replace(/\s+$/, '');
  return !/(?:[=.(!&|?:+\-*/%<>^~]|\b(?:new|return|await|throw|typeof|case|yield|else|in|of|delete|void))$/.test(before);
}

/** The definition a header opens, or only the role of its body (an anonymous class), or null (see blockRole). */
function classify(v: View, f: Frame, lang: BraceLanguage, masked: string): Found | Role | null {
  switch (lang) {
    case 'rust':
      return rustHeader(v);
    case 'java':
      return javaHeader(v, f);
    case 'go':
      return goHeader(v, f, masked);
    default:
      return jsHeader(v, f, lang);
  }
}

function classifyBodiless(v: View, f: Frame, lang: BraceLanguage): Found | null {
  if (lang === 'rust') {
    const fn = new RegExp(`\\bfn\\s+(?:r#)?(${NAME})\\s*(?:<>)?\\s*\\(\\)[^{};=]*$`, 'd').exec(v.text);
    if (fn) return { kind: 'fn', name: fn[1] as string, nameAt: groupAt(fn, 1), startAt: firstCodeAt(v), role: 'block' };
    const st = new RegExp(`\\bstruct\\s+(${NAME})\\s*(?:<>)?\\s*(?:\\(\\))?\\s*(?:\\bwhere\\b[^{};]*)?$`, 'd').exec(v.text);
    if (st) return { kind: 'struct', name: st[1] as string, nameAt: groupAt(st, 1), startAt: firstCodeAt(v), role: 'block' };
    return null;
  }
  if (lang === 'java') {
    if (f.role !== 'class' && !(f.role === 'enum' && f.sawSemi)) return null;
    const m = new RegExp(`(${NAME})\\s*\\(\\)\\s*(?:\\[\\]\\s*)*(?:\\bthrows\\b[^{};=]*)?(?:\\bdefault\\b[^{};]*)?$`, 'd').exec(v.text);
    if (!m || JAVA_KEYWORDS.has(m[1] as string) || !javaPrefix(v.text, groupAt(m, 1))) return null;
    return { kind: 'method', name: m[1] as string, nameAt: groupAt(m, 1), startAt: firstCodeAt(v), role: 'block' };
  }
  if (lang === 'typescript') {
    const inBody = f.role === 'class' || f.role === 'object' || f.role === 'type';
    const re = inBody
      ? new RegExp(`(?:^|[\\s;{}])((?:(?:export|declare|static|async|public|private|protected|readonly|abstract|override|get|set)\\s+)*)(#?${NAME})\\s*\\??\\s*(?:<>)?\\s*\\(\\)\\s*(?::[^{};=]*)?$`, 'd')
      : new RegExp(`(?:^|[\\s;{}])((?:(?:export|declare|default|async)\\s+)*function\\s*\\*?\\s*)(${NAME})\\s*(?:<>)?\\s*\\(\\)\\s*(?::[^{};=]*)?$`, 'd');
    const m = re.exec(v.text);
    if (!m || (inBody ? JS_STATEMENTS : JS_KEYWORDS).has(m[2] as string) || !declarationPrefix(v.text, groupAt(m, 1))) return null;
    return { kind: inBody ? 'method' : 'function', name: m[2] as string, nameAt: groupAt(m, 2), startAt: groupAt(m, 1), role: 'block' };
  }
  return null;
}

function rustHeader(v: View): Found | null {
  const t = v.text;
  const start = firstCodeAt(v);
  const mac = new RegExp(`\\bmacro_rules!\\s*(${NAME})\\s*$`, 'd').exec(t);
  if (mac) return { kind: 'macro', name: mac[1] as string, nameAt: groupAt(mac, 1), startAt: start, role: 'opaque' };
  const fn = new RegExp(`\\bfn\\s+(?:r#)?(${NAME})\\s*(?:<>)?\\s*\\(\\)[^{};]*$`, 'd').exec(t);
  if (fn) return { kind: 'fn', name: fn[1] as string, nameAt: groupAt(fn, 1), startAt: start, role: 'block' };
  const impl = /\bimpl\b\s*(?:<>)?\s*([^{};]*?)\s*(?:\bwhere\b[^{};]*)?$/d.exec(t);
  if (impl) {
    const body = impl[1] as string;
    const forAt = body.search(/\bfor\b\s/);
    const self = forAt >= 0 ? body.slice(forAt + 3) : body;
    const name = /(?:^|[\s&:])([A-Za-z_]\w*)\s*(?:<>)?\s*$/d.exec(self);
    if (name && !/^(?:mut|dyn|for)$/.test(name[1] as string)) {
      const at = groupAt(impl, 1) + (forAt >= 0 ? forAt + 3 : 0) + groupAt(name, 1);
      return { kind: 'impl', name: name[1] as string, nameAt: at, startAt: start, role: 'class' };
    }
    return null;
  }
  const item = new RegExp(`\\b(struct|enum|union|trait|mod)\\s+(${NAME})\\s*(?:<>)?\\s*(?::[^{};]*)?(?:\\bwhere\\b[^{};]*)?$`, 'd').exec(t);
  if (item) {
    const kind = item[1] as string;
    return { kind, name: item[2] as string, nameAt: groupAt(item, 2), startAt: start, role: kind === 'mod' ? 'block' : 'class' };
  }
  return null;
}

/** Whether a Java name at `at` may be a method's or constructor's (not a call, `new X()`, or an assignment). */
function javaPrefix(text: string, at: number): boolean {
  const before = text.slice(Math.max(0, at - 40), at).replace(/\s+$/, '');
  return !/(?:[=.,(!&|?:+\-*/%^~]|->|\bnew|\breturn|\bthrow|\bcase|\byield|\belse)$/.test(before);
}

function javaHeader(v: View, f: Frame): Found | Role | null {
  const t = v.text;
  const start = firstCodeAt(v);
  const type = new RegExp(`(?:^|[^\\w$.])(class|interface|enum|record|@\\s*interface)\\s+(${NAME})\\s*(?:<>)?\\s*(?:\\(\\))?\\s*(?:\\b(?:extends|implements|permits)\\b[^{};]*)?$`, 'd').exec(t);
  if (type) {
    const k = (type[1] as string).replace(/\s+/g, '');
    const kind = k === '@interface' ? 'annotation' : k;
    return { kind, name: type[2] as string, nameAt: groupAt(type, 2), startAt: start, role: kind === 'enum' ? 'enum' : 'class' };
  }
  if (f.role === 'class' || (f.role === 'enum' && f.sawSemi)) {
    const m = new RegExp(`(${NAME})\\s*\\(\\)\\s*(?:\\[\\]\\s*)*(?:\\bthrows\\b[^{};=]*)?$`, 'd').exec(t);
    if (m && !JAVA_KEYWORDS.has(m[1] as string) && javaPrefix(t, groupAt(m, 1))) {
      return { kind: 'method', name: m[1] as string, nameAt: groupAt(m, 1), startAt: start, role: 'block' };
    }
  }
  // an enum constant's body: a class body of its own, not a definition
  if (f.role === 'enum' && !f.sawSemi) return 'class';
  return null;
}

/** A `{` that opens no definition: an anonymous class body, an object literal, or a plain block. */
function blockRole(v: View, f: Frame, lang: BraceLanguage): Role {
  const t = v.text.replace(/\s+$/, '');
  if (lang === 'java') return /\bnew\s+[\w$.]+\s*(?:<>)?\s*\(\)$/.test(t) ? 'class' : 'block';
  if (lang !== 'javascript' && lang !== 'typescript') return 'block';
  if (f.role === 'type') return 'type';
  if (t === '') return f.role === 'paren' || f.role === 'object' ? 'object' : 'block';
  if (/=>$/.test(t)) return 'block';
  if (/(?:[=:(,[?!&|]|\breturn|\bexport\s+default|\byield|\bawait|\btypeof|\bin|\bof)$/.test(t)) return f.role === 'class' ? 'block' : 'object';
  return 'block';
}

function goHeader(v: View, f: Frame, masked: string): Found | null {
  const t = v.text;
  const start = firstCodeAt(v);
  const body = t.slice(start);
  const fn = new RegExp(`^func\\s*(\\(\\))?\\s*(${NAME})\\s*(?:\\[\\])?\\s*\\(\\)`, 'd').exec(body);
  if (fn) {
    let qualifier: string | undefined;
    if (fn[1]) {
      const open = v.pos[start + groupAt(fn, 1)] ?? 0;
      const close = v.pos[start + groupAt(fn, 1) + 1] ?? open;
      qualifier = /\*?\s*([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*$/.exec(masked.slice(open + 1, close))?.[1];
    }
    return { kind: fn[1] ? 'method' : 'func', name: fn[2] as string, nameAt: start + groupAt(fn, 2), startAt: start, role: 'block', ...(qualifier ? { qualifier } : {}) };
  }
  const inGroup = f.role === 'paren' && /\btype\s*$/.test(f.before);
  const ty = new RegExp(`^${inGroup ? '' : 'type\\s+'}(${NAME})\\s*(?:\\[\\])?\\s*=?\\s*(struct|interface)\\s*$`, 'd').exec(body);
  if (ty) return { kind: ty[2] as string, name: ty[1] as string, nameAt: start + groupAt(ty, 1), startAt: start, role: 'class' };
  return null;
}

/** `a.b.c` → its last part, and the part before `.prototype` as qualifier; null for `module.exports` / `exports`. */
function bindingName(target: string): { name: string; qualifier?: string } | null {
  const parts = target.split('.').map((p) => p.trim());
  const name = parts[parts.length - 1] as string;
  if (target.replace(/\s+/g, '') === 'module.exports' || (parts.length === 1 && name === 'exports')) return null;
  const proto = parts.indexOf('prototype');
  return proto > 0 ? { name, qualifier: parts[proto - 1] as string } : { name };
}

const TARGET = `(#?${NAME}(?:\\s*\\.\\s*#?${NAME})*)`;
/** `=` that assigns (not `==`, `!=`, `<=`, `>=`, `=>`), after an optional TypeScript type annotation; or `:`. */
const ASSIGN = `(?:\\s*:\\s*|(?:\\s*:[^=;{}()]*?)?\\s*(?<![=!<>])=(?![=>])\\s*)`;

/** A name bound to an arrow function whose `=>` ends the view: `const f = (a) =>`, `key: async x =>`, `x.y = () =>`. */
function arrowBinding(v: View, f: Frame): Found | null {
  if (f.role === 'type') return null; // a property's function type
  const re = new RegExp(`(?:^|[^\\w$.#])(?:(?:export\\s+)?(?:declare\\s+)?(const|let|var|type)\\s+|(?:static\\s+|readonly\\s+|private\\s+|public\\s+|protected\\s+)*)?${TARGET}${ASSIGN}(?:async\\s*)?(?:\\(\\)|${NAME})\\s*(?::[^{};=]*?)?\\s*=>\\s*$`, 'd');
  const m = re.exec(v.text);
  if (!m) return null;
  const b = bindingName(m[2] as string);
  if (!b || JS_KEYWORDS.has(b.name)) return null;
  const nameAt = groupAt(m, 2) + (m[2] as string).lastIndexOf(b.name);
  const startAt = m.index + (/^[^\w$.#]/.test(m[0]) ? 1 : 0);
  const kind = m[1] === 'type' ? 'type' : f.role === 'class' || b.qualifier ? 'method' : 'function';
  return { kind, name: b.name, nameAt, startAt, role: 'block', ...(b.qualifier ? { qualifier: b.qualifier } : {}) };
}

function jsHeader(v: View, f: Frame, lang: BraceLanguage): Found | Role | null {
  const t = v.text;
  // class X …, const X = class …
  const cls = new RegExp(`(?:^|[^\\w$.])((?:export\\s+(?:default\\s+)?)?(?:declare\\s+)?(?:abstract\\s+)?)class(?:\\s+(${NAME}))?\\s*(?:<>)?(?:\\s+extends\\s+[^{};]*?)?(?:\\s+implements\\s+[^{};]*?)?\\s*$`, 'd').exec(t);
  if (cls) {
    const bound = new RegExp(`(?:^|[^\\w$.#])(?:(?:export\\s+)?(?:const|let|var)\\s+)?${TARGET}${ASSIGN}$`, 'd').exec(t.slice(0, cls.index + (/^[^\w$.]/.test(cls[0]) ? 1 : 0)));
    const b = bound ? bindingName(bound[1] as string) : null;
    if (b && bound) return { kind: 'class', name: b.name, nameAt: groupAt(bound, 1) + (bound[1] as string).lastIndexOf(b.name), startAt: bound.index + (/^[^\w$.#]/.test(bound[0]) ? 1 : 0), role: 'class' };
    if (cls[2]) return { kind: 'class', name: cls[2], nameAt: groupAt(cls, 2), startAt: groupAt(cls, 1), role: 'class' };
    return 'class'; // an anonymous class: no definition, but its methods are read
  }
  // TypeScript's declarations before functions: a `declare function f(): T` without `;` must not swallow them
  if (lang === 'typescript') {
    const ts = new RegExp(`(?:^|[^\\w$.])((?:export\\s+(?:default\\s+)?)?(?:declare\\s+)?(?:const\\s+)?)(interface|enum|namespace|module|type)\\s+(${NAME}(?:\\.${NAME})*)\\s*(?:<>)?\\s*(?:extends\\s+[^{};]*?)?(=)?\\s*$`, 'd').exec(t);
    if (ts && (ts[2] === 'type') === (ts[4] === '=')) {
      const kind = ts[2] === 'module' ? 'namespace' : (ts[2] as string);
      return { kind, name: ts[3] as string, nameAt: groupAt(ts, 3), startAt: groupAt(ts, 1), role: kind === 'interface' || kind === 'type' ? 'type' : kind === 'enum' ? 'object' : 'block' };
    }
  }
  // function [name] (…) — bound to a name or named itself
  const fn = new RegExp(`(?:^|[^\\w$.])((?:export\\s+(?:default\\s+)?)?(?:declare\\s+)?(?:async\\s+)?)function\\b\\s*\\*?\\s*(${NAME})?\\s*(?:<>)?\\s*\\(\\)\\s*(?::[^{};=]*)?$`, 'd').exec(t);
  if (fn) {
    const fnStart = groupAt(fn, 1);
    const bound = new RegExp(`(?:^|[^\\w$.#])(?:(?:export\\s+)?(?:const|let|var)\\s+)?${TARGET}${ASSIGN}$`, 'd').exec(t.slice(0, fnStart));
    const b = bound ? bindingName(bound[1] as string) : null;
    if (b && bound && !JS_KEYWORDS.has(b.name)) {
      return {
        kind: f.role === 'class' || b.qualifier ? 'method' : 'function',
        name: b.name,
        nameAt: groupAt(bound, 1) + (bound[1] as string).lastIndexOf(b.name),
        startAt: bound.index + (/^[^\w$.#]/.test(bound[0]) ? 1 : 0),
        role: 'block',
        ...(b.qualifier ? { qualifier: b.qualifier } : {}),
      };
    }
    if (fn[2]) return { kind: 'function', name: fn[2], nameAt: groupAt(fn, 2), startAt: fnStart, role: 'block' };
    return null;
  }
  // (…) => {  bound to a name
  if (/=>\s*$/.test(t)) return arrowBinding(v, f);
  // methods of classes and object literals
  if (f.role === 'class' || f.role === 'object') {
    const m = new RegExp(`(?:^|[\\s,;{}*])((?:(?:static|async|get|set|public|private|protected|readonly|override|abstract|declare)\\s+)*\\*?\\s*)(#?${NAME})\\s*\\??\\s*(?:<>)?\\s*\\(\\)\\s*(?::[^{};=]*?)?\\s*$`, 'd').exec(t);
    if (m && !JS_STATEMENTS.has(m[2] as string) && declarationPrefix(t, groupAt(m, 1))) {
      return { kind: 'method', name: m[2] as string, nameAt: groupAt(m, 2), startAt: groupAt(m, 1), role: 'block' };
    }
  }
  return null;
}
