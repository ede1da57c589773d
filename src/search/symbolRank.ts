/**
 * Function-level answers: the symbols of the best files, ranked as the places most likely to need the change.
 * A symbol scores its file's relative score to the 4th power (the best files' symbols first) times how well its
 * own name, its class's name (half weight) and its doc comment match the request (idf-weighted overlap, normalised
 * by the name's length, so `_format_repr_exception` beats `Printer` for a report about repr exceptions) and the
 * anchors the text names (a symbol a frame or a backtick names comes first); for a task text, also times its length
 * in lines to the power TASK_LENGTH_POWER; and, for the best files whose text was read (a task's passages,
 * passages.ts), times 1 + w x the score of its own lines relative to its file's best symbol's. SCOPE_WEIGHT,
 * FILE_POWER, TASK_LENGTH_POWER and w were chosen on the issue set's tuning half (bench/eval/tuneTask.ts reports
 * function-level figures).
 */
import type { CodeSymbol } from '../index/types.js';
import type { SearchCorpus } from './corpus.js';
import type { Tokenizer } from './profileTokens.js';
import type { Anchor, RankedSymbol } from './types.js';
import { compareCodeUnits } from '../shared/text.js';

export type { RankedSymbol } from './types.js';

export interface SymbolQuery {
  /** The request's stemmed terms, each with its weight (idf times how often it is said). */
  termWeight: ReadonlyMap<string, number>;
  /** The request's symbol anchors by their last part, lower-cased, each with its qualifiers ('' for none). */
  anchored: ReadonlyMap<string, readonly string[]>;
  /** A symbol's length in lines counts to this power (0: not at all). */
  lengthPower: number;
  /** Each symbol's score over its own lines, for a file whose text was read (undefined for the others), and its weight. */
  bodies?: { weight: number; scores: (doc: number, symbols: readonly CodeSymbol[]) => number[] | undefined };
}

export function symbolQuery(termWeight: ReadonlyMap<string, number>, anchors: readonly Anchor[], lengthPower = 0): SymbolQuery {
  return { termWeight, anchored: anchoredNames(anchors), lengthPower };
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
/** Symbols of the best files first: a file's relative score counts to this power. */
const FILE_POWER = 4;

/** How well each of a file's symbols matches the request; 0 for one that its words and anchors do not reach. */
export function symbolScores(symbols: readonly CodeSymbol[], query: SymbolQuery, tokenizer: Tokenizer): number[] {
  const { termWeight } = query;
  // Members of one class share its scope: each scope is scored once per file.
  const scopeScores = new Map<string, number>();
  const scopeScore = (astPath: string): number => {
    const cut = astPath.lastIndexOf('-');
    if (cut < 0) return 0;
    const key = astPath.slice(0, cut);
    let score = scopeScores.get(key);
    if (score === undefined) {
      const scopeTokens = new Set<string>();
      for (const part of key.split('-')) for (const t of tokenizer.identifier(part)) scopeTokens.add(t);
      score = distinctWeight(scopeTokens, termWeight) / Math.sqrt(scopeTokens.size || 1);
      scopeScores.set(key, score);
    }
    return score;
  };
  return symbols.map((symbol) => {
    const nameTokens = new Set(tokenizer.identifier(symbol.name));
    let name = distinctWeight(nameTokens, termWeight) / Math.sqrt(Math.max(1, nameTokens.size));
    // A member is also about its class: `Permutation.__new__` for a report about the Permutation constructor.
    if (symbol.ast_path.includes('-')) name += SCOPE_WEIGHT * scopeScore(symbol.ast_path);
    let doc = 0;
    // A doc comment's first sentences say what the symbol is for; the rest costs more to read than it adds.
    const text = `${symbol.doc?.slice(0, DOC_CHARS) ?? ''} ${symbol.description ?? ''}`;
    if (text.trim()) {
      const docTokens = new Set(tokenizer.text(text));
      doc = distinctWeight(docTokens, termWeight) / Math.sqrt(Math.max(1, docTokens.size));
    }
    const anchor = anchorStrength(symbol, query.anchored);
    const score = (name + DOC_WEIGHT * doc) * (1 + ANCHOR_BONUS * anchor);
    return CONTAINER_KINDS.has(symbol.kind) ? score * CONTAINER_FACTOR : score;
  });
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

function anchorStrength(symbol: CodeSymbol, anchored: ReadonlyMap<string, readonly string[]>): number {
  const qualifiers = anchored.get(symbol.name.toLowerCase());
  if (!qualifiers) return 0;
  const scope = symbol.ast_path.toLowerCase().split('-');
  return qualifiers.some((q) => q && scope.includes(q)) ? 1 : 0.6;
}

/**
 * The symbols of the ranked files, best first: each file's symbols scored against the request, times the file's
 * score. `files` are corpus documents with their relative scores, best first.
 */
export function rankSymbols(corpus: SearchCorpus, files: ReadonlyArray<{ doc: number; score: number }>, query: SymbolQuery, limit: number, kind?: CodeSymbol['kind']): RankedSymbol[] {
  const out: RankedSymbol[] = [];
  for (const { doc: d, score: fileScore } of files) {
    const { repo, file } = corpus.doc(d);
    const symbols = kind ? file.symbols.filter((s) => s.kind === kind) : file.symbols;
    const scores = symbolScores(symbols, query, corpus.tokenizer);
    const bodies = query.bodies?.scores(d, symbols);
    const bestBody = Math.max(0, ...(bodies ?? [])) || 1;
    symbols.forEach((symbol, i) => {
      const body = bodies ? 1 + (query.bodies?.weight ?? 0) * ((bodies[i] as number) / bestBody) : 1;
      out.push({
        repo_name: repo, file_path: file.file_path, kind: symbol.kind, name: symbol.name, ast_path: symbol.ast_path,
        start_line: symbol.start_line, end_line: symbol.end_line, score: fileScore ** FILE_POWER * (FLOOR + (scores[i] as number)) * lengthFactor(symbol, query) * body,
        ...(symbol.description ? { description: symbol.description } : {}),
      });
    });
  }
  out.sort((a, b) => b.score - a.score || compareCodeUnits(a.file_path, b.file_path) || a.start_line - b.start_line);
  const top = out[0]?.score || 1;
  return out.slice(0, limit).map((s) => ({ ...s, score: Math.round((s.score / top) * 10000) / 10000 }));
}

