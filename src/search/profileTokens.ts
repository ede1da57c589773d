/**
 * What a profile says, as tokens: the fields BM25F scores (file name, folders, symbols, key concepts, doc
 * comments, summary, imports, the file's whole vocabulary, and the subjects of the commits that touched it)
 * and the tokeniser that splits and stems them, the same for profiles and requests. Also which source file a
 * test is named after.
 */
import path from 'node:path';
import { searchableSummary } from '../index/summaries.js';
import { parseVocabulary } from '../index/vocabulary.js';
import type { FileSummary } from '../index/types.js';
import { detached, SEARCH_STOPWORDS, searchStem, splitIdentifier } from '../shared/text.js';

/** The profile fields BM25F scores, in postings order. */
export const FIELDS = ['name', 'path', 'symbols', 'concepts', 'docs', 'summary', 'imports', 'body', 'history'] as const;
export type FieldName = (typeof FIELDS)[number];
export const FIELD_COUNT = FIELDS.length;
/**
 * Text to stemmed, stopword-free tokens, memoised per identifier. Documents and queries go through the same
 * one, so both sides split and stem alike.
 */
export class Tokenizer {
  private readonly memo = new Map<string, readonly string[]>();

  /** `memoLimit`: identifiers memoised at most (the memo is emptied when full). */
  constructor(private readonly memoLimit = MEMO_LIMIT) {}

  /**
   * `parseHTTPResponse` -> parse, http, respons, parsehttprespons: the parts, and the whole identifier when it
   * has several, so `formdata` in a query finds `FormData` and `mergeConfig` matches itself more than `merge`.
   */
  identifier(id: string): readonly string[] {
    let out = this.memo.get(id);
    if (out === undefined) {
      // A number the code uses (404, 500, an errno) is a word of its own; shorter and longer ones are noise.
      if (isDigits(id)) return id.length >= MIN_NUMBER && id.length <= MAX_NUMBER ? [id] : [];
      const words = splitIdentifier(id);
      const parts: string[] = [];
      for (const w of words) {
        if (w.length < 2 || SEARCH_STOPWORDS.has(w) || isDigits(w)) continue;
        parts.push(detached(searchStem(w)));
        // `base64` is also about `base`, `utf8` about `utf`: the letters alone match a request that omits the number.
        const letters = lettersBeforeDigits(w);
        if (letters.length >= 3 && !SEARCH_STOPWORDS.has(letters)) parts.push(detached(searchStem(letters)));
      }
      if (words.length > 1) {
        const whole = words.join('');
        if (whole.length > 3 && !isDigits(whole)) parts.push(searchStem(whole));
      }
      out = parts;
      // Bounded: building the index of a large repository meets millions of distinct identifiers.
      if (this.memo.size >= this.memoLimit) this.memo.clear();
      this.memo.set(detached(id), out);
    }
    return out;
  }

  /**
   * Appends the tokens of free text or code to `out`. A negation and the word after it (`not found`, `no
   * content`) also give the two as one token, as the identifier `NotFound` does, so the phrase is not lost to
   * the stopword `not`.
   */
  text(value: string, out: string[] = []): string[] {
    let negation = '';
    let negationEnd = -1;
    for (const match of value.matchAll(IDENTIFIER)) {
      const word = match[0];
      if (negation && /^[\s_-]+$/.test(value.slice(negationEnd, match.index)) && !isDigits(word)) {
        const joined = negation + word.toLowerCase();
        if (joined.length > 3) out.push(searchStem(joined));
      }
      for (const t of this.identifier(word)) out.push(t);
      negation = NEGATIONS.has(word.toLowerCase()) ? word.toLowerCase() : '';
      negationEnd = match.index + word.length;
    }
    return out;
  }
}

/**
 * What the tokenizer reads as one identifier in text or code, none spanning a line break: a name, or a number
 * standing alone (not part of a name, a decimal or a version).
 */
export const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*|(?<![\w.])\d+(?![\w]|\.\d)/g;
/** Digits a number token has: 404, 500, 1062 (MySQL's duplicate key), 10061 (Winsock's refused connection). */
const MIN_NUMBER = 3;
const MAX_NUMBER = 5;
/** Words that negate the next: kept as part of a phrase (`not found` -> `notfound`). */
const NEGATIONS: ReadonlySet<string> = new Set(['not', 'no', 'non']);
const MEMO_LIMIT = 100_000;

/** `base64` -> `base`; a word that does not end in digits -> ''. */
function lettersBeforeDigits(w: string): string {
  let end = w.length;
  while (end > 0 && w.charCodeAt(end - 1) >= 48 && w.charCodeAt(end - 1) <= 57) end--;
  return end === w.length ? '' : w.slice(0, end);
}

function isDigits(w: string): boolean {
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** A file's stem (`lib/core/AxiosHeaders.js` -> `AxiosHeaders`) and its folder (`.` at the top). */
export function splitPath(filePath: string): { stem: string; dir: string } {
  const posix = filePath.replace(/\\/g, '/');
  const base = path.posix.basename(posix);
  const dot = base.indexOf('.', 1);
  return { stem: dot > 0 ? base.slice(0, dot) : base, dir: path.posix.dirname(posix) };
}

/**
 * A one-word symbol name (`latex`, `Matrix`) is also a part of longer names (`_latex`, `MatrixBase`), so its token
 * alone cannot say which files define it. The symbols field also holds `=<name>` for each such definition, lower-
 * cased: no request token starts with `=`, so ranking never meets it, and it counts in no field's length. A
 * name of several words needs none: its joined token (`formatreprexcept`) is its own.
 */
export const DEFINITION_PREFIX = '=';

export function definitionToken(name: string): string {
  return `${DEFINITION_PREFIX}${name.toLowerCase()}`;
}

/**
 * The symbols-field token only a definition of `name` gives its file: `=echo` for a one-word name, the joined
 * stem for a longer one (`getcurrentcontext`, which `get_current_context_impl` does not give). Null when the name
 * gives none.
 */
export function definedToken(name: string): string | null {
  const parts = splitIdentifier(name);
  if (parts.length === 1) return definitionToken(name);
  // The joined token Tokenizer.identifier gives a name of several words.
  const whole = parts.join('');
  return whole.length > 3 && !isDigits(whole) ? searchStem(whole) : null;
}

export function isDefinitionToken(token: string): boolean {
  return token.startsWith(DEFINITION_PREFIX);
}

/** Each field's token counts for one profile, in `FIELDS` order; its key concepts `concepts` (none when null). */
export function fieldTokens(file: FileSummary, tokenizer: Tokenizer, concepts: readonly string[] | null = file.key_concepts): Array<Map<string, number>> {
  const { stem: fileStem, dir } = splitPath(file.file_path);
  const symbolNames = new Set<string>();
  const symbols: string[] = [];
  const docs: string[] = [];
  const definitions: string[] = [];
  for (const s of file.symbols) {
    symbolNames.add(s.name);
    tokenizer.text(s.name, symbols);
    if (splitIdentifier(s.name).length === 1) definitions.push(definitionToken(s.name));
    if (s.doc) tokenizer.text(s.doc, docs);
    if (s.description) tokenizer.text(s.description, docs);
  }
  // main_functions repeats symbol names as `Class.method`; in an index written by a model it is the only list.
  for (const fn of file.main_functions) {
    if (!symbolNames.has(fn.slice(fn.lastIndexOf('.') + 1))) tokenizer.text(fn, symbols);
  }
  const imports: string[] = [];
  for (const dep of file.dependencies) tokenizer.text(importWords(dep), imports);
  const name = tokenizer.text(fileStem);
  // A declaration file is about types whatever its stem: index.d.ts, stubs.pyi.
  if (/\.d\.[cm]?ts$|\.pyi$/.test(file.file_path)) tokenizer.text('types', name);
  const body = new Map<string, number>();
  for (const [word, n] of parseVocabulary(file.vocabulary)) {
    for (const t of tokenizer.identifier(word)) body.set(t, (body.get(t) ?? 0) + n);
  }
  return [
    counted(name),
    counted(dir === '.' ? [] : tokenizer.text(dir)),
    counted([...symbols, ...definitions]),
    concepts ? conceptTokens(concepts, tokenizer) : new Map(),
    counted(docs),
    // A composed summary restates the symbols and imports fields, and its boilerplate ("source", "defining",
    // "uses") would match requests by accident: only its title counts.
    counted(tokenizer.text(searchableSummary(file))),
    counted(imports),
    body,
    counted(file.history ? tokenizer.text(file.history.join('\n')) : []),
  ];
}

/** The concepts field's token counts. */
export function conceptTokens(concepts: readonly string[], tokenizer: Tokenizer): Map<string, number> {
  return counted(tokenizer.text(concepts.join(' ')));
}

function counted(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/** What an import says about a file: a package's name, or a local path's last folder and stem. */
function importWords(dep: string): string {
  if (!dep.includes('/') || dep.startsWith('@')) return dep;
  const { stem: depStem, dir } = splitPath(dep);
  return `${path.posix.basename(dir)} ${depStem}`;
}

/**
 * The stems a test file may be named after, lower-cased: its own without test affixes (`flag_mutex_test.go`,
 * `test_core.py`, `url.spec.js`, `FooTest.java`) and its folder (`__tests__/context/cookies.js` -> `context`).
 */
export function testedStems(filePath: string): string[] {
  const posix = filePath.replace(/\\/g, '/');
  const base = path.posix.basename(posix);
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  const out = new Set<string>();
  const bare = stem.replace(/^tests?[_-]/i, '').replace(/([_.-](test|spec)s?|Tests?|Spec)$/, '');
  if (bare && bare.toLowerCase() !== 'conftest') out.add(bare.toLowerCase());
  const folder = path.posix.basename(path.posix.dirname(posix)).toLowerCase();
  if (folder && folder !== '.' && !TEST_FOLDERS.has(folder)) out.add(folder);
  return [...out];
}

const TEST_FOLDERS = new Set(['test', 'tests', '__tests__', 'spec', 'specs', 'unit', 'integration', 'e2e', 'fixtures', 'testdata', 'helpers', 'regression', 'support']);
