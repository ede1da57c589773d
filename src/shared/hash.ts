import { createHash } from 'node:crypto';

/** The content hash recorded in the index and used as the cache key's core. */
export function contentHash(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}
