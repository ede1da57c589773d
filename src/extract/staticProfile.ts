/**
 * The offline, deterministic half of a profile: from a file's text, what the parser and a few patterns can
 * state as fact. Symbols, imports (resolved to repo paths), line counts, a doc-comment summary and the file's
 * vocabulary. `key_concepts` are chosen later, against the whole repository, from what the stored profile holds
 * (`candidateTermsOf`), so an index alone is enough to choose them again.
 */
import path from 'node:path';
import type { CodeSymbol, FileRole, FileStatus, FileSummary, ProfileSource, SummarySource } from '../index/types.js';
import { CODE_NOISE, compareCodeUnits, STOPWORDS, withoutLinks, words } from '../shared/text.js';
import { DocumentFrequencies } from './conceptTerms.js';
import { WordCache } from './wordCache.js';
import { vocabularyEntries } from './vocabulary.js';
import { formatVocabulary, MAX_STORED_COUNT, parseVocabulary } from '../index/vocabulary.js';
import { isComposedSummary, searchableSummary } from '../index/summaries.js';
import { findImports, importStyleOf, resolveImports, type RawImport, type RepoFileSet } from './imports.js';
import { detectLanguage, type GrammarId } from './languages.js';
import type { ParserPool } from './parser.js';
import { detectRole, describeFileType } from './role.js';
import { isCodeAt, mainDefinitionDoc, moduleDoc } from './comments.js';
import { composeSummary, mainFunctions, shorten } from './summary.js';
import { extractOutline } from './symbols.js';
import { symbolTerms } from './symbolTerms.js';
import { inlineTestModules, withoutRanges, type TextRange } from './testModules.js';

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
  /** A header too short to be the summary (`// Bulgarian [bg]`), kept when the summary is composed: it opens it. */
  title?: string;
  summary: string;
  summary_source: SummarySource;
  /** Names the file exports (JavaScript/TypeScript, Go, Rust), for the summary and the choice of main functions. */
  exports: string[];
  /** Every word of the file with its count, bounded (see vocabulary.ts). */
  vocabulary: string;
  /** Set when the grammar failed on this file; the facts then come from the text alone. */
  parse_error?: string;
  /** The candidate concept terms of the static profile these facts make (`candidateTermsOf`). */
  terms: Array<[string, number]>;
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
  let title: string | undefined;
  let comment: string | undefined;
  let parseError: string | undefined;
  let testModules: TextRange[] = [];
  const style = importStyleOf(info.grammar ?? info.name);
  let rawImports: RawImport[] | null = null;
  if (info.grammar) {
    const grammar = info.grammar;
    try {
      [{ symbols, exports }, { doc, title }, comment, testModules, rawImports] = await context.parsers.withTree(grammar, content, (tree) => {
        const header = moduleDoc(tree, grammar);
        const outline = extractOutline(tree, grammar, content);
        const main = header.doc ? undefined : mainDefinitionDoc(filePath, outline.symbols, outline.exports);
        return [outline, header, main, inlineTestModules(tree, grammar), findImports(content, style, (index) => isCodeAt(tree, index))] as const;
      });
    } catch (error) {
      parseError = (error as Error).message;
    }
  } else {
    doc = textDoc(filePath, content);
  }
  rawImports ??= findImports(content, style);
  symbols = withTerms(symbols, symbolTerms(content, symbols));
  const imports = resolveImports(filePath, rawImports, style, context.repoFiles);
  const file_type = describeFileType(info.name, role);
  const main_functions = mainFunctions(symbols, exports);
  const summarySource: SummarySource = doc ? 'doc' : comment ? 'comment' : 'composed';
  if (summarySource !== 'composed') title = undefined;
  // An inline test module is test code (testModules.ts): its words are not the file's own.
  const entries = vocabularyEntries(withoutRanges(content, testModules), role === 'config');
  const vocabulary = formatVocabulary(entries);
  // The profile's candidate terms, worked out here on the extraction thread; a composed summary adds no words, so
  // they are known before it is written, and it names the strongest of them.
  const termsWith = (summary: string): Array<[string, number]> =>
    candidateTermsOf({ file_path: filePath, symbols, vocabulary, summary, summary_source: summarySource, title, profile_source: 'static', file_type }, context.words, entries);
  let composedTerms: Array<[string, number]> | null = null;
  const strongestTerms = (): string[] => strongest(composedTerms ??= termsWith(''));
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
    summary:
      doc ??
      comment ??
      composeSummary({
        title,
        fileType: file_type,
        symbols,
        exports,
        dependencies: imports.dependencies,
        terms: strongestTerms(),
        keys: CONFIG_LANGUAGES.has(info.name) ? topLevelKeys(content) : [],
      }),
    summary_source: summarySource,
    ...(title ? { title } : {}),
    exports,
    vocabulary,
    terms: [],
  };
  facts.terms = composedTerms ?? termsWith(facts.summary);
  if (parseError) facts.parse_error = parseError;
  return facts;
}

/**
 * A stored static profile as extracting its unchanged file again makes it when the repository's other files
 * changed how its imports resolve: the resolution and a composed summary, which lists the dependencies, are
 * new; everything else comes from the file's text alone. `exports` and `terms` are what its extraction
 * recorded (its exported names, its candidate terms). A config file, whose composed summary names keys read
 * from its text, has no imports to resolve and never comes here. Its concepts are chosen again with the
 * repository's.
 */
export function withImportsResolved(
  profile: FileSummary,
  resolved: { dependencies: string[]; local: string[] },
  exports: string[],
  terms: ReadonlyArray<readonly [string, number]>,
): FileSummary {
  const summary = isComposedSummary(profile)
    ? composeSummary({ title: profile.title, fileType: profile.file_type, symbols: profile.symbols, exports, dependencies: resolved.dependencies, terms: strongest(terms), keys: [] })
    : profile.summary;
  return { ...profile, key_concepts: [], dependencies: resolved.dependencies, summary, local_imports: resolved.local };
}

/** The terms a composed summary names when a file defines nothing: its strongest candidate terms. */
function strongest(terms: ReadonlyArray<readonly [string, number]>): string[] {
  return terms.slice(0, 5).map(([term]) => term);
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
 * Terms that may characterise a statically profiled file, weighted by where they appear: symbol names (3), the
 * file's path and its doc comment (2), symbol docs (1), any other word of the file (log2(1 + count)). Stems
 * merge `cache`/`caching`; the most frequent surface form is kept so concepts stay readable. A pure function of
 * the stored profile: incremental runs and shard merges choose concepts again from indexes alone. `vocabulary`
 * is the profile's vocabulary as entries, when the caller has them unparsed.
 */
export function candidateTermsOf(
  file: Pick<FileSummary, 'file_path' | 'symbols' | 'vocabulary' | 'summary' | 'summary_source' | 'title' | 'profile_source' | 'file_type'>,
  cache: WordCache,
  vocabulary: ReadonlyArray<readonly [string, number]> = parseVocabulary(file.vocabulary),
): Array<[string, number]> {
  const weights = new Map<string, TermWeight>();
  const add = (word: string, weight: number): void => {
    if (word.length < 3 || STOPWORDS.has(word) || CODE_NOISE.has(word)) return;
    const first = word.charCodeAt(0);
    if (first >= 48 && first <= 57) return;
    const key = cache.stem(word);
    const entry = weights.get(key);
    if (!entry) weights.set(key, { weight, form: word, formCount: 1, forms: null });
    else {
      entry.weight += weight;
      // Most stems are met in one form: a map of forms is made only for a second.
      if (entry.forms) entry.forms.set(word, (entry.forms.get(word) ?? 0) + 1);
      else if (word === entry.form) entry.formCount++;
      else entry.forms = new Map([[entry.form, entry.formCount], [word, 1]]);
    }
  };
  for (const symbol of file.symbols) {
    for (const w of cache.split(symbol.name)) add(w, 3);
    if (symbol.doc) for (const w of words(withoutLinks(symbol.doc))) add(w, 1);
  }
  const withoutExt = file.file_path.replace(/\.[^./]+$/, '');
  for (const w of words(withoutExt)) add(w, 2);
  for (const w of words(withoutLinks(searchableSummary(file)))) add(w, 2);
  const counts = new Map<string, number>();
  for (const [identifier, n] of vocabulary) {
    for (const w of cache.split(identifier)) counts.set(w, (counts.get(w) ?? 0) + Math.min(n, MAX_STORED_COUNT));
  }
  for (const [w, n] of counts) add(w, Math.log2(1 + n));
  return [...weights.values()]
    .map((entry): [string, number] => [entry.forms ? mostFrequentForm(entry.forms) : entry.form, entry.weight])
    .sort((a, b) => b[1] - a[1] || compareCodeUnits(a[0], b[0]))
    .slice(0, MAX_TERMS);
}

/** A stem's weight and the forms it was met in: one form and its count until a second form comes. */
interface TermWeight {
  weight: number;
  form: string;
  formCount: number;
  forms: Map<string, number> | null;
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

export { KEY_CONCEPTS_PER_FILE } from './conceptTerms.js';

/** Whether a profile's key concepts are chosen against the repository's: static profiles of files not skipped. */
export function choosesConcepts(source: ProfileSource, status: FileStatus): boolean {
  return source === 'static' && status !== 'skipped';
}

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
  const chosen = files.filter((file) => choosesConcepts(file.profile_source, file.status));
  const concepts = finalizeConcepts(chosen.map(termsOf));
  chosen.forEach((file, i) => {
    file.key_concepts = concepts[i] ?? [];
  });
}

/** Each file's concepts, its candidate terms weighed against every file's (`DocumentFrequencies`). */
export function finalizeConcepts(termLists: Array<Array<[string, number]>>): string[][] {
  const frequencies = new DocumentFrequencies();
  for (const terms of termLists) frequencies.add(terms);
  return termLists.map((terms) => frequencies.concepts(terms));
}

/** The symbols, each with its own words where it has any. */
function withTerms(symbols: CodeSymbol[], terms: readonly string[]): CodeSymbol[] {
  return symbols.map((symbol, i) => (terms[i] ? { ...symbol, terms: terms[i] } : symbol));
}
