/**
 * Retrieval metrics. `ranked` is a ranker's output (best first, duplicates ignored after their first occurrence);
 * `answers` is the case's non-empty set of answer files.
 */

function dedupe(ranked: readonly string[]): string[] {
  return [...new Set(ranked)];
}

/** Fraction of `answers` found among the first `k` distinct entries of `ranked`. */
export function recallAtK(ranked: readonly string[], answers: readonly string[], k: number): number {
  const want = new Set(answers);
  if (want.size === 0) throw new Error('recallAtK: empty answer set');
  let found = 0;
  for (const p of dedupe(ranked).slice(0, k)) if (want.has(p)) found++;
  return found / want.size;
}

/** 1-based rank of the first answer in `ranked`, or undefined when none is returned. */
export function firstHitRank(ranked: readonly string[], answers: readonly string[]): number | undefined {
  const want = new Set(answers);
  const i = dedupe(ranked).findIndex((p) => want.has(p));
  return i === -1 ? undefined : i + 1;
}

/** Reciprocal rank of the first answer (0 when no answer is returned). */
export function reciprocalRank(ranked: readonly string[], answers: readonly string[]): number {
  const r = firstHitRank(ranked, answers);
  return r === undefined ? 0 : 1 / r;
}

export interface CaseMetrics {
  r1: number;
  r5: number;
  r10: number;
  rr: number;
  firstRank: number | null;
}

export function caseMetrics(ranked: readonly string[], answers: readonly string[]): CaseMetrics {
  return {
    r1: recallAtK(ranked, answers, 1),
    r5: recallAtK(ranked, answers, 5),
    r10: recallAtK(ranked, answers, 10),
    rr: reciprocalRank(ranked, answers),
    firstRank: firstHitRank(ranked, answers) ?? null,
  };
}

export interface Summary {
  cases: number;
  r1: number;
  r5: number;
  r10: number;
  mrr: number;
}

/** Means over cases (0 for an empty list). */
export function summarise(list: readonly CaseMetrics[]): Summary {
  const n = list.length;
  const mean = (f: (m: CaseMetrics) => number): number => (n ? list.reduce((s, m) => s + f(m), 0) / n : 0);
  return { cases: n, r1: mean((m) => m.r1), r5: mean((m) => m.r5), r10: mean((m) => m.r10), mrr: mean((m) => m.rr) };
}
