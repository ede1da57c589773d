/**
 * A field index's sorted term list, looked up by binary search. Built in memory it is an array of strings; read
 * from a search pack it stays the pack's bytes (UTF-8 terms laid end to end, and where each starts), so opening
 * an index with millions of distinct words costs nothing until a query looks one up.
 *
 * Terms are the tokeniser's output, ASCII identifiers and their stems, so byte order and string order agree.
 */
export interface TermTable {
  readonly length: number;
  /** The term's number, or -1 when the table does not hold it. */
  find(term: string): number;
  /** The table as bytes: every term's UTF-8 end to end, and `length + 1` offsets into them. */
  encode(): { bytes: Uint8Array; starts: Int32Array };
}

export function termTableOf(sorted: readonly string[]): TermTable {
  return {
    length: sorted.length,
    find(term) {
      let lo = 0;
      let hi = sorted.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const t = sorted[mid] as string;
        if (t === term) return mid;
        if (t < term) lo = mid + 1;
        else hi = mid - 1;
      }
      return -1;
    },
    encode() {
      const parts = sorted.map((t) => Buffer.from(t, 'utf8'));
      const starts = new Int32Array(sorted.length + 1);
      let total = 0;
      parts.forEach((p, i) => {
        starts[i] = total;
        total += p.byteLength;
      });
      starts[sorted.length] = total;
      return { bytes: Buffer.concat(parts), starts };
    },
  };
}

/** A table over a pack's bytes; `starts` must be non-decreasing and within `bytes` (the pack reader checks). */
export function termTableFromBytes(bytes: Uint8Array, starts: Int32Array): TermTable {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = Math.max(0, starts.length - 1);
  return {
    length,
    find(term) {
      const key = Buffer.from(term, 'utf8');
      let lo = 0;
      let hi = length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const order = data.compare(key, 0, key.byteLength, starts[mid] as number, starts[mid + 1] as number);
        if (order === 0) return mid;
        if (order < 0) lo = mid + 1;
        else hi = mid - 1;
      }
      return -1;
    },
    encode() {
      return { bytes, starts };
    },
  };
}

/** Whether `starts` can index `byteLength` bytes: starts at 0, never decreases, ends within the bytes. */
export function validStarts(starts: Int32Array, byteLength: number): boolean {
  if (starts.length === 0 || starts[0] !== 0) return false;
  for (let i = 1; i < starts.length; i++) if ((starts[i] as number) < (starts[i - 1] as number)) return false;
  return (starts[starts.length - 1] as number) <= byteLength;
}
