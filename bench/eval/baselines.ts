/**
 * Lexical baselines over raw file contents. Pure functions plus thin Ranker wrappers.
 *
 * (a) keyword: what a developer gets from ripgrep. The query becomes lower-case words of >= 3 characters minus a
 *     small English stopword list; a file's score is the number of distinct query words that occur in it as
 *     case-insensitive substrings, ties broken by the total number of occurrences, then by path. Files with no hit
 *     are not returned (rg would not list them).
 * (b) bm25: Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5))) over tokens of the raw
 *     contents: alphanumeric/underscore runs, lower-cased, kept whole and also split on `_` and camelCase
 *     boundaries (tokens shorter than 2 characters dropped). Query terms are tokenised the same way, stopwords
 *     removed, each distinct term counted once. Ties broken by path; zero-score files are not returned.
 *
 * Target mode (q.target set): both use q.keywords plus the words of the target file's name (its stem), since the
 * target path names a file that does not exist yet.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { RankQuery, Ranker } from './types.js';

export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being but by can could did do does doing for from had has have having he her his how ' +
    'i if in into is it its itself let me more most my no nor not of off on once only or other our out over own same ' +
    'she should so some such than that the their them then there these they this those through to too under until ' +
    'up very was we were what when where which while who whom why will with would you your also just now via'
  ).split(' '),
);

/** Keyword-baseline query words: lower-case [a-z0-9_] runs of >= 3 chars, not all digits, not stopwords, deduplicated. */
export function keywordTerms(query: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of query.toLowerCase().matchAll(/[a-z0-9_]+/g)) {
    const w = m[0].replace(/^_+|_+$/g, '');
    if (w.length < 3 || /^\d+$/.test(w) || STOPWORDS.has(w) || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

export interface KeywordHit {
  path: string;
  distinct: number;
  total: number;
}

/** Keyword scores for documents whose `text` is already lower-cased. Sorted best first; zero-hit files omitted. */
export function keywordRank(docs: ReadonlyArray<{ path: string; text: string }>, terms: readonly string[]): KeywordHit[] {
  const hits: KeywordHit[] = [];
  for (const d of docs) {
    let distinct = 0;
    let total = 0;
    for (const t of terms) {
      const c = countOccurrences(d.text, t);
      if (c > 0) {
        distinct++;
        total += c;
      }
    }
    if (distinct > 0) hits.push({ path: d.path, distinct, total });
  }
  return hits.sort((a, b) => b.distinct - a.distinct || b.total - a.total || cmp(a.path, b.path));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** BM25 tokens: whole alnum/underscore runs plus their snake_case and camelCase parts, lower-cased, length >= 2. */
export function codeTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/[A-Za-z0-9_]+/g)) {
    const raw = m[0];
    const whole = raw.replace(/^_+|_+$/g, '').toLowerCase();
    if (whole.length >= 2) out.push(whole);
    const parts = raw.split('_').flatMap((p) => p.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? []);
    if (parts.length > 1) {
      for (const p of parts) {
        const lp = p.toLowerCase();
        if (lp.length >= 2) out.push(lp);
      }
    }
  }
  return out;
}

/** Distinct BM25 query terms (code tokens minus stopwords), in first-occurrence order. */
export function bm25QueryTerms(query: string): string[] {
  return [...new Set(codeTokens(query).filter((t) => !STOPWORDS.has(t)))];
}

export interface Bm25Doc {
  path: string;
  len: number;
  tf: ReadonlyMap<string, number>;
}

export interface Bm25Index {
  n: number;
  avgdl: number;
  df: Map<string, number>;
  docs: Bm25Doc[];
}

/**
 * Term counts of a text, memoised by a hash of the text: the parent trees of one repository's commits share
 * almost every file, so each version of a file is tokenised once per run. The memo keeps the newest entries.
 */
const termCountMemo = new Map<string, { len: number; tf: ReadonlyMap<string, number> }>();
const TERM_COUNT_MEMO_SIZE = 20_000;

function termCounts(text: string): { len: number; tf: ReadonlyMap<string, number> } {
  const key = createHash('sha1').update(text).digest('hex');
  const hit = termCountMemo.get(key);
  if (hit) return hit;
  const toks = codeTokens(text);
  const tf = new Map<string, number>();
  for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
  const counted = { len: toks.length, tf };
  termCountMemo.set(key, counted);
  if (termCountMemo.size > TERM_COUNT_MEMO_SIZE) {
    const oldest = termCountMemo.keys().next().value;
    if (oldest !== undefined) termCountMemo.delete(oldest);
  }
  return counted;
}

export function buildBm25(docs: ReadonlyArray<{ path: string; text: string }>): Bm25Index {
  const df = new Map<string, number>();
  const out: Bm25Doc[] = [];
  let totalLen = 0;
  for (const d of docs) {
    const { len, tf } = termCounts(d.text);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    out.push({ path: d.path, len, tf });
    totalLen += len;
  }
  return { n: out.length, avgdl: out.length ? totalLen / out.length : 0, df, docs: out };
}

export function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

export interface Bm25Params {
  k1: number;
  b: number;
}
export const BM25_DEFAULTS: Bm25Params = { k1: 1.2, b: 0.75 };

/** BM25 score of every document with a positive score, best first (ties by path). */
export function bm25Rank(
  index: Bm25Index,
  terms: readonly string[],
  params: Bm25Params = BM25_DEFAULTS,
): Array<{ path: string; score: number }> {
  const { k1, b } = params;
  const uniq = [...new Set(terms)];
  const idf = new Map(uniq.map((t) => [t, bm25Idf(index.n, index.df.get(t) ?? 0)] as const));
  const out: Array<{ path: string; score: number }> = [];
  for (const d of index.docs) {
    let score = 0;
    for (const t of uniq) {
      const f = d.tf.get(t);
      if (!f) continue;
      const norm = index.avgdl > 0 ? d.len / index.avgdl : 1;
      score += (idf.get(t) ?? 0) * ((f * (k1 + 1)) / (f + k1 * (1 - b + b * norm)));
    }
    if (score > 0) out.push({ path: d.path, score });
  }
  return out.sort((x, y) => y.score - x.score || cmp(x.path, y.path));
}

/** Text the baselines search for: the query, or (target mode) the keywords plus the target file's stem. */
export function baselineQueryText(q: RankQuery): string {
  if (!q.target) return q.query;
  const base = posix.basename(q.target);
  const stem = base.includes('.') ? base.slice(0, base.indexOf('.')) : base;
  return [...q.keywords, stem].join(' ');
}

function readDocs(treeDir: string, files: readonly string[]): Array<{ path: string; text: string }> {
  return files.map((path) => ({ path, text: readFileSync(join(treeDir, path), 'utf8') }));
}

export const keywordRanker: Ranker = {
  name: 'keyword',
  async prepare(treeDir, files) {
    return readDocs(treeDir, files).map((d) => ({ path: d.path, text: d.text.toLowerCase() }));
  },
  rank(prepared, q, k) {
    const docs = prepared as Array<{ path: string; text: string }>;
    const terms = q.target ? keywordTerms(baselineQueryText(q)) : keywordTerms(q.query);
    return keywordRank(docs, terms).slice(0, k).map((h) => h.path);
  },
};

export const bm25Ranker: Ranker = {
  name: 'bm25',
  async prepare(treeDir, files) {
    return buildBm25(readDocs(treeDir, files));
  },
  rank(prepared, q, k) {
    return bm25Rank(prepared as Bm25Index, bm25QueryTerms(baselineQueryText(q)))
      .slice(0, k)
      .map((h) => h.path);
  },
};
