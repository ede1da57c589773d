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
import type { Tokenizer } from './profileTokens.js';

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
export function passageScores(texts: ReadonlyArray<string | undefined>, termWeights: ReadonlyMap<string, number>, tokenizer: Tokenizer, lines: number): Array<number | undefined> {
  const step = Math.max(1, Math.floor(lines / 2));
  const windows: Stretch[] = [];
  const owner: number[] = [];
  texts.forEach((text, t) => {
    if (text === undefined) return;
    const perLine = tokenLines(text, tokenizer);
    for (let start = 0; start < Math.max(1, perLine.length - step); start += step) {
      windows.push(stretch(perLine, start, start + lines, termWeights));
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
export function rerankByPassages(ranked: readonly Ranked[], texts: ReadonlyArray<string | undefined>, termWeights: ReadonlyMap<string, number>, tokenizer: Tokenizer, params: PassageParams): Ranked[] {
  if (params.weight <= 0 || termWeights.size === 0 || texts.every((t) => t === undefined)) return [...ranked];
  return reorderHead(ranked, passageScores(texts, termWeights, tokenizer, params.lines), params.weight);
}

/**
 * Each symbol's score over its own lines of `text` (BM25 over the weighted terms; lengths normalised by the mean
 * over these symbols): where in a file the text's words meet.
 */
export function symbolBodyScores(text: string, symbols: ReadonlyArray<{ start_line: number; end_line: number }>, termWeights: ReadonlyMap<string, number>, tokenizer: Tokenizer): number[] {
  const perLine = tokenLines(text, tokenizer);
  return bm25(symbols.map(({ start_line, end_line }) => stretch(perLine, start_line - 1, end_line, termWeights)), termWeights);
}

/** A stretch of lines: how often it holds each weighted term, and its length in tokens. */
interface Stretch {
  hits: Map<string, number>;
  length: number;
}

function tokenLines(text: string, tokenizer: Tokenizer): Array<readonly string[]> {
  return text.split('\n').map((line) => tokenizer.text(line));
}

/** Lines `from` (0-based) up to `to`, clipped to the text. */
function stretch(perLine: ReadonlyArray<readonly string[]>, from: number, to: number, termWeights: ReadonlyMap<string, number>): Stretch {
  const hits = new Map<string, number>();
  let length = 0;
  for (let i = Math.max(0, from); i < Math.min(perLine.length, to); i++) {
    const tokens = perLine[i] as readonly string[];
    length += tokens.length;
    for (const token of tokens) if (termWeights.has(token)) hits.set(token, (hits.get(token) ?? 0) + 1);
  }
  return { hits, length };
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
