/**
 * A field index's sorted term list, with each term's document frequency and where its postings sit. Built in
 * memory it is arrays; read from a search pack it is blocks of TERM_BLOCK terms that a query reads one by one
 * from the pack's file, found through the first term of each block (the only part read when a pack is opened).
 * A query looks up a handful of terms, so a cold search over many indexes reads a few kilobytes of each term
 * list instead of all of it.
 *
 * Terms are the tokeniser's output, ASCII identifiers and their stems, so byte order and string order agree.
 */

export interface TermTable {
  readonly length: number;
  /** The term's number, or -1 when the table does not hold it. */
  find(term: string): number;
  /** Documents holding term `id`; 0 for a term the table cannot read. */
  df(id: number): number;
  /** Term `id`'s postings are values [from, to) of the field index's postings; [0, 0] when it cannot read them. */
  postingRange(id: number): readonly [number, number];
  /** Every term in order, for writing a pack; a pack's table with a damaged block throws DamagedTermsError. */
  encode(): EncodedTerms;
}

/** A pack's term table that cannot be copied whole: some block is damaged. */
export class DamagedTermsError extends Error {
  override name = 'DamagedTermsError';
}

export interface EncodedTerms {
  /** Every term's UTF-8 end to end, and `length + 1` offsets into them. */
  bytes: Uint8Array;
  starts: Int32Array;
  df: Int32Array;
  /** `length + 1` offsets into the postings. */
  postingStart: Int32Array;
}

export function termTableOf(sorted: readonly string[], df: Int32Array, postingStart: Int32Array): TermTable {
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
    df: (id) => df[id] ?? 0,
    postingRange: (id) => [postingStart[id] ?? 0, postingStart[id + 1] ?? 0],
    encode() {
      const parts = sorted.map((t) => Buffer.from(t, 'utf8'));
      const starts = new Int32Array(sorted.length + 1);
      let total = 0;
      parts.forEach((p, i) => {
        starts[i] = total;
        total += p.byteLength;
      });
      starts[sorted.length] = total;
      return { bytes: Buffer.concat(parts), starts, df, postingStart };
    },
  };
}

/** Terms per block: a block of identifiers is about a kilobyte, one read. */
export const TERM_BLOCK = 64;

/**
 * The blocks a pack stores, end to end, each at a multiple of 4 bytes: the count c of its terms, then c + 1 byte
 * offsets into its term bytes, c document frequencies, c + 1 posting offsets (the last is where the next term's
 * start), as 32-bit little-endian integers; then the term bytes, zero-padded to a multiple of 4. `keys` are
 * the first term of every block, as bytes and offsets; `offsets` where each block starts, and where the last ends.
 */
export interface TermBlocks {
  keyBytes: Uint8Array;
  keyStarts: Int32Array;
  offsets: Int32Array;
  blocks: Uint8Array;
}

export function termBlocksOf(terms: EncodedTerms): TermBlocks {
  const count = terms.starts.length - 1;
  const blockCount = Math.ceil(count / TERM_BLOCK);
  const offsets = new Int32Array(blockCount + 1);
  const keyStarts = new Int32Array(blockCount + 1);
  const keys: Uint8Array[] = [];
  const pieces: Uint8Array[] = [];
  let at = 0;
  for (let b = 0; b < blockCount; b++) {
    const first = b * TERM_BLOCK;
    const c = Math.min(TERM_BLOCK, count - first);
    const byteStart = terms.starts[first] as number;
    const byteEnd = terms.starts[first + c] as number;
    const words = new Int32Array(3 * c + 3);
    words[0] = c;
    for (let i = 0; i <= c; i++) words[1 + i] = (terms.starts[first + i] as number) - byteStart;
    words.set(terms.df.subarray(first, first + c), c + 2);
    words.set(terms.postingStart.subarray(first, first + c + 1), 2 * c + 2);
    const bytes = new Uint8Array(Math.ceil((byteEnd - byteStart) / 4) * 4);
    bytes.set(terms.bytes.subarray(byteStart, byteEnd));
    pieces.push(new Uint8Array(words.buffer), bytes);
    offsets[b] = at;
    at += words.byteLength + bytes.byteLength;
    keys.push(terms.bytes.subarray(byteStart, terms.starts[first + 1] as number));
    keyStarts[b + 1] = (keyStarts[b] as number) + (keys[b] as Uint8Array).byteLength;
  }
  offsets[blockCount] = at;
  return { keyBytes: Buffer.concat(keys), keyStarts, offsets, blocks: Buffer.concat(pieces) };
}

/** Bytes [offset, offset + length) of a pack's term blocks; fewer when the file cannot give them all. */
export type BlockBytes = (offset: number, length: number) => Uint8Array;

interface Block {
  starts: Int32Array;
  df: Int32Array;
  postingStart: Int32Array;
  bytes: Buffer;
  /** The term bytes as latin1, one character per byte. */
  text: string;
}

/**
 * A pack's term table: `length` terms in blocks read through `read` as lookups need them, `keys` and `offsets`
 * already checked by `validStarts`. A block that makes no sense (a damaged pack) holds no term.
 */
export function termTableFromBlocks(length: number, keys: { bytes: Uint8Array; starts: Int32Array }, offsets: Int32Array, read: BlockBytes, postingCount: number): TermTable {
  // Terms are compared as latin1 strings, one character per byte: the same order as their bytes, and native
  // string comparison is far cheaper than a Buffer#compare call per probe.
  const keyText = Buffer.from(keys.bytes.buffer, keys.bytes.byteOffset, keys.bytes.byteLength).toString('latin1');
  const blockCount = offsets.length - 1;
  const cache = new Map<number, Block | null>();
  const block = (b: number): Block | null => {
    let found = cache.get(b);
    if (found === undefined) {
      const from = offsets[b] as number;
      found = b >= 0 && b < blockCount ? parseBlock(read(from, (offsets[b + 1] as number) - from), Math.min(TERM_BLOCK, length - b * TERM_BLOCK), postingCount) : null;
      cache.set(b, found);
    }
    return found;
  };
  const inBlock = (id: number): { at: Block; i: number } | null => {
    const at = id >= 0 && id < length ? block(Math.floor(id / TERM_BLOCK)) : null;
    return at ? { at, i: id % TERM_BLOCK } : null;
  };
  return {
    length,
    find(term) {
      const key = Buffer.from(term, 'utf8').toString('latin1');
      // The last block whose first term is not after the term.
      let lo = 0;
      let hi = blockCount - 1;
      let b = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        if (keyText.slice(keys.starts[mid], keys.starts[mid + 1]) <= key) {
          b = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      const at = b >= 0 ? block(b) : null;
      if (!at) return -1;
      lo = 0;
      hi = at.starts.length - 2;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const t = at.text.slice(at.starts[mid], at.starts[mid + 1]);
        if (t === key) return b * TERM_BLOCK + mid;
        if (t < key) lo = mid + 1;
        else hi = mid - 1;
      }
      return -1;
    },
    df(id) {
      const found = inBlock(id);
      return found ? (found.at.df[found.i] as number) : 0;
    },
    postingRange(id) {
      const found = inBlock(id);
      return found ? [found.at.postingStart[found.i] as number, found.at.postingStart[found.i + 1] as number] : [0, 0];
    },
    encode() {
      // Block by block. Every block must read and take up the postings where the one before left them: a lookup
      // can do with a damaged block (its terms are not found), a copy of the whole table cannot.
      const parts: Uint8Array[] = [];
      const starts = new Int32Array(length + 1);
      const df = new Int32Array(length);
      const postingStart = new Int32Array(length + 1);
      let total = 0;
      for (let b = 0; b < blockCount; b++) {
        const first = b * TERM_BLOCK;
        const c = Math.min(TERM_BLOCK, length - first);
        const at = block(b);
        if (!at) throw new DamagedTermsError(`term block ${b} cannot be read`);
        if (at.postingStart[0] !== postingStart[first]) throw new DamagedTermsError(`term block ${b} does not follow the one before`);
        for (let i = 0; i < c; i++) starts[first + i] = total + (at.starts[i] as number);
        postingStart.set(at.postingStart, first);
        df.set(at.df, first);
        parts.push(at.bytes);
        total += at.bytes.byteLength;
      }
      if (postingStart[length] !== postingCount) throw new DamagedTermsError('the term blocks do not end with the postings');
      starts[length] = total;
      return { bytes: Buffer.concat(parts), starts, df, postingStart };
    },
  };
}

/** A block's arrays, or null when its bytes are not the block of `expected` terms over `postingCount` postings. */
function parseBlock(raw: Uint8Array, expected: number, postingCount: number): Block | null {
  const wordsAvailable = Math.floor(raw.byteLength / 4);
  if (wordsAvailable < 1 || expected < 1) return null;
  // Typed-array views need a start at a multiple of 4; a block read on its own is in memory of its own.
  const aligned = raw.byteOffset % 4 === 0 ? raw : Uint8Array.from(raw);
  const words = new Int32Array(aligned.buffer, aligned.byteOffset, wordsAvailable);
  const c = words[0] as number;
  if (c !== expected || 3 * c + 3 > wordsAvailable) return null;
  const starts = words.subarray(1, c + 2);
  const df = words.subarray(c + 2, 2 * c + 2);
  const postingStart = words.subarray(2 * c + 2, 3 * c + 3);
  const byteStart = 4 * (3 * c + 3);
  if (!validStarts(starts, aligned.byteLength - byteStart) || df.some((n) => n < 0)) return null;
  for (let i = 0; i <= c; i++) {
    const p = postingStart[i] as number;
    if (p < 0 || p > postingCount || (i > 0 && p < (postingStart[i - 1] as number))) return null;
  }
  const bytes = Buffer.from(aligned.buffer, aligned.byteOffset + byteStart, starts[c] as number);
  return { starts, df, postingStart, bytes, text: bytes.toString('latin1') };
}

/** Whether `starts` can index `byteLength` bytes: starts at 0, never decreases, ends within the bytes. */
export function validStarts(starts: Int32Array, byteLength: number): boolean {
  if (starts.length === 0 || starts[0] !== 0) return false;
  for (let i = 1; i < starts.length; i++) if ((starts[i] as number) < (starts[i - 1] as number)) return false;
  return (starts[starts.length - 1] as number) <= byteLength;
}
