/**
 * Search: rank the indexed files for a target file, keywords and free text, and find the target's
 * relationships, with no model call. A `SearchCorpus` is built once and answers many queries (the MCP server
 * keeps one); the statistics a ranker needs are built on its first query, or read from search packs.
 *
 * Two rankers: `bm25f` (bm25f.ts, the default: it measures best on bench/eval) and `deepcode`
 * (deepcodeScore.ts, DeepCode's formula with two defects fixed).
 */
import { detectLanguage } from '../extract/languages.js';
import { detectRole } from '../extract/role.js';
import { qualifiedName } from '../index/qualifiedName.js';
import type { CodeSymbol, FileRole } from '../index/types.js';
import { clipped, compareCodeUnits, SEARCH_STOPWORDS, splitIdentifier, stem, tokens, words } from '../shared/text.js';
import { DEFAULT_PARAMS, corpusStats, rankBm25f, type Ranked, type RankInput } from './bm25f.js';
import { SearchCorpus } from './corpus.js';
import { deepcodeScore, isRelevant, nameTokens } from './deepcodeScore.js';
import type { IndexedDoc } from './fieldIndex.js';
import { definedToken, splitPath } from './profileTokens.js';
import { inflectionBases } from './inflections.js';
import { findRelationships } from './relationships.js';
import { describe, lengthFactor, rankSymbols, scoredSymbols, symbolQuery, TASK_LENGTH_POWER, type ScoredSymbols, type SymbolQuery } from './symbolRank.js';
import { backtickedNames, operatorMethods, parseTaskText, quotedMessages, titleOf, withoutPositions, type TaskText } from './taskQuery.js';
import { rankTask, TASK_PARAMS, type TaskParams } from './taskRank.js';
import { symbolBodyScores, type LineTerms } from './passages.js';
import {
  DEFAULT_SCORER,
  type Anchor,
  type ElementType,
  type MatchedRelationship,
  type MatchedSymbol,
  type RankedSymbol,
  type Reference,
  type SearchRequest,
  type SearchResponse,
} from './types.js';

export { SearchCorpus };

export const DEFAULT_MAX_RESULTS = 10;

/** Comma-separated keywords plus the words of the free-text query, de-duplicated, in order. */
export function keywordsOf(request: SearchRequest): string[] {
  const fromList = (request.keywords ?? []).map((k) => k.trim()).filter(Boolean);
  const fromQuery = request.query ? queryWords(request.query) : [];
  const seen = new Set<string>();
  return [...fromList, ...fromQuery].filter((k) => {
    const key = k.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The words of free text worth searching for, as written (splitting and stemming happen at match time). An
 * identifier stays whole, so `doc_auto_cfg` or `isHidden` in a request also finds that identifier, not only
 * files that use its parts.
 */
export function queryWords(text: string): string[] {
  const out = new Map<string, string>();
  let negation: { word: string; end: number } | null = null;
  for (const match of text.matchAll(QUERY_WORD)) {
    const identifier = match[0];
    const after = negation && /^[\s_-]+$/.test(text.slice(negation.end, match.index)) ? negation.word : '';
    negation = NEGATIONS.has(identifier.toLowerCase()) ? { word: identifier, end: match.index + identifier.length } : null;
    if (/^\d+$/.test(identifier)) {
      // A number the code uses: an HTTP status, an error number.
      if (identifier.length >= 3 && identifier.length <= 5) out.set(identifier, identifier);
      continue;
    }
    // `not found` stays a phrase: the tokenizer makes it `notfound` as well as `found`, as `NotFound` gives.
    if (after) {
      const phrase = `${after} ${identifier}`;
      if (!out.has(phrase.toLowerCase())) out.set(phrase.toLowerCase(), phrase);
      continue;
    }
    const parts = words(identifier);
    if (!parts.some(isSearchWord)) continue;
    // One word keeps its case (`Context`: a class name), without the `_` or `$` around it.
    const word = parts.length > 1 ? identifier : caseOf(identifier, parts[0] as string);
    if (!out.has(word.toLowerCase())) out.set(word.toLowerCase(), word);
  }
  return [...out.values()];
}

/** An identifier, or a number standing alone (not in a name, a decimal or a version). */
const QUERY_WORD = /[A-Za-z_$][A-Za-z0-9_$]*|(?<![\w$.])\d+(?![\w$]|\.\d)/g;
const NEGATIONS: ReadonlySet<string> = new Set(['not', 'no', 'non']);

/** `part` (lower-cased) as `identifier` writes it. */
function caseOf(identifier: string, part: string): string {
  const at = identifier.toLowerCase().indexOf(part);
  return at >= 0 ? identifier.slice(at, at + part.length) : part;
}

function isSearchWord(word: string): boolean {
  return word.length >= 2 && !SEARCH_STOPWORDS.has(word) && !/^\d+$/.test(word);
}

export function search(corpus: SearchCorpus, request: SearchRequest): SearchResponse {
  const max = request.maxResults;
  if (max !== undefined && (!Number.isInteger(max) || max < 1)) throw new RangeError(`maxResults must be a whole number of at least 1, not ${max}`);
  const target = request.target?.trim() ?? '';
  const scorer = request.scorer ?? DEFAULT_SCORER;
  // A long text with no target is a task (an issue, a bug report): ranked for its anchors and its words.
  const task = scorer === 'bm25f' && !target && request.query ? parseTaskText(request.query) : null;
  const keywords = task?.isTask ? keywordsOf({ ...request, query: task.text }).slice(0, MAX_TASK_KEYWORDS) : keywordsOf(request);
  const relationships = target ? findRelationships(target, corpus.indexes) : [];
  let references: Reference[];
  let symbols: RankedSymbol[] | undefined;
  let passagesRead: number | undefined;
  if (scorer === 'deepcode') references = deepcodeReferences(corpus, request, target, keywords);
  else {
    const files = task?.isTask ? taskFiles(corpus, request, task) : keywordFiles(corpus, request, target, keywords, relationships);
    // Worked out once: the references' symbols and the symbol answers are scored alike.
    const symbolQ = symbolQueryOf(corpus, files, task?.text ?? request.query ?? '');
    const scored = scoredSymbols(corpus, symbolQ, symbolKind(request.type));
    references = bm25fReferences(corpus, request, keywords, files, symbolQ, scored);
    if (request.granularity === 'symbol') symbols = rankSymbols(corpus, symbolFiles(files), symbolQ, request.maxResults ?? DEFAULT_MAX_RESULTS, scored);
    if (files.task && corpus.readsSources) passagesRead = files.sources?.size ?? 0;
  }
  const notice = references.length || relationships.length ? undefined : emptyAnswerNotice(corpus, request, target, keywords);
  return {
    target_file: target, keywords_used: keywords, scorer, references, relationships,
    ...(symbols ? { symbols } : {}),
    ...(task?.isTask ? { task: { anchors: task.anchors, truncated: task.truncated, ...(passagesRead !== undefined ? { passages_read: passagesRead } : {}) } } : {}),
    ...(notice ? { notice } : {}),
  };
}

/** `keywords_used` of a task text: its first words, enough to show what was read. */
const MAX_TASK_KEYWORDS = 64;
/** Characters of a request an empty answer's notice quotes. */
const MAX_QUOTED = 80;
/** Symbol answers come from this many of the best files. */
const SYMBOL_FILES = 20;

function symbolKind(type: ElementType | undefined): CodeSymbol['kind'] | undefined {
  return type && type !== 'file' ? (type as CodeSymbol['kind']) : undefined;
}

/** Why a request found nothing, so an empty answer never comes without a reason. */
export function emptyAnswerNotice(corpus: SearchCorpus, request: SearchRequest, target: string, keywords: readonly string[]): string {
  // A task text can be a megabyte: the notice quotes its start.
  const asked = [...(request.query?.trim() ? [request.query.trim()] : []), ...(request.keywords ?? []).map((k) => k.trim()).filter(Boolean)].map((text) => clipped(text, MAX_QUOTED));
  const tokenizer = corpus.tokenizer;
  const searchable = keywords.some((k) => tokenizer.text(k).length > 0) || (target !== '' && tokenizer.text(splitPath(target).stem).length > 0);
  if (!searchable) {
    const what = asked.length ? `"${asked.join(', ')}"` : 'the request';
    return `no results: ${what} has only stopwords, numbers, single letters or punctuation, so there is nothing to search for; name what the code does, e.g. "retry with backoff"`;
  }
  if (corpus.indexes.length > 0 && corpus.size === 0) {
    // Read whole only here: an index with nothing searchable is small.
    const files = corpus.indexes.reduce((n, l) => n + l.index.total_files, 0);
    return files === 0 ? 'no results: the indexes hold no file (their repositories had none to index)' : 'no results: the indexes hold no searchable file (every file was skipped when indexing)';
  }
  const wanted = [...(target ? [target] : []), ...keywords].join(', ');
  if (request.type && request.type !== 'file') return `no results: no ${request.type} matches ${wanted}; try without the type filter`;
  return `no results: no indexed file matches ${wanted}`;
}

function deepcodeReferences(corpus: SearchCorpus, request: SearchRequest, target: string, keywords: string[]): Reference[] {
  const maxResults = request.maxResults ?? DEFAULT_MAX_RESULTS;
  const wanted = new Set([...keywords.flatMap((k) => tokens(k)), ...nameTokens(target)]);
  const scored: Reference[] = [];
  for (const doc of corpus.docs) {
    const result = deepcodeScore(target, doc.file, keywords, doc.searchable);
    if (!isRelevant(result)) continue;
    const symbols = matchingSymbols(doc.file.symbols, wanted, request.type);
    if (request.type && request.type !== 'file' && symbols.length === 0) continue;
    scored.push(toReference(doc, result.score, result.matchedKeywords, request.type === 'file' ? [] : symbols));
  }
  scored.sort((a, b) => b.score - a.score || roleRank(a.role) - roleRank(b.role) || compareCodeUnits(a.file_path, b.file_path));
  return scored.slice(0, maxResults);
}

/** DeepCode's relationship types and weights (relationships.relationship_types' defaults). */
const RELATIONSHIP_WEIGHTS: Readonly<Record<string, number>> = { direct_match: 1.0, partial_match: 0.8, reference: 0.6, utility: 0.4 };

/**
 * What BM25F is asked: the keywords' tokens and the target's name, language and relationships. A look-up (`lookups`,
 * not a task text's plain ranking) also names the files it wants: every term in a file's name, or, when the request
 * is one name (`echo`, or `Request class` with its kind word), that name's definition; the kind word is then not
 * searched. A look-up of a few plain words also asks for the name they make (phraseName).
 */
export function bm25fInput(corpus: SearchCorpus, target: string, keywords: readonly string[], relationships: readonly MatchedRelationship[], lookups = true): RankInput {
  const tokenizer = corpus.tokenizer;
  const words = keywords.flatMap((k) => k.split(/\s+/)).filter(Boolean);
  const name = lookups ? namedSymbol(words) : null;
  const asked = (name ? [name] : keywords).flatMap((k) => tokenizer.text(k));
  const terms = [...asked, ...inflectionBases(asked, corpus.segments).keys()];
  // A name the tokenizer keeps nothing of (`x`, `do`) points at nothing.
  const defines = name ? (terms.length ? definedToken(name) : null) : lookups ? phraseName(words) : null;
  const targetName = target ? [...new Set(tokenizer.text(splitPath(target).stem))] : [];
  const related = new Map<number, number>();
  for (const rel of relationships) {
    const d = corpus.docNumber(rel.repo_name, rel.repo_file_path);
    if (d === undefined) continue;
    const weight = rel.confidence_score * (RELATIONSHIP_WEIGHTS[rel.relationship_type] ?? 0.5);
    related.set(d, Math.max(related.get(d) ?? 0, weight));
  }
  const language = target ? detectLanguage(target) : null;
  return {
    terms: [...new Set([...terms, ...targetName])],
    targetName,
    targetLanguage: language && language.name !== 'Text' ? language.name : '',
    ...(target ? { targetRole: targetRole(target) } : {}),
    ...(lookups ? { nameTerms: [...new Set(asked)] } : {}),
    ...(defines ? { defines } : {}),
    ...(related.size ? { related } : {}),
  };
}

/**
 * The definition token of the identifier a request of two to four plain words would be written as (`mutually
 * exclusive flags`: `MutuallyExclusiveFlags`, `mutually_exclusive_flags`): the file defining it is lifted as for a
 * request of one name, so a test, benchmark or doc defining it stays below the code unless asked for.
 * On the look-up sets (bench/eval/lookup.ts), blind R@1 .711 -> .722 and hand .746 -> .754; the commit,
 * description and dependency sets the same (bench/eval/README.md, "ninth stop").
 */
function phraseName(words: readonly string[]): string | null {
  if (words.length < 2 || words.length > 4 || !words.every((w) => /^[A-Za-z]+$/.test(w))) return null;
  return definedToken(words.join('_'));
}

/** Words that say what kind of thing a name is, in a request that names one (`Request class`, `get_user function`). */
const KIND_WORDS = new Set(['class', 'function', 'func', 'fn', 'def', 'method', 'interface', 'struct', 'trait', 'enum', 'type']);

/**
 * The one identifier a request is made of, or null: a word alone (`echo`), or beside kind words when it is written
 * as code (`parse_args function`, `isHidden method`, or capitalised beside a lower-case kind word: `Request class`),
 * so that "type inference" and Title Case concepts ("Method Resolution") stay two words.
 */
function namedSymbol(words: readonly string[]): string | null {
  const kinds = words.filter((w) => KIND_WORDS.has(w.toLowerCase()));
  const names = words.filter((w) => !KIND_WORDS.has(w.toLowerCase()));
  const name = names.length === 1 ? (names[0] as string) : '';
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return null;
  if (kinds.length === 0 || /^.+[A-Z]|[_$\d]/.test(name)) return name;
  return /^[A-Z]/.test(name) && kinds.every((k) => k === k.toLowerCase()) ? name : null;
}

/**
 * The role of the file about to be written. An absolute path's folders above the repository say nothing
 * (`/srv/test/app/…`), so only its file name is read (`…/lookup.test.ts` is still a test).
 */
function targetRole(target: string): FileRole {
  const posix = target.replace(/\\/g, '/');
  return detectRole(/^(?:[A-Za-z]:)?\//.test(posix) ? posix.slice(posix.lastIndexOf('/') + 1) : posix.replace(/^(\.\/)+/, ''));
}

/** Ranked files, what they were ranked for, and how their symbols are to be scored. */
interface RankedFiles {
  /** Whether the request was read as a task text. */
  task: boolean;
  ranked: Ranked[];
  input: RankInput;
  /** The task text's anchors; none for keywords. */
  anchors: readonly Anchor[];
  /** A fused task ranking's scores before fusion (taskRank.ts). */
  taskScores?: ReadonlyMap<number, number>;
  /** A task's first files' texts, read for their passages and tokenised for its terms (taskRank.ts). */
  sources?: ReadonlyMap<number, LineTerms>;
  /** A task's weights. */
  params?: TaskParams;
}

/**
 * The files whose symbols are ranked, with the relative scores their symbols are weighed by: the best files' own,
 * or, when a task's ranking was fused, their scores in the task ranking alone (relative to the best of them).
 */
function symbolFiles({ ranked, taskScores }: RankedFiles): Ranked[] {
  const best = ranked.slice(0, SYMBOL_FILES);
  if (!taskScores) return normalised(best);
  const top = Math.max(0, ...best.map(({ doc }) => taskScores.get(doc) ?? 0)) || 1;
  return best.map(({ doc }) => ({ doc, score: (taskScores.get(doc) ?? 0) / top }));
}

/** How many files to rank: with a --type filter some drop out, so all of them; otherwise the answer's length. */
function rankLimit(request: SearchRequest): number {
  const max = request.maxResults ?? DEFAULT_MAX_RESULTS;
  if (request.type && request.type !== 'file') return Infinity;
  return request.granularity === 'symbol' ? Math.max(max, SYMBOL_FILES) : max;
}

function keywordFiles(corpus: SearchCorpus, request: SearchRequest, target: string, keywords: string[], relationships: readonly MatchedRelationship[]): RankedFiles {
  const input = bm25fInput(corpus, target, keywords, relationships);
  const ranked = rankBm25f(corpus.segments, input, request.params ?? DEFAULT_PARAMS, rankLimit(request));
  return { task: false, ranked, input, anchors: [] };
}

function taskFiles(corpus: SearchCorpus, request: SearchRequest, task: TaskText): RankedFiles {
  const params = request.taskParams ?? TASK_PARAMS;
  // The same text as plain keywords, for the ranking fused in (only worked out when it is).
  const plain = params.fusion.plain > 0 ? bm25fInput(corpus, '', keywordsOf({ query: withoutPositions(task.text) }), [], false) : undefined;
  const { ranked, input, taskScores, sources } = rankTask(corpus, task, rankLimit(request), params, plain);
  return { task: true, ranked, input, anchors: task.anchors, ...(taskScores ? { taskScores } : {}), ...(sources ? { sources } : {}), params };
}

/** How the ranked files' symbols are scored: each term's idf times its weight in the request, the anchors, and the messages `text` quotes. */
function symbolQueryOf(corpus: SearchCorpus, { input, anchors, task, sources, params }: RankedFiles, text: string): SymbolQuery {
  const termWeight = new Map<string, number>();
  for (const { term, idf, weight } of corpusStats(corpus.segments, input.terms, input.termWeights).terms) termWeight.set(term, idf * weight);
  const messages = quotedMessages(text).map((message) => [...new Set(corpus.tokenizer.text(message))]);
  const title = new Set(task ? corpus.tokenizer.text(titleOf(text)) : []);
  const query = symbolQuery(termWeight, anchors, task ? TASK_LENGTH_POWER : 0, messages, params?.symbols, { titleTerms: title, backticked: backtickedNames(text), operators: task ? operatorMethods(text) : new Set() });
  if (!sources || !params || params.passages.symbols <= 0) return query;
  // The texts hold the positions of the terms the corpus has (idf > 0), which are the terms weighing anything here.
  const scores = (doc: number, symbols: readonly CodeSymbol[]): number[] | undefined => {
    const text = sources.get(doc);
    return text === undefined ? undefined : symbolBodyScores(text, symbols, termWeight);
  };
  return { ...query, bodies: { weight: params.passages.symbols, scores } };
}

/** Scores relative to the first (1). */
function normalised(ranked: readonly Ranked[]): Ranked[] {
  const top = ranked[0]?.score || 1;
  return ranked.map(({ doc, score }) => ({ doc, score: score / top }));
}

/**
 * BM25F references. Scores are relative to the best file of the answer (the first has 1), since BM25F's
 * raw scores depend on the corpus and the query's length. Each lists its symbols that match the request by name,
 * doc or body, best first (scored by `query`).
 */
function bm25fReferences(corpus: SearchCorpus, request: SearchRequest, keywords: string[], files: RankedFiles, query: SymbolQuery, scored: ScoredSymbols): Reference[] {
  const maxResults = request.maxResults ?? DEFAULT_MAX_RESULTS;
  const tokenizer = corpus.tokenizer;
  // A task's keywords are every word of its text: each is tokenised once, not once per reference.
  const keywordTokens = keywords.map((k) => ({ k, needed: tokenizer.text(k) })).filter(({ needed }) => needed.length > 0);
  const out: Reference[] = [];
  for (const { doc: d, score } of normalised(files.ranked)) {
    if (out.length >= maxResults) break;
    const doc = corpus.doc(d);
    const symbols = bestSymbols(scored(d), query);
    if (request.type && request.type !== 'file' && symbols.length === 0) continue;
    const holds = corpus.holderOf(d);
    const matched = keywordTokens.filter(({ needed }) => needed.every(holds)).map(({ k }) => k);
    out.push(toReference(doc, score, matched, request.type === 'file' ? [] : symbols));
  }
  return out;
}

/** A file's matching symbols: those the request's words, messages or anchors reach, best first. */
function bestSymbols({ symbols, scores }: ReturnType<ScoredSymbols>, query: SymbolQuery): MatchedSymbol[] {
  return symbols
    .map((symbol, i) => ({ symbol, score: (scores[i] as number) * lengthFactor(symbol, query) }))
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score || a.symbol.start_line - b.symbol.start_line)
    .slice(0, MAX_SYMBOLS_PER_REFERENCE)
    .map(({ symbol }) => ({ kind: symbol.kind, name: symbol.name, ast_path: symbol.ast_path, start_line: symbol.start_line, end_line: symbol.end_line, ...describe(symbol) }));
}

/** Among equal scores, source before tests and docs. */
function roleRank(role: string): number {
  if (role === 'lockfile') return 3;
  return role === 'source' || role === 'entry_point' ? 0 : role === 'test' || role === 'docs' || role === 'example' || role === 'benchmark' ? 2 : 1;
}

const MAX_SYMBOLS_PER_REFERENCE = 8;

/** A symbol name's stemmed words, as DeepCode's scorer sees them. */
const nameWords = (name: string): string[] => splitIdentifier(name).map(stem);

/**
 * The symbols whose names (or doc comments) carry a wanted token, so an answer can point at lines. `tokensOf`
 * turns a name or a comment into tokens the way the ranker did.
 */
export function matchingSymbols(
  symbols: readonly CodeSymbol[],
  wanted: ReadonlySet<string>,
  type?: ElementType,
  tokensOf: { name: (name: string) => readonly string[]; doc: (doc: string) => readonly string[] } = { name: nameWords, doc: tokens },
): MatchedSymbol[] {
  const out: MatchedSymbol[] = [];
  const mayHold = mayHoldAny(wanted);
  const holds = (text: string, tokenise: (text: string) => readonly string[]) => mayHold(text) && tokenise(text).some((t) => wanted.has(t));
  for (const symbol of symbols) {
    if (type && type !== 'file' && symbol.kind !== type) continue;
    const nameHit = holds(symbol.name, tokensOf.name);
    const docHit = !nameHit && symbol.doc ? holds(symbol.doc, tokensOf.doc) : false;
    const describedHit = !nameHit && !docHit && symbol.description ? holds(symbol.description, tokensOf.doc) : false;
    if (!nameHit && !docHit && !describedHit) continue;
    out.push({
      kind: symbol.kind, name: symbol.name, ast_path: symbol.ast_path, start_line: symbol.start_line, end_line: symbol.end_line,
      ...(symbol.description ? { description: symbol.description } : {}),
    });
    if (out.length >= MAX_SYMBOLS_PER_REFERENCE) break;
  }
  return out;
}

/**
 * Whether a text can hold one of the tokens, checked without tokenising it (a result's file may have thousands
 * of symbols): a token is a word of the text, lowercased, with at most its last letters changed by the stemmer
 * (`entries` -> `entry`), or words run together (`parse_http` -> `parsehttp`). So all of a token but its last
 * letter is in the text lowercased, once what separates words is taken out.
 */
function mayHoldAny(tokens: ReadonlySet<string>): (text: string) => boolean {
  const needles = [...tokens].map((t) => (t.length > 1 ? t.slice(0, -1) : t));
  return (text) => {
    const letters = text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
    return needles.some((needle) => letters.includes(needle));
  };
}

function toReference(doc: IndexedDoc, score: number, matched: string[], symbols: MatchedSymbol[]): Reference {
  const f = doc.file;
  return {
    repo_name: doc.repo,
    file_path: f.file_path,
    score: Math.round(score * 10000) / 10000,
    file_type: f.file_type,
    main_functions: matchingFirst(f.main_functions, symbols),
    key_concepts: f.key_concepts,
    dependencies: f.dependencies,
    summary: f.summary,
    lines_of_code: f.lines_of_code,
    role: f.role ?? 'source',
    language: f.language ?? '',
    symbols,
    matched_keywords: matched,
  };
}

/** A reference lists this many of its file's main functions at most. */
const MAX_MAIN_FUNCTIONS = 12;

/** A file's main functions, those among the matching symbols first (in their order), bounded. */
function matchingFirst(mainFunctions: readonly string[], symbols: readonly MatchedSymbol[]): string[] {
  const listed = new Set(mainFunctions);
  const matching = symbols.flatMap((s) => [qualifiedName(s.ast_path), s.name]).filter((name) => listed.has(name));
  return [...new Set([...matching, ...mainFunctions])].slice(0, MAX_MAIN_FUNCTIONS);
}
