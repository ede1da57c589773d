/**
 * `bm25fn`: BM25 over function source, the function-level baseline of issue 40 (SweRank's BM25 row: one document
 * per definition). Every definition defs.ts finds in the candidate files (Python, Rust, Java, JavaScript,
 * TypeScript, Go) is one document: its whole source text, from its first line (decorators, attributes,
 * annotations) to its last, nested definitions included (a class's document holds its methods). The query is the
 * whole text (baselineQueryText, as the `bm25` baseline), tokenised as that baseline tokenises (codeTokens,
 * bm25QueryTerms), scored by the same bm25Rank (k1 1.2, b 0.75, Lucene idf), with N, df and the mean length over
 * the tree's definitions. Ties go by file, then line.
 *
 * It ranks definitions (`rankWithSymbols`: RankedSymbol, hit by issues.ts's symbolHits like CodeRAG's symbols)
 * and files, each where its best definition ranks (so a file with no definition is never returned).
 *
 * Each file version is read and tokenised once per run: its definitions and its tokens (as ids of one vocabulary,
 * with each line's end) are kept by a hash of its text, so the trees of one repository's cases share the work.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { baselineQueryText, bm25QueryTerms, bm25Rank, codeTokens, type Bm25Doc, type Bm25Index } from './baselines.js';
import { defLanguageOf, definitions, type SourceDef } from './defs.js';
import type { RankedSymbol, SymbolRanker } from './issues.js';
import type { RankQuery } from './types.js';

/** One file version: its definitions, its tokens as vocabulary ids, and the token count up to each line's end. */
interface FileTokens {
  defs: SourceDef[];
  tokens: Int32Array;
  /** lineEnd[k] = number of tokens in lines 1..k+1. */
  lineEnd: Int32Array;
}

const vocabulary = new Map<string, number>();
const memo = new Map<string, FileTokens>();
/** File versions kept (the newest); tokens are 4 bytes each, so about 20,000 files of a few thousand tokens. */
const MEMO_FILES = 20_000;

function termId(t: string): number {
  let id = vocabulary.get(t);
  if (id === undefined) {
    id = vocabulary.size;
    vocabulary.set(t, id);
  }
  return id;
}

/** A file's definitions and tokens (memoised by content). */
export function fileTokens(path: string, text: string): FileTokens | undefined {
  const lang = defLanguageOf(path);
  if (!lang) return undefined;
  const key = createHash('sha1').update(lang).update('\0').update(text).digest('hex');
  const hit = memo.get(key);
  if (hit) return hit;
  const lines = text.split('\n');
  const ids: number[] = [];
  const lineEnd = new Int32Array(lines.length);
  lines.forEach((l, k) => {
    for (const t of codeTokens(l)) ids.push(termId(t));
    lineEnd[k] = ids.length;
  });
  const entry: FileTokens = { defs: definitions(text, lang), tokens: Int32Array.from(ids), lineEnd };
  memo.set(key, entry);
  if (memo.size > MEMO_FILES) {
    const oldest = memo.keys().next().value;
    if (oldest !== undefined) memo.delete(oldest);
  }
  return entry;
}

interface Prepared {
  files: Array<{ path: string; ft: FileTokens }>;
}

export interface RankedDef extends RankedSymbol {
  score: number;
}

/** The tree's definitions ranked by BM25 against the query's terms, best first (positive scores only). */
export function rankDefinitions(files: Prepared['files'], terms: readonly string[]): RankedDef[] {
  const want = new Map<number, string>();
  for (const t of new Set(terms)) {
    const id = vocabulary.get(t);
    if (id !== undefined) want.set(id, t);
  }
  const docs: Bm25Doc[] = [];
  const df = new Map<string, number>();
  const byKey = new Map<string, { path: string; def: SourceDef }>();
  let totalLen = 0;
  for (const { path, ft } of files) {
    // positions (token indexes) of each query term in the file
    const at = new Map<string, number[]>();
    if (want.size) {
      ft.tokens.forEach((id, k) => {
        const t = want.get(id);
        if (t === undefined) return;
        const list = at.get(t);
        if (list) list.push(k);
        else at.set(t, [k]);
      });
    }
    for (const def of ft.defs) {
      const from = def.start >= 2 ? (ft.lineEnd[def.start - 2] ?? 0) : 0;
      const to = ft.lineEnd[Math.min(def.end, ft.lineEnd.length) - 1] ?? from;
      const tf = new Map<string, number>();
      for (const [t, list] of at) {
        const n = lowerBound(list, to) - lowerBound(list, from);
        if (n > 0) {
          tf.set(t, n);
          df.set(t, (df.get(t) ?? 0) + 1);
        }
      }
      const key = `${path}\0${String(def.line).padStart(8, '0')}\0${String(def.start).padStart(8, '0')}`;
      byKey.set(key, { path, def });
      docs.push({ path: key, len: to - from, tf });
      totalLen += to - from;
    }
  }
  const index: Bm25Index = { n: docs.length, avgdl: docs.length ? totalLen / docs.length : 0, df, docs };
  return bm25Rank(index, terms).flatMap(({ path: key, score }) => {
    const d = byKey.get(key);
    if (!d) return [];
    return [{ file: d.path, name: d.def.name, ast_path: d.def.qualname.replace(/\./g, '-'), start_line: d.def.start, end_line: d.def.end, kind: d.def.kind, score }];
  });
}

function lowerBound(list: readonly number[], x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Files in the order of their best definition. */
export function filesByBestDef(ranked: readonly RankedSymbol[]): string[] {
  return [...new Set(ranked.map((r) => r.file))];
}

/** Ranked definitions returned (fn Acc@10 reads the first 10). */
const SYMBOLS_KEPT = 50;

export const bm25FnRanker: SymbolRanker = {
  name: 'bm25fn',
  async prepare(treeDir, files) {
    const out: Prepared['files'] = [];
    for (const path of files) {
      if (!defLanguageOf(path)) continue;
      const ft = fileTokens(path, readFileSync(join(treeDir, path), 'utf8'));
      if (ft && ft.defs.length) out.push({ path, ft });
    }
    return { files: out } satisfies Prepared;
  },
  rank(prepared, q, k) {
    return filesByBestDef(rankDefinitions((prepared as Prepared).files, bm25QueryTerms(baselineQueryText(q)))).slice(0, k);
  },
  async rankWithSymbols(prepared: unknown, q: RankQuery, k: number) {
    const ranked = rankDefinitions((prepared as Prepared).files, bm25QueryTerms(baselineQueryText(q)));
    return { files: filesByBestDef(ranked).slice(0, k), symbols: ranked.slice(0, Math.max(k, SYMBOLS_KEPT)) };
  },
};
