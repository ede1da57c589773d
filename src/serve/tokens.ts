/**
 * Who may read what: the tokens file (`<sha256 hex of the token> <repositories>` a line, `*` or names separated by
 * commas, `#` starting a comment). Only hashes are kept; a presented token is hashed and compared with every
 * entry in constant time, so neither the answer's timing nor the logs say anything about a token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The repositories a token may read: all of them, or those named. */
export type Scope = { readonly all: true } | { readonly all: false; readonly repos: ReadonlySet<string> };

export const EVERY_REPOSITORY: Scope = { all: true };

export interface TokenEntry {
  /** The token's SHA-256, 32 bytes. */
  hash: Buffer;
  scope: Scope;
}

export interface ParsedTokens {
  entries: TokenEntry[];
  /** One line per refused line, naming its number only: a line may hold a token pasted by mistake. */
  problems: string[];
}

export function sha256Hex(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function parseTokens(text: string): ParsedTokens {
  const entries: TokenEntry[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) return;
    const [hash, repos, ...rest] = line.split(/\s+/);
    const where = `line ${i + 1}`;
    if (!hash || !/^[0-9a-fA-F]{64}$/.test(hash)) return void problems.push(`${where}: expected the token's SHA-256 as 64 hex digits first`);
    if (!repos || rest.length > 0) return void problems.push(`${where}: expected one field of repositories after the hash (* or names separated by commas, no spaces)`);
    const names = repos.split(',').map((name) => name.trim()).filter(Boolean);
    if (names.length === 0) return void problems.push(`${where}: no repositories named`);
    const scope: Scope = names.includes('*') ? EVERY_REPOSITORY : { all: false, repos: new Set(names) };
    entries.push({ hash: Buffer.from(hash, 'hex'), scope });
  });
  return { entries, problems };
}

/** The entries of one reading of the tokens file. */
export class TokenTable {
  constructor(readonly entries: readonly TokenEntry[]) {}

  /** The entry whose hash is the presented token's; every entry is compared, whichever matches. */
  lookup(token: string): TokenEntry | undefined {
    const presented = createHash('sha256').update(token, 'utf8').digest();
    let found: TokenEntry | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.hash, presented) && !found) found = entry;
    }
    return found;
  }
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match?.[1];
}
