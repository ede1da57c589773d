/**
 * The offline, deterministic half of a profile: from a file's text, what the parser and a few patterns can
 * state as fact. Symbols, imports (resolved to repo paths), line counts, a doc-comment summary and weighted
 * candidate terms for `key_concepts` (made characteristic against the whole repository later).
 */
import path from 'node:path';
import type { CodeSymbol, FileRole } from '../index/types.js';
import { CODE_NOISE, STOPWORDS, stem, words } from '../shared/text.js';
import { countIdentifiers, type WordCache } from './wordCache.js';
import { findImports, importStyleOf, resolveImports, type RawImport, type RepoFileSet } from './imports.js';
import { detectLanguage, type GrammarId } from './languages.js';
import type { ParserPool } from './parser.js';
import { detectRole, describeFileType } from './role.js';
import { extractSymbols, moduleDoc } from './symbols.js';

export interface StaticFacts {
  language: string;
  grammar: GrammarId | null;
  role: FileRole;
  file_type: string;
  symbols: CodeSymbol[];
  main_functions: string[];
  dependencies: string[];
  local_imports: string[];
  /** The import specifiers as written, so a later run can re-resolve them when the repository's files change. */
  raw_imports: RawImport[];
  lines_of_code: number;
  /** The leading doc comment or docstring, when the file has one. */
  doc: string | undefined;
  summary: string;
  /** Candidate concept terms with weights, strongest first; `finalizeConcepts` picks the characteristic ones. */
  terms: Array<[string, number]>;
  /** Set when the grammar failed on this file; the facts then come from the text alone. */
  parse_error?: string;
}

export interface ExtractContext {
  parsers: ParserPool;
  repoFiles: RepoFileSet;
  /** Memoised identifier splits and stems, shared by every file an extractor handles. */
  words: WordCache;
}

const MAX_MAIN_FUNCTIONS = 40;
const MAX_TERMS = 40;
const SUMMARY_MAX = 320;

export async function extractStaticFacts(filePath: string, content: string, context: ExtractContext): Promise<StaticFacts> {
  const info = detectLanguage(filePath);
  const role = detectRole(filePath);
  let symbols: CodeSymbol[] = [];
  let doc: string | undefined;
  let parseError: string | undefined;
  if (info.grammar) {
    const grammar = info.grammar;
    try {
      [symbols, doc] = await context.parsers.withTree(grammar, content, (tree) => [extractSymbols(tree, grammar), moduleDoc(tree, grammar)] as const);
    } catch (error) {
      parseError = (error as Error).message;
    }
  } else {
    doc = textDoc(filePath, content);
  }
  const style = importStyleOf(info.grammar ?? info.name);
  const rawImports = findImports(content, style);
  const imports = resolveImports(filePath, rawImports, style, context.repoFiles);
  const file_type = describeFileType(info.name, role);
  const main_functions = mainFunctions(symbols);
  const facts: StaticFacts = {
    language: info.name,
    grammar: info.grammar,
    role,
    file_type,
    symbols,
    main_functions,
    dependencies: imports.dependencies,
    local_imports: imports.local,
    raw_imports: rawImports,
    lines_of_code: countNonEmptyLines(content),
    doc,
    summary: doc ?? composeSummary(file_type, symbols, imports.dependencies, content),
    terms: candidateTerms(filePath, content, symbols, doc, context.words),
  };
  if (parseError) facts.parse_error = parseError;
  return facts;
}

export function countNonEmptyLines(content: string): number {
  let count = 0;
  for (const line of content.split('\n')) if (line.trim() !== '') count++;
  return count;
}

/**
 * DeepCode lists "main functions or classes": classes, functions and methods first (as `Class.method`), then
 * the type-level declarations (interfaces, type aliases, enums) while room remains.
 */
function mainFunctions(symbols: CodeSymbol[]): string[] {
  const primary: string[] = [];
  const secondary: string[] = [];
  for (const symbol of symbols) {
    const name = symbol.ast_path.replace(/-/g, '.');
    if (CALLABLE_OR_CLASS.has(symbol.kind)) primary.push(name);
    else if (TYPE_LEVEL.has(symbol.kind)) secondary.push(name);
  }
  return [...primary, ...secondary].slice(0, MAX_MAIN_FUNCTIONS);
}

const CALLABLE_OR_CLASS: ReadonlySet<string> = new Set(['class', 'function', 'method', 'struct', 'trait']);
const TYPE_LEVEL: ReadonlySet<string> = new Set(['interface', 'type', 'enum']);

/** Markdown's first paragraph under its title; JSON's and YAML's top-level keys. */
function textDoc(filePath: string, content: string): string | undefined {
  const ext = path.posix.extname(filePath).toLowerCase();
  if (ext === '.md' || ext === '.rst' || ext === '.txt') {
    const paragraph = content
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .find((p) => p && !/^(#|=|-|\[!\[|<|!\[|```)/.test(p));
    return paragraph ? shorten(paragraph.replace(/\s+/g, ' ')) : undefined;
  }
  return undefined;
}

function composeSummary(fileType: string, symbols: CodeSymbol[], dependencies: string[], content: string): string {
  const parts: string[] = [];
  const topLevel = symbols.filter((s) => !s.ast_path.includes('-'));
  const byKind = new Map<string, string[]>();
  for (const symbol of topLevel) {
    const list = byKind.get(symbol.kind) ?? [];
    list.push(symbol.name);
    byKind.set(symbol.kind, list);
  }
  const described = [...byKind.entries()].map(([kind, names]) => {
    const plural = names.length > 1 ? (kind === 'class' ? 'classes' : `${kind}s`) : kind;
    const shown = names.slice(0, 6).join(', ');
    return `${plural} ${shown}${names.length > 6 ? ` and ${names.length - 6} more` : ''}`;
  });
  if (described.length) parts.push(`${fileType} defining ${described.join('; ')}.`);
  else {
    const keys = CONFIG_LANGUAGES.has(fileType.split(' ')[0] ?? '') ? topLevelKeys(content) : [];
    parts.push(keys.length ? `${fileType} with keys ${keys.slice(0, 8).join(', ')}.` : `${fileType}.`);
  }
  if (dependencies.length) {
    parts.push(`Uses ${dependencies.slice(0, 6).join(', ')}${dependencies.length > 6 ? ` and ${dependencies.length - 6} more` : ''}.`);
  }
  return shorten(parts.join(' '));
}

const CONFIG_LANGUAGES = new Set(['JSON', 'YAML', 'TOML', 'INI']);

function topLevelKeys(content: string): string[] {
  const keys = new Set<string>();
  for (const match of content.matchAll(/^(?:"([\w.-]+)"\s*:|([A-Za-z_][\w.-]*)\s*[:=])/gm)) {
    const key = match[1] ?? match[2];
    if (key) keys.add(key);
    if (keys.size >= 12) break;
  }
  return [...keys];
}

function shorten(text: string): string {
  return text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 1).trimEnd()}…` : text;
}

/**
 * Terms that may characterise the file, weighted by where they appear: symbol names (3), the file's path and
 * doc comments (2), any other identifier (1, damped). Stems merge `cache`/`caching`; the most frequent surface
 * form is kept so concepts stay readable.
 */
function candidateTerms(filePath: string, content: string, symbols: CodeSymbol[], doc: string | undefined, cache: WordCache): Array<[string, number]> {
  const weights = new Map<string, { weight: number; forms: Map<string, number> }>();
  const add = (word: string, weight: number): void => {
    if (word.length < 3 || STOPWORDS.has(word) || CODE_NOISE.has(word)) return;
    const first = word.charCodeAt(0);
    if (first >= 48 && first <= 57) return;
    const key = cache.stem(word);
    let entry = weights.get(key);
    if (!entry) {
      entry = { weight: 0, forms: new Map() };
      weights.set(key, entry);
    }
    entry.weight += weight;
    entry.forms.set(word, (entry.forms.get(word) ?? 0) + 1);
  };
  for (const symbol of symbols) {
    for (const w of cache.split(symbol.name)) add(w, 3);
    if (symbol.doc) for (const w of words(symbol.doc)) add(w, 1);
  }
  const withoutExt = filePath.replace(/\.[^./]+$/, '');
  for (const w of words(withoutExt)) add(w, 2);
  if (doc) for (const w of words(doc)) add(w, 2);
  const counts = new Map<string, number>();
  for (const [identifier, n] of countIdentifiers(content)) {
    for (const w of cache.split(identifier)) counts.set(w, (counts.get(w) ?? 0) + n);
  }
  for (const [w, n] of counts) add(w, Math.log2(1 + n));
  return [...weights.values()]
    .map((entry): [string, number] => [mostFrequentForm(entry.forms), entry.weight])
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, MAX_TERMS);
}

function mostFrequentForm(forms: Map<string, number>): string {
  let best = '';
  let bestCount = -1;
  for (const [form, count] of forms) {
    if (count > bestCount || (count === bestCount && form.length < best.length)) {
      best = form;
      bestCount = count;
    }
  }
  return best;
}

export const KEY_CONCEPTS_PER_FILE = 10;

/**
 * Makes each file's concepts characteristic of it within its repository: a term found in most files (a
 * licence word, the project's name) is weighed down by its inverse document frequency.
 */
export function finalizeConcepts(termLists: Array<Array<[string, number]>>): string[][] {
  const documentFrequency = new Map<string, number>();
  for (const terms of termLists) {
    for (const [term] of terms) {
      const key = stem(term);
      documentFrequency.set(key, (documentFrequency.get(key) ?? 0) + 1);
    }
  }
  const total = Math.max(termLists.length, 1);
  return termLists.map((terms) =>
    terms
      .map(([term, weight]): [string, number] => {
        const df = documentFrequency.get(stem(term)) ?? 1;
        return [term, weight * Math.log(1 + total / df)];
      })
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, KEY_CONCEPTS_PER_FILE)
      .map(([term]) => term),
  );
}
