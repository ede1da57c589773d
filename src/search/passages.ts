/**
 * A task's first few files put in order by their best passage: where in each file the text's words come
 * together. The index knows which words a file holds, not where; a hub holds every word of a long report
 * somewhere in its thousands of lines, while the module the report is about holds them within a few dozen.
 * So the files ranked first are read (the repository's files as they are now, when the index's repository is
 * on disk), cut into windows of lines, and each window scored by BM25 over the text's weighted words; a file's
 * passage score is its best window's.
 *
 * Only the first `head` files are reordered among themselves: which files make the head is the index's ranking
 * alone, so the passages move the first answer, never what the first five hold.
 */
import type { Ranked } from './bm25f.js';
import { IDENTIFIER, type Tokenizer } from './profileTokens.js';

export interface PassageParams {
  /** How many of the first files are reordered (0: none). */
  head: number;
  /** A window's length in lines; windows start every half window. */
  lines: number;
  /** The passage score's weight beside the ranking's own (both divided by the head's best). */
  weight: number;
  /** Symbols of the head's files: a symbol's score is multiplied by 1 + symbols x its lines' score relative to its file's best. */
  symbols: number;
}

/** BM25's constants for windows, the usual ones. */
const K1 = 1.2;
const B = 0.75;

/**
 * Each text's best window score for the weighted terms (term -> idf times its weight in the request): 0 for a
 * text none of whose windows holds a term, undefined for a text not read. Window lengths are normalised by the
 * mean over every window of these texts.
 */
export function passageScores(texts: ReadonlyArray<LineTerms | undefined>, termWeights: ReadonlyMap<string, number>, lines: number): Array<number | undefined> {
  const step = Math.max(1, Math.floor(lines / 2));
  const windows: Stretch[] = [];
  const owner: number[] = [];
  texts.forEach((text, t) => {
    if (text === undefined) return;
    for (let start = 0; start < Math.max(1, text.lines - step); start += step) {
      windows.push(stretch(text, start, start + lines, termWeights));
      owner.push(t);
    }
  });
  const best: Array<number | undefined> = texts.map((text) => (text === undefined ? undefined : 0));
  bm25(windows, termWeights).forEach((score, w) => {
    const t = owner[w] as number;
    if (score > (best[t] as number)) best[t] = score;
  });
  return best;
}

/**
 * The ranking with its first `passages.length` files reordered by (own score + weight x passage score) / (1 +
 * weight), each relative to the head's best; a file not read counts its own relative score as its passage score.
 * Scores stay on the ranking's scale and never fall below the head's last, so the files after the head keep their
 * places. Unchanged when no passage holds a term.
 */
export function reorderHead(ranked: readonly Ranked[], passages: ReadonlyArray<number | undefined>, weight: number): Ranked[] {
  const head = ranked.slice(0, passages.length);
  const topPassage = Math.max(0, ...passages.map((p) => p ?? 0));
  if (head.length < 2 || weight <= 0 || topPassage === 0) return [...ranked];
  const topScore = head[0]?.score || 1;
  const floor = head[head.length - 1]?.score ?? 0;
  const mixed = head.map(({ doc, score }, i) => {
    const own = score / topScore;
    const passage = passages[i];
    return { doc, i, mixed: (own + weight * (passage === undefined ? own : passage / topPassage)) / (1 + weight) };
  });
  mixed.sort((a, b) => b.mixed - a.mixed || a.i - b.i);
  return [...mixed.map(({ doc, mixed: m }) => ({ doc, score: Math.max(floor, m * topScore) })), ...ranked.slice(head.length)];
}

/** The ranking with its head reordered by the passages of `texts` (the head's, undefined where not read); unchanged when none was read. */
export function rerankByPassages(ranked: readonly Ranked[], texts: ReadonlyArray<LineTerms | undefined>, termWeights: ReadonlyMap<string, number>, params: PassageParams): Ranked[] {
  if (params.weight <= 0 || termWeights.size === 0 || texts.every((t) => t === undefined)) return [...ranked];
  return reorderHead(ranked, passageScores(texts, termWeights, params.lines), params.weight);
}

/**
 * Each symbol's score over its own lines of `text` (BM25 over the weighted terms; lengths normalised by the mean
 * over these symbols): where in a file the text's words meet.
 */
export function symbolBodyScores(text: LineTerms, symbols: ReadonlyArray<{ start_line: number; end_line: number }>, termWeights: ReadonlyMap<string, number>): number[] {
  return bm25(symbols.map(({ start_line, end_line }) => stretch(text, start_line - 1, end_line, termWeights)), termWeights);
}

/**
 * A text as its windows and symbols are scored: each line's length in tokens and where the terms of interest
 * stand. Tokenised once, in one pass over the text, for the passages and the symbols' bodies alike.
 */
export interface LineTerms {
  /** How many lines the text has. */
  readonly lines: number;
  /** Tokens before each line: `before[i]` for line i (0-based), `before[lines]` the text's whole length. */
  readonly before: Uint32Array;
  /** Each occurrence of a term of interest, in text order: its line and the term. */
  readonly hitLines: readonly number[];
  readonly hitTerms: readonly string[];
}

/** The tokens of `text`, line by line, keeping only the positions of `terms` (the same tokens as `tokenizer.text` of each line). */
export function lineTerms(text: string, terms: ReadonlyMap<string, unknown>, tokenizer: Tokenizer): LineTerms {
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  const before = new Uint32Array(lines + 1);
  const hitLines: number[] = [];
  const hitTerms: string[] = [];
  let line = 0;
  let nextBreak = text.indexOf('\n');
  let tokens = 0;
  for (const match of text.matchAll(IDENTIFIER)) {
    while (nextBreak !== -1 && nextBreak < match.index) {
      before[++line] = tokens;
      nextBreak = text.indexOf('\n', nextBreak + 1);
    }
    for (const token of tokenizer.identifier(match[0])) {
      tokens++;
      if (terms.has(token)) {
        hitLines.push(line);
        hitTerms.push(token);
      }
    }
  }
  while (line < lines) before[++line] = tokens;
  return { lines, before, hitLines, hitTerms };
}

/** A stretch of lines: how often it holds each weighted term, and its length in tokens. */
interface Stretch {
  hits: Map<string, number>;
  length: number;
}

/** Lines `from` (0-based) up to `to`, clipped to the text. */
function stretch(text: LineTerms, from: number, to: number, termWeights: ReadonlyMap<string, number>): Stretch {
  const first = Math.max(0, from);
  const end = Math.min(text.lines, to);
  const hits = new Map<string, number>();
  if (end <= first) return { hits, length: 0 };
  for (let i = firstHitFrom(text.hitLines, first); i < text.hitLines.length && (text.hitLines[i] as number) < end; i++) {
    const term = text.hitTerms[i] as string;
    if (termWeights.has(term)) hits.set(term, (hits.get(term) ?? 0) + 1);
  }
  return { hits, length: (text.before[end] as number) - (text.before[first] as number) };
}

/** The first index of `sorted` whose value is at least `line`. */
function firstHitFrom(sorted: readonly number[], line: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < line) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Each stretch's BM25 score, its length normalised by the mean of these stretches. */
function bm25(stretches: readonly Stretch[], termWeights: ReadonlyMap<string, number>): number[] {
  const mean = stretches.reduce((sum, s) => sum + s.length, 0) / Math.max(1, stretches.length) || 1;
  return stretches.map(({ hits, length }) => {
    let score = 0;
    for (const [term, n] of hits) score += ((termWeights.get(term) as number) * n * (K1 + 1)) / (n + K1 * (1 - B + (B * length) / mean));
    return score;
  });
}
