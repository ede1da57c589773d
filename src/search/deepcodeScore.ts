/**
 * DeepCode's relevance formula, with its two defects fixed: keywords match identifier tokens (stemmed), not
 * raw substrings, so `ttl` matches `cacheTtl` and `TTL management` but not `settle`; and a shared extension
 * alone is not a result.
 *
 *   score = 0.3 x name match + 0.2 x same extension + 0.5 x (keywords matched / keywords given)
 */
import path from 'node:path';
import { splitIdentifier, stem, tokens } from '../shared/text.js';

export interface DeepCodeFields {
  file_path: string;
  file_type: string;
  main_functions: string[];
  key_concepts: string[];
  summary: string;
}

export const WEIGHTS = { name: 0.3, extension: 0.2, keywords: 0.5 } as const;

/** The stemmed tokens DeepCode's formula searches: concepts, functions, summary and file type. */
export function searchableTokens(ref: DeepCodeFields): Set<string> {
  return new Set(tokens([ref.key_concepts.join(' '), ref.main_functions.join(' '), ref.summary, ref.file_type].join(' ')));
}

/** A keyword matches when every token of it is among the reference's tokens (`cache invalidation` needs both). */
export function keywordMatches(keyword: string, searchable: ReadonlySet<string>): boolean {
  const needed = tokens(keyword);
  return needed.length > 0 && needed.every((t) => searchable.has(t));
}

/** File stems match when one's name tokens all appear in the other's: `cache` ~ `cache_manager`, not `ache`. */
export function namesMatch(target: string, candidate: string): boolean {
  const a = nameTokens(target);
  const b = nameTokens(candidate);
  if (a.length === 0 || b.length === 0) return false;
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  const pool = new Set(longer);
  return shorter.every((t) => pool.has(t));
}

export function nameTokens(filePath: string): string[] {
  const base = path.posix.basename(filePath.replace(/\\/g, '/'));
  const stemName = base.includes('.') ? base.slice(0, base.indexOf('.')) : base;
  return splitIdentifier(stemName).map(stem);
}

export interface DeepCodeScore {
  score: number;
  nameMatch: boolean;
  extensionMatch: boolean;
  matchedKeywords: string[];
}

export function deepcodeScore(
  target: string,
  ref: DeepCodeFields,
  keywords: readonly string[],
  searchable: ReadonlySet<string> = searchableTokens(ref),
): DeepCodeScore {
  const nameMatch = target !== '' && namesMatch(target, ref.file_path);
  const targetExt = path.posix.extname(target);
  const extensionMatch = targetExt !== '' && targetExt === path.posix.extname(ref.file_path);
  const matchedKeywords = keywords.filter((k) => keywordMatches(k, searchable));
  let score = 0;
  if (nameMatch) score += WEIGHTS.name;
  if (extensionMatch) score += WEIGHTS.extension;
  if (keywords.length) score += (matchedKeywords.length / keywords.length) * WEIGHTS.keywords;
  return { score: Math.min(score, 1), nameMatch, extensionMatch, matchedKeywords };
}

/** A result needs a reason beyond its extension: a name match or at least one keyword. */
export function isRelevant(result: DeepCodeScore): boolean {
  return result.nameMatch || result.matchedKeywords.length > 0;
}
