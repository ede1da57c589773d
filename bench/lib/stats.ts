/** Small numeric helpers for benchmark figures. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Rounds to `digits` significant decimals, keeping integers whole. */
export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** max / min of the values: how far repeated runs disagree. */
export function spread(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return Math.max(...values) / Math.min(...values);
}
