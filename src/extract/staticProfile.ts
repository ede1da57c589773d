/**
 * The offline, deterministic half of a profile: from a file's text, what the parser and a few patterns can
 * state as fact. Symbols, imports (resolved to repo paths), line counts, a doc-comment summary and weighted
 * candidate terms for `key_concepts` (made characteristic against the whole repository later).
 */
import path from 'node:path';
import type { CodeSymbol, FileRole, SummarySource } from '../index/types.js';
import { CODE_NOISE, STOPWORDS, stem, words } from '../shared/text.js';
import { countIdentifiers, type WordCache } from './wordCache.js';
import { findImports, importStyleOf, resolveImports, type RepoFileSet } from './imports.js';
import { detectLanguage, type GrammarId } from './languages.js';
import type { ParserPool } from './parser.js';
import { detectRole, describeFileType } from './role.js';
import { firstProseComment, moduleDoc } from './comments.js';
import { composeSummary, mainFunctions, shorten } from './summary.js';
import { extractOutline } from './symbols.js';

export interface StaticFacts {
  language: string;
  grammar: GrammarId | null;
  role: FileRole;
  file_type: string;
  symbols: CodeSymbol[];
  main_functions: string[];
  dependencies: string[];
  local_imports: string[];
  lines_of_code: number;
  /** The leading doc comment or docstring, when the file has one. */
  doc: string | undefined;
  summary: string;
  summary_source: SummarySource;
  /** Names the file exports (JavaScript/TypeScript, Go, Rust), for the summary and the choice of main functions. */
  exports: string[];
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

const MAX_TERMS = 40;

export async function extractStaticFacts(filePath: string, content: string, context: ExtractContext): Promise<StaticFacts> {
  const info = detectLanguage(filePath);
  const role = detectRole(filePath);
  let symbols: CodeSymbol[] = [];
  let exports: string[] = [];
  let doc: string | undefined;
  let comment: string | undefined;
  let parseError: string | undefined;
  if (info.grammar) {
    const grammar = info.grammar;
    try {
      [{ symbols, exports }, doc, comment] = await context.parsers.withTree(grammar, content, (tree) => {
        const leading = moduleDoc(tree, grammar);
        const outline = extractOutline(tree, grammar, content);
        const memberRows = new Set(outline.symbols.filter((s) => s.ast_path.includes('-')).map((s) => s.start_line - 1));
        return [outline, leading, leading ? undefined : firstProseComment(tree, grammar, content, memberRows)] as const;
      });
    } catch (error) {
      parseError = (error as Error).message;
    }
  } else {
    doc = textDoc(filePath, content);
  }
  const style = importStyleOf(info.grammar ?? info.name);
  const imports = resolveImports(filePath, findImports(content, style), style, context.repoFiles);
  const file_type = describeFileType(info.name, role);
  const main_functions = mainFunctions(symbols, exports);
  const terms = candidateTerms(filePath, content, symbols, doc, context.words);
  const summarySource: SummarySource = doc ? 'doc' : comment ? 'comment' : 'composed';
  const facts: StaticFacts = {
    language: info.name,
    grammar: info.grammar,
    role,
    file_type,
    symbols,
    main_functions,
    dependencies: imports.dependencies,
    local_imports: imports.local,
    lines_of_code: countNonEmptyLines(content),
    doc,
    summary:
      doc ??
      comment ??
      composeSummary({
        fileType: file_type,
        symbols,
        exports,
        dependencies: imports.dependencies,
        terms: terms.slice(0, 5).map(([term]) => term),
        keys: CONFIG_LANGUAGES.has(info.name) ? topLevelKeys(content) : [],
      }),
    summary_source: summarySource,
    exports,
    terms,
  };
  if (parseError) facts.parse_error = parseError;
  return facts;
}

export function countNonEmptyLines(content: string): number {
  let count = 0;
  for (const line of content.split('\n')) if (line.trim() !== '') count++;
  return count;
}

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
