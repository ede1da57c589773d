/**
 * The offline, deterministic half of a profile: from a file's text, what the parser and a few patterns can
 * state as fact. Symbols, imports (resolved to repo paths), line counts, a doc-comment summary and the file's
 * vocabulary. `key_concepts` are chosen later, against the whole repository, from what the stored profile holds
 * (`candidateTermsOf`), so an index alone is enough to choose them again.
 */
import path from 'node:path';
import type { CodeSymbol, FileRole, FileSummary } from '../index/types.js';
import { CODE_NOISE, STOPWORDS, stem, words } from '../shared/text.js';
import { WordCache } from './wordCache.js';
import { fileVocabulary, parseVocabulary } from './vocabulary.js';
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
  /** Every word of the file with its count, bounded (see vocabulary.ts). */
  vocabulary: string;
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
    vocabulary: fileVocabulary(content),
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
 * The static profiler composes a summary from the file's type, symbols and imports when the file has no doc
 * comment ("TypeScript source defining functions a, b. Uses x."): its words restate other fields.
 */
export function isComposedSummary(file: Pick<FileSummary, 'profile_source' | 'file_type' | 'summary'>): boolean {
  return file.profile_source === 'static' && file.file_type !== '' && file.summary.startsWith(file.file_type);
}

/**
 * Terms that may characterise a statically profiled file, weighted by where they appear: symbol names (3), the
 * file's path and its doc comment (2), symbol docs (1), any other word of the file (log2(1 + count)). Stems
 * merge `cache`/`caching`; the most frequent surface form is kept so concepts stay readable. A pure function of
 * the stored profile: incremental runs and shard merges choose concepts again from indexes alone.
 */
export function candidateTermsOf(file: FileSummary, cache: WordCache): Array<[string, number]> {
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
  for (const symbol of file.symbols) {
    for (const w of cache.split(symbol.name)) add(w, 3);
    if (symbol.doc) for (const w of words(symbol.doc)) add(w, 1);
  }
  const withoutExt = file.file_path.replace(/\.[^./]+$/, '');
  for (const w of words(withoutExt)) add(w, 2);
  if (!isComposedSummary(file)) for (const w of words(file.summary)) add(w, 2);
  const counts = new Map<string, number>();
  for (const [identifier, n] of parseVocabulary(file.vocabulary)) {
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
 * Sets `key_concepts` of every statically profiled file of one repository, chosen against all of them. Model
 * profiles keep the model's concepts. Depends only on the profiles, so a full run, an incremental run and a
 * merge of shards agree.
 */
export function chooseConcepts(
  files: readonly FileSummary[],
  cache = new WordCache(),
  /** Where a caller already knows a file's candidate terms (an incremental run, from its last run). */
  termsOf: (file: FileSummary) => Array<[string, number]> = (file) => candidateTermsOf(file, cache),
): void {
  const chosen = files.filter((file) => file.profile_source === 'static' && file.status !== 'skipped');
  const concepts = finalizeConcepts(chosen.map(termsOf));
  chosen.forEach((file, i) => {
    file.key_concepts = concepts[i] ?? [];
  });
}

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
