/**
 * The tuning / held-out split. Within a set, cases are ordered by SHA-256 of their id (a commit's sha, or a
 * description case's owner/name); those at even positions form the tuning half, the others are held out. The
 * halves are balanced (they differ by one case at most), independent of the order cases are listed in, and the
 * same on every machine. `--tune-on odd` swaps them.
 */
import { createHash } from 'node:crypto';

export type Half = 'tune' | 'holdout';
export type TuneOn = 'even' | 'odd';

function hashOf(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** Each id's half. Duplicate ids share one position. */
export function splitHalves(ids: Iterable<string>, tuneOn: TuneOn = 'even'): Map<string, Half> {
  const unique = [...new Set(ids)].map((id) => ({ id, h: hashOf(id) })).sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0));
  const parity = tuneOn === 'even' ? 0 : 1;
  return new Map(unique.map(({ id }, i) => [id, i % 2 === parity ? 'tune' : 'holdout']));
}
