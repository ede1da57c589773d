/**
 * Function-level answers: the symbols of the best files, ranked as the places most likely to need the change.
 * A symbol scores its file's relative score (to the power SYMBOL_PARAMS.filePower) times how well its own name, its
 * class's name (half weight), its doc comment and its own words (BM25 over the terms the extractor stored, weight
 * SYMBOL_PARAMS.body) match the request (idf-weighted; a name's overlap normalised by its length, so
 * `_format_repr_exception` beats `Printer` for a report about repr exceptions), and the anchors the text names (a
 * symbol a frame or a backtick names, the definition enclosing a frame's line, or the one whose words hold a quoted
 * message, comes first); for a task text, also times its length in lines to the power TASK_LENGTH_POWER; and, for
 * the best files whose text was read (a task's passages, passages.ts), times 1 + w x the score of its own lines
 * relative to its file's best symbol's. A class of the best files that lacks a method its sibling classes have is
 * scored as if it had it (liftOverrideGaps), the more so when that method is named after what the request names
 * (`_print_dict` for a backticked `dict`): the fix adds the override there; a function nested in another follows
 * its parent (liftNested), an overload its best namesake (liftOverloads), `equals` and `hashCode` each other
 * (liftContracts); a name of two or more words that a task's title says every word of is a weak anchor; a
 * definition named with its class comes before its namesakes named bare (liftQualified).
 * SCOPE_WEIGHT, SYMBOL_PARAMS, TASK_LENGTH_POWER and w were chosen on the issue set's tuning half
 * (bench/eval/tuneTask.ts --sweep reports function-level figures).
 */
import type { CodeSymbol } from '../index/types.js';
import type { SearchCorpus } from './corpus.js';
import type { Tokenizer } from './profileTokens.js';
import type { Anchor, RankedSymbol, SymbolParams } from './types.js';
import { clipped, compareCodeUnits } from '../shared/text.js';
import { parseVocabulary } from '../index/vocabulary.js';
import { parentPath } from '../index/qualifiedName.js';

export type { RankedSymbol } from './types.js';

export interface SymbolQuery {
  /** The request's stemmed terms, each with its weight (idf times how often it is said). */
  termWeight: ReadonlyMap<string, number>;
  /** The request's symbol anchors by their last part, lower-cased, each with its qualifiers ('' for none). */
  anchored: ReadonlyMap<string, readonly string[]>;
  /** The paths stack frames name with line numbers: the definition enclosing such a line is the frame's. */
  frames: ReadonlyArray<{ path: string; lines: readonly number[] }>;
  /** The tokens of each message the request quotes (taskQuery.ts's quotedMessages): the definition holding them all raises it. */
  messages: ReadonlyArray<readonly string[]>;
  /** A task's title words: a name of two or more words, all of them there, is what the title is about. */
  titleTerms: ReadonlySet<string>;
  /** A symbol's length in lines counts to this power (0: not at all). */
  lengthPower: number;
  /** The weights of a symbol's own words and of its file's score. */
  params: SymbolParams;
  /** The names the request writes in backticks, lower-cased, the common ones (`dict`) included. */
  backticked: ReadonlySet<string>;
  /** The methods implementing the operators a task's code uses (`__mul__` for `a * b`): in a class it names, an anchor. */
  operators: ReadonlySet<string>;
  /** Each symbol's score over its own lines, for a file whose text was read (undefined for the others), and its weight. */
  bodies?: { weight: number; scores: (doc: number, symbols: readonly CodeSymbol[]) => number[] | undefined };
}

export function symbolQuery(
  termWeight: ReadonlyMap<string, number>,
  anchors: readonly Anchor[],
  lengthPower = 0,
  messages: ReadonlyArray<readonly string[]> = [],
  params: SymbolParams = SYMBOL_PARAMS,
  { titleTerms = new Set(), backticked = new Set(), operators = new Set() }: { titleTerms?: ReadonlySet<string>; backticked?: ReadonlySet<string>; operators?: ReadonlySet<string> } = {},
): SymbolQuery {
  const frames = anchors.filter((a) => a.kind === 'path' && a.lines?.length).map((a) => ({ path: `/${a.text.toLowerCase()}`, lines: a.lines ?? [] }));
  // A message of one telling word points at too many definitions to be an anchor.
  return { termWeight, anchored: anchoredNames(anchors), frames, messages: messages.filter((m) => m.length >= 2), titleTerms, backticked, operators, lengthPower, params };
}

/**
 * How strongly a title that holds every word of a symbol's name (`required column check`: `_check_required_columns`)
 * points at it: as an anchor of this strength. On the issue set's tuning half (80 cases with gold definitions), fn
 * Acc@5 / Acc@10 .313 / .438 without; at 0.25 / 0.5 / 1: .313 / .450, .325 / .450, .325 / .438 (Python .438 / .594 ->
 * .469 / .625 at 0.5). The held-out half did not move.
 */
const TITLE_NAME_STRENGTH = 0.5;

/** Whether the title holds every word of a name of two or more (its tokens but the joined whole, `checkrequiredcolumn`). */
function titleNames(nameTokens: readonly string[], titleTerms: ReadonlySet<string>): boolean {
  const words = nameTokens.length > 2 ? nameTokens.slice(0, -1) : [];
  return words.length >= 2 && words.every((w) => titleTerms.has(w));
}

/**
 * The symbols (by position in `symbols`) that a frame's line falls in, innermost only, for the file at `filePath`:
 * a frame's path matches a file whose path ends with it, or that ends the frame's (an absolute path in a trace).
 */
export function framedSymbols(symbols: readonly CodeSymbol[], filePath: string, frames: SymbolQuery['frames']): Set<number> {
  const out = new Set<number>();
  if (frames.length === 0) return out;
  const path = `/${filePath.toLowerCase()}`;
  for (const frame of frames) {
    if (!path.endsWith(frame.path) && !frame.path.endsWith(path)) continue;
    for (const line of frame.lines) {
      let best = -1;
      symbols.forEach((s, i) => {
        if (s.start_line <= line && line <= s.end_line && (best < 0 || s.end_line - s.start_line < (symbols[best] as CodeSymbol).end_line - (symbols[best] as CodeSymbol).start_line)) best = i;
      });
      if (best >= 0) out.add(best);
    }
  }
  return out;
}

/**
 * A fix lands in a long function more often than in a short one, as more code holds more faults: for a task text
 * a symbol counts its length in lines to this power. On the issue set's tuning half (71 cases with gold functions,
 * `tuneTask.ts --issues-cap 200`), fn Acc@5 / Acc@10 went .338 / .366 at 0 to .352 / .451 at 0.2 (0.15: .352 /
 * .465; 0.3 to 0.5: .324 / .465; 1: worse at both). A keyword request asks where a name is, not where a change
 * goes: it gets no length prior.
 */
export const TASK_LENGTH_POWER = 0.2;

/** How much a symbol's length weighs for `query`: 1 unless it asks for a length prior. */
export function lengthFactor(symbol: CodeSymbol, query: SymbolQuery): number {
  return query.lengthPower ? (1 + Math.max(0, symbol.end_line - symbol.start_line)) ** query.lengthPower : 1;
}

/** Kinds that hold other definitions: a change lands in their members more often than in them. */
const CONTAINER_KINDS = new Set(['class', 'interface', 'struct', 'trait', 'module', 'namespace', 'enum']);
const CONTAINER_FACTOR = 0.5;
/** A symbol with no matching word still ranks, far below one that matches: a file's best guess is still a guess. */
const FLOOR = 0.05;
const ANCHOR_BONUS = 2;
const DOC_WEIGHT = 0.3;
const DOC_CHARS = 300;
/** Weight of the words of a member's class (its ast_path) beside those of its own name. */
const SCOPE_WEIGHT = 0.5;
/**
 * The weights of a symbol's own words and of its file's score, for keyword requests and tasks alike
 * (TASK_PARAMS.symbols). Swept on the issue set's tuning half in every language (80 cases with gold definitions,
 * `tuneTask.ts --sweep`), fn Acc@5 / Acc@10: body 0.3 at file power 4 (issue 40's first cut) .275 / .375; file
 * power 1 with body 0 / 0.15 / 0.3 / 0.6 / 1: .263 / .362, .275 / .412, .300 / .412, .325 / .388, .313 / .388. Also
 * tried, at body 0.15: each further symbol of one file counting 0.9 / 0.8 / 0.6 times less, for a fix's second
 * file: .300 / .412, .313 / .400, .300 / .388, no better than body 0.3 alone, not kept. A class lacking a method its
 * siblings have and the request asks for (liftOverrideGaps), at weight 0 / 0.5 / 0.8 / 1 / 1.2 / 1.5: .300 / .412,
 * .300 / .412, .313 / .412, .313 / .412, .300 / .412, .287 / .400 (Python .375 / .531 -> .406 / .531 at 0.8 to 1.2).
 * Then a function nested in a function lifted to `nested` times its parent's score (liftNested), at 0 / 0.3 / 0.5 /
 * 0.7 / 0.9: .313 / .412, .313 / .412, then .325 / .425 from 0.5 up (Python .406 / .531 -> .438 / .563).
 * Then (issue 40's fifth stop, every rule above in) overloads lifted to `overloads` times their best namesake's
 * score (liftOverloads), at 0 / 0.3 / 0.4 / 0.5 / 0.6 / 0.8 / 0.99: fn Acc@5 / Acc@10 .362 / .463, then .375 / .463
 * from 0.3 to 0.5 (Java .389 -> .444 at @5: gson-1391's two `resolve`), .375 / .450 from 0.6 up (a Python property's
 * getter and setter); Acc@1 .150 at each. With Python's files left out (it has no overloads) and the rules below in
 * (83 cases), at 0.4 / 0.6 / 0.8 / 0.95: .386 / .470, then .386 / .482 from 0.6 up (Java @10 .556 -> .611:
 * jackson-core-891's three `writeStartObject`).
 * Then (with the operator and permalink anchors, 83 cases) the methods of one contract lifted to `contracts` times the
 * best of them (liftContracts), at 0 / 0.5 / 0.65 / 0.8 / 0.95 / 1: .373 / .458, .373 / .470, then .386 / .470 from
 * 0.65 up (Java .444 / .500 -> .500 / .556: jackson-core-1053's `compareTo`, `equals` and `hashCode`).
 */
export const SYMBOL_PARAMS: SymbolParams = { body: 0.3, filePower: 1, overrides: 1, nested: 0.7, overloads: 0.8, contracts: 0.8 };
/** BM25's constants over symbol bodies, the usual ones. */
const BODY_K1 = 1.2;
const BODY_B = 0.75;

/** How well each of a file's symbols matches the request; 0 for one that its words and anchors do not reach. */
export function symbolScores(symbols: readonly CodeSymbol[], query: SymbolQuery, tokenizer: Tokenizer, filePath = ''): number[] {
  const { termWeight } = query;
  // Members of one class share its scope: each scope is scored once per file.
  const scopeScores = new Map<string, number>();
  const scopeScore = (symbol: CodeSymbol): number => {
    const key = parentPath(symbol);
    if (!key) return 0;
    let score = scopeScores.get(key);
    if (score === undefined) {
      const scopeTokens = new Set<string>();
      for (const part of key.split('-')) for (const t of tokenizer.identifier(part)) scopeTokens.add(t);
      score = distinctWeight(scopeTokens, termWeight) / Math.sqrt(scopeTokens.size || 1);
      scopeScores.set(key, score);
    }
    return score;
  };
  const { scores: bodies, raising } = symbolTermScores(symbols, query, tokenizer);
  const framed = framedSymbols(symbols, filePath, query.frames);
  return symbols.map((symbol, i) => {
    const nameList = tokenizer.identifier(symbol.name);
    const nameTokens = new Set(nameList);
    let name = distinctWeight(nameTokens, termWeight) / Math.sqrt(Math.max(1, nameTokens.size));
    // A member is also about its class: `Permutation.__new__` for a report about the Permutation constructor.
    name += SCOPE_WEIGHT * scopeScore(symbol);
    let doc = 0;
    // A doc comment's first sentences say what the symbol is for; the rest costs more to read than it adds.
    const text = `${symbol.doc?.slice(0, DOC_CHARS) ?? ''} ${symbol.description ?? ''}`;
    if (text.trim()) {
      const docTokens = new Set(tokenizer.text(text));
      doc = distinctWeight(docTokens, termWeight) / Math.sqrt(Math.max(1, docTokens.size));
    }
    const anchor = framed.has(i) || raising.has(i) ? 1 : Math.max(anchorStrength(symbol, query.anchored, query.operators), titleNames(nameList, query.titleTerms) ? TITLE_NAME_STRENGTH : 0);
    const score = (name + DOC_WEIGHT * doc + query.params.body * (bodies[i] as number)) * (1 + ANCHOR_BONUS * anchor);
    return CONTAINER_KINDS.has(symbol.kind) ? score * CONTAINER_FACTOR : score;
  });
}

/**
 * Each symbol's own words (`terms`, stored by the extractor) scored by BM25 against the request's weighted terms,
 * lengths normalised by the mean over these symbols: what tells a file's methods apart by what they do.
 */
export function symbolTermScores(symbols: readonly CodeSymbol[], query: Pick<SymbolQuery, 'termWeight' | 'messages'>, tokenizer: Tokenizer): { scores: number[]; raising: Set<number> } {
  const { termWeight, messages } = query;
  const wanted = new Set([...termWeight.keys(), ...messages.flat()]);
  const lengths: number[] = [];
  const hits = symbols.map((symbol) => {
    const found = new Map<string, number>();
    let length = 0;
    for (const [word, count] of parseVocabulary(symbol.terms)) {
      for (const token of tokenizer.identifier(word)) {
        length += count;
        if (wanted.has(token)) found.set(token, (found.get(token) ?? 0) + count);
      }
    }
    lengths.push(length);
    return found;
  });
  const mean = lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length) || 1;
  const raising = new Set<number>();
  const scores = hits.map((found, i) => {
    if (messages.some((message) => message.every((t) => found.has(t)))) raising.add(i);
    let score = 0;
    const norm = BODY_K1 * (1 - BODY_B + (BODY_B * (lengths[i] as number)) / mean);
    for (const [term, n] of found) if (termWeight.has(term)) score += ((termWeight.get(term) as number) * n * (BODY_K1 + 1)) / (n + norm);
    return score;
  });
  return { scores, raising };
}

/** The summed weights of distinct tokens, in their order. */
function distinctWeight(tokens: ReadonlySet<string>, termWeight: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const t of tokens) sum += termWeight.get(t) ?? 0;
  return sum;
}

/** Anchor names by their last part, lower-cased, each with its qualifier (or '' for a bare name). */
function anchoredNames(anchors: readonly Anchor[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const anchor of anchors) {
    if (anchor.kind !== 'symbol') continue;
    const parts = anchor.text.toLowerCase().split('.');
    const last = parts.pop() as string;
    const list = out.get(last) ?? [];
    list.push(parts[parts.length - 1] ?? '');
    out.set(last, list);
  }
  return out;
}

/**
 * How strongly the request's symbol anchors point at a symbol: 1 for a name qualified by its class (`Foo.bar`, or
 * `bar` and `Foo` both named), 0.6 for a bare name. A member of a named class whose name extends a named one
 * (`world_to_pixel` and `SlicedLowLevelWCS`: its `world_to_pixel_values`), or is its private form (`_bar`), is what
 * the report calls by that name; its method implementing an operator the task's code uses is named by it.
 */
function anchorStrength(symbol: Pick<CodeSymbol, 'name' | 'ast_path'>, anchored: ReadonlyMap<string, readonly string[]>, operators: ReadonlySet<string>): number {
  const name = symbol.name.toLowerCase();
  const qualifiers = anchored.get(name);
  const scope = scopeOf(symbol);
  const inNamedClass = scope.some((part) => anchored.has(part));
  if (qualifiers) return inNamedClass || isQualified(scope, qualifiers) ? 1 : 0.6;
  if (!inNamedClass) return 0;
  if (operators.has(name)) return OPERATOR_STRENGTH;
  for (const named of anchored.keys()) if (named.length >= MIN_EXTENDED && (name.startsWith(`${named}_`) || name === `_${named}`)) return 1;
  return 0;
}

/**
 * How strongly an operator a task's code uses (`B * Identity`) points at the method implementing it in a class the
 * task names (`IdentityOperator.__mul__`): as a bare name does. On the issue set's tuning half (83 cases with gold
 * definitions, `tuneTask.ts --knobs none`), fn Acc@5 / Acc@10 .361 / .446 without; .361 / .458 from 0.3 to 0.8
 * (Python @10 .656 -> .688: sympy-19783's `IdentityOperator.__mul__`); .349 / .458 at 1.
 */
const OPERATOR_STRENGTH = 0.6;

/** The names of the definitions enclosing a symbol, outermost first, lower-cased (`['card']` for `Card-fromstring`). */
function scopeOf(symbol: Pick<CodeSymbol, 'ast_path'>): string[] {
  return symbol.ast_path.toLowerCase().split('-').slice(0, -1);
}

/** Whether a symbol's enclosing scope holds one of the qualifiers its name is written with (`Card` of `Card.fromstring`). */
function isQualified(scope: readonly string[], qualifiers: readonly string[]): boolean {
  return qualifiers.some((q) => q && scope.includes(q));
}

/** The shortest anchored name a member's name may extend: shorter ones (`get`, `add`) start too many names. */
const MIN_EXTENDED = 4;

/** A document's symbols (of one kind, when asked) and how well each matches the request (symbolScores). */
export type ScoredSymbols = (doc: number) => { symbols: readonly CodeSymbol[]; scores: number[] };

/**
 * symbolScores of each document's symbols, worked out once per document however often it is asked: a search's
 * references and its symbol answers read the same files.
 */
export function scoredSymbols(corpus: SearchCorpus, query: SymbolQuery, kind?: CodeSymbol['kind']): ScoredSymbols {
  const known = new Map<number, ReturnType<ScoredSymbols>>();
  return (d) => {
    let scored = known.get(d);
    if (!scored) {
      const { file } = corpus.doc(d);
      const symbols = kind ? file.symbols.filter((s) => s.kind === kind) : file.symbols;
      scored = { symbols, scores: symbolScores(symbols, query, corpus.tokenizer, file.file_path) };
      known.set(d, scored);
    }
    return scored;
  };
}

/**
 * The symbols of the ranked files, best first: each file's symbols scored against the request (`scored`), times
 * the file's score. `files` are corpus documents with their relative scores, best first.
 */
export function rankSymbols(corpus: SearchCorpus, files: ReadonlyArray<{ doc: number; score: number }>, query: SymbolQuery, limit: number, scored: ScoredSymbols): RankedSymbol[] {
  const out: RankedSymbol[] = [];
  const placed: Placed[] = [];
  files.forEach(({ doc: d, score: fileScore }, fileRank) => {
    const { repo, file } = corpus.doc(d);
    const { symbols, scores } = scored(d);
    const bodies = query.bodies?.scores(d, symbols);
    const bestBody = Math.max(0, ...(bodies ?? [])) || 1;
    const fileFactor = fileScore ** query.params.filePower;
    symbols.forEach((symbol, i) => {
      const body = bodies ? 1 + (query.bodies?.weight ?? 0) * ((bodies[i] as number) / bestBody) : 1;
      const own = (FLOOR + (scores[i] as number)) * lengthFactor(symbol, query) * body;
      const ranked: RankedSymbol = {
        repo_name: repo, file_path: file.file_path, kind: symbol.kind, name: symbol.name, ast_path: symbol.ast_path,
        start_line: symbol.start_line, end_line: symbol.end_line, score: fileFactor * own,
        ...describe(symbol),
      };
      out.push(ranked);
      placed.push({ ranked, own, fileFactor, classPath: parentPath(symbol), fileRank, language: file.language });
    });
  });
  if (query.params.overrides > 0) liftOverrideGaps(placed, query.params.overrides, query);
  if (query.params.nested > 0) liftNested(placed, query.params.nested);
  liftQualified(placed, query.anchored);
  if (query.params.overloads > 0) liftOverloads(placed, query.params.overloads);
  if (query.params.contracts > 0) liftContracts(placed, query.params.contracts);
  out.sort((a, b) => b.score - a.score || compareCodeUnits(a.file_path, b.file_path) || a.start_line - b.start_line);
  const top = out[0]?.score || 1;
  return out.slice(0, limit).map((s) => ({ ...s, score: Math.round((s.score / top) * 10000) / 10000 }));
}

/** A ranked symbol with what its score was made of. */
interface Placed {
  ranked: RankedSymbol;
  /** The symbol's own score, before its file's factor. */
  own: number;
  fileFactor: number;
  /** The ast_path of the definition holding it ('' at the top level): parentPath. */
  classPath: string;
  /** Its file's place among the ranked files, 0 first. */
  fileRank: number;
  /** Its file's language, as the profile names it. */
  language: string;
}

/** Files, best first, whose classes may be lifted for a method they lack. */
const OVERRIDE_FILES = 5;
/** Classes of those files looked at, at most, best first: a file of thousands of classes costs no more. */
const OVERRIDE_HOLDERS = 50;
/** Method names two classes must share (dunders aside) to count as siblings: implementations of one interface. */
const SIBLING_MEMBERS = 3;
/**
 * How much more a sibling's method counts when one of its name's words is a name the request gives (an anchor, or
 * a backticked name however common): `_print_dict` for a report that `srepr` mishandles `dict`, `_print_Identity`
 * for `lambdify(A + Identity(n))`. A class lifted so never passes the symbol ranked first: a class lacking a
 * `mask` the report names lifted above the method the report is about (astropy-14995) cost an Acc@1. On the issue
 * set's tuning half (80 cases with gold definitions, `tuneTask.ts --knobs none`), fn Acc@1 / Acc@5 / Acc@10 at 1
 * (off) .150 / .350 / .450; at 2.2, 4 and 10 .150 / .362 / .450; at 6 .150 / .362 / .463 (Python Acc@5 / Acc@10
 * .531 / .625 -> .563 / .656).
 */
const NAMED_GAP = 6;

/** Whether one of a method name's words (`dict` of `_print_dict`) is a name the request gives. */
function namesNamed(name: string, { anchored, backticked }: Pick<SymbolQuery, 'anchored' | 'backticked'>): boolean {
  return name.toLowerCase().split(/[^a-z0-9]+/).some((word) => word && (anchored.has(word) || backticked.has(word)));
}

/** Kinds that hold methods a sibling may lack. */
const CLASS_KINDS = new Set(['class', 'struct', 'interface', 'trait']);

/**
 * Classes of the best files that lack a method their sibling classes in lower-ranked files have, lifted to `weight`
 * times that method's own score in the class's file (never lowered): the class is scored as if it had the method
 * the request asks for. A report that a printer mishandles `Float`, when the other printers have `_print_Float`, is
 * fixed by giving this printer one; the printer's file ranks first, the other printers' files below it.
 */
function liftOverrideGaps(placed: readonly Placed[], weight: number, named: Pick<SymbolQuery, 'anchored' | 'backticked'>): void {
  // Each class's methods with their own scores, and the classes holding each method name (dunders aside).
  const methods = new Map<string, Map<string, number>>();
  const holding = new Map<string, Set<string>>();
  const fileRank = new Map<string, number>();
  for (const p of placed) {
    if (!p.classPath || CONTAINER_KINDS.has(p.ranked.kind)) continue;
    const key = `${p.ranked.file_path}\0${p.classPath}`;
    fileRank.set(key, p.fileRank);
    const byName = methods.get(key) ?? new Map<string, number>();
    byName.set(p.ranked.name, Math.max(byName.get(p.ranked.name) ?? 0, p.own));
    methods.set(key, byName);
    if (/^__.*__$/.test(p.ranked.name)) continue;
    const classes = holding.get(p.ranked.name) ?? new Set<string>();
    classes.add(key);
    holding.set(p.ranked.name, classes);
  }
  const first = placed.reduce<Placed | undefined>((a, p) => (!a || p.ranked.score > a.ranked.score ? p : a), undefined);
  const firstScore = first?.ranked.score ?? 0;
  const holders = placed
    .filter((p) => p.fileRank < OVERRIDE_FILES && CLASS_KINDS.has(p.ranked.kind) && methods.has(`${p.ranked.file_path}\0${p.ranked.ast_path}`))
    .sort((a, b) => a.fileRank - b.fileRank || b.ranked.score - a.ranked.score)
    .slice(0, OVERRIDE_HOLDERS);
  for (const holder of holders) {
    const key = `${holder.ranked.file_path}\0${holder.ranked.ast_path}`;
    const mine = methods.get(key) as ReadonlyMap<string, number>;
    const shared = new Map<string, number>();
    for (const name of mine.keys()) for (const other of holding.get(name) ?? []) if (other !== key) shared.set(other, (shared.get(other) ?? 0) + 1);
    let best = 0;
    let bestNamed = 0;
    for (const [sibling, count] of shared) {
      // A sibling in a file ranked as high or higher is the likelier place: its own method stands.
      if (count < SIBLING_MEMBERS || (fileRank.get(sibling) ?? 0) <= holder.fileRank) continue;
      for (const [name, own] of methods.get(sibling) ?? []) {
        if (mine.has(name)) continue;
        best = Math.max(best, own);
        if (namesNamed(name, named)) bestNamed = Math.max(bestNamed, own * NAMED_GAP);
      }
    }
    // A method named after what the request names lifts the class far, but never above the answer ranked first.
    const cap = holder === first ? Infinity : firstScore * (1 - 1e-6);
    const byName = Math.min(holder.fileFactor * weight * bestNamed, cap);
    holder.ranked.score = Math.max(holder.ranked.score, holder.fileFactor * weight * best, byName);
  }
}

/**
 * A definition the request names with its class (`Card.fromstring`) placed above the namesakes it names only by
 * their bare name (`HDUList.fromstring`), whose files may rank higher: the class is what tells them apart. Only a
 * name written qualified counts here, not a name and a class named apart.
 */
function liftQualified(placed: readonly Placed[], anchored: SymbolQuery['anchored']): void {
  if (anchored.size === 0) return;
  const named = placed.filter((p) => anchored.has(p.ranked.name.toLowerCase()));
  const bestBare = new Map<string, number>();
  const qualified: Placed[] = [];
  for (const p of named) {
    const key = p.ranked.name.toLowerCase();
    if (isQualified(scopeOf(p.ranked), anchored.get(key) ?? [])) qualified.push(p);
    else bestBare.set(key, Math.max(bestBare.get(key) ?? 0, p.ranked.score));
  }
  for (const p of qualified) {
    const bare = bestBare.get(p.ranked.name.toLowerCase()) ?? 0;
    if (bare >= p.ranked.score) p.ranked.score = bare * (1 + 1e-6);
  }
}

/**
 * Functions defined inside a function or method, lifted to `weight` times their parent's score (never lowered): a
 * fix to a function often edits the helpers it defines (`asum` inside `_print_Sum`).
 */
function liftNested(placed: readonly Placed[], weight: number): void {
  const byPath = new Map(placed.map((p) => [`${p.ranked.file_path}\0${p.ranked.ast_path}`, p]));
  for (const p of placed) {
    if (!p.classPath) continue;
    const parent = byPath.get(`${p.ranked.file_path}\0${p.classPath}`);
    if (!parent || CONTAINER_KINDS.has(parent.ranked.kind)) continue;
    p.ranked.score = Math.max(p.ranked.score, weight * parent.ranked.score);
  }
}

/**
 * Definitions that share a key (`keyOf`, undefined for none) lifted to `weight` times the best of them (never
 * lowered): what a fix to one edits in the others.
 */
function liftToBestOf(placed: readonly Placed[], weight: number, keyOf: (p: Placed) => string | undefined): void {
  const keys = placed.map(keyOf);
  const best = new Map<string, number>();
  placed.forEach((p, i) => {
    const key = keys[i];
    if (key !== undefined) best.set(key, Math.max(best.get(key) ?? 0, p.ranked.score));
  });
  placed.forEach((p, i) => {
    const key = keys[i];
    if (key !== undefined) p.ranked.score = Math.max(p.ranked.score, weight * (best.get(key) as number));
  });
}

/**
 * Overloads (definitions of one name in one scope: they share an ast_path) lifted to `weight` times the best of
 * them: a fix to `resolve(a)` often edits the `resolve(a, b)` it delegates to. Python has none: a name it defines
 * twice in one scope is a property's getter and setter, or a redefinition.
 */
function liftOverloads(placed: readonly Placed[], weight: number): void {
  liftToBestOf(placed, weight, ({ ranked, language }) =>
    (ranked.kind === 'method' || ranked.kind === 'function') && language !== 'Python' ? `${ranked.file_path}\0${ranked.ast_path}` : undefined);
}

/** Methods one contract binds, so that a change to one is a change to the others: Java's and Python's equality. */
const CONTRACTS: ReadonlyArray<ReadonlySet<string>> = [new Set(['equals', 'hashCode', 'compareTo']), new Set(['__eq__', '__hash__'])];

/**
 * The methods of a class that one contract binds (CONTRACTS) lifted to `weight` times the best of them: equal
 * objects must hash alike and compare as equal, so a fix to `compareTo` edits `equals` and `hashCode`.
 */
function liftContracts(placed: readonly Placed[], weight: number): void {
  liftToBestOf(placed, weight, ({ ranked, classPath }) => {
    const family = CONTRACTS.findIndex((f) => f.has(ranked.name));
    return family < 0 || !classPath ? undefined : `${ranked.file_path}\0${classPath}\0${family}`;
  });
}

/** Characters of a definition's one-line description, at most. */
const DESCRIPTION_CHARS = 120;

/**
 * A definition's one-line description, as an answer shows it: a model's, else its doc comment's first sentence,
 * clipped; none when it has neither.
 */
export function describe(symbol: Pick<CodeSymbol, 'description' | 'doc'>): { description?: string } {
  const text = symbol.description ?? firstSentence(symbol.doc ?? '');
  return text ? { description: clipped(text, DESCRIPTION_CHARS) } : {};
}

function firstSentence(doc: string): string {
  const line = doc.replace(/\s+/g, ' ').trim();
  const end = line.search(/[.!?](?:\s|$)/);
  return end >= 0 ? line.slice(0, end + 1) : line;
}
