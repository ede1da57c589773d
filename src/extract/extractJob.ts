/**
 * One file's offline work, from bytes to facts: classify, parse, extract, hash. The same function runs in
 * the main thread or in an extraction worker; both return the same plain data.
 */
import { classifyFile, type ClassifyOptions, type ReadFile } from './classify.js';
import type { WalkedFile } from './walkedFile.js';
import type { SkipReason } from '../index/types.js';
import { contentHash } from '../shared/hash.js';
import type { RepoFileSet } from './imports.js';
import type { ParserPool } from './parser.js';
import type { WordCache } from './wordCache.js';
import { extractStaticFacts, type StaticFacts } from './staticProfile.js';

export type ExtractResult =
  | { ok: false; reason: SkipReason; detail: string }
  | { ok: true; facts: StaticFacts; hash: string; content?: string };

export interface ExtractJobOptions {
  classify: ClassifyOptions;
  /** Return the text too: a model needs it for its prompt, the static profile does not. */
  keepContent: boolean;
}

export async function runExtractJob(
  file: WalkedFile,
  options: ExtractJobOptions,
  context: { parsers: ParserPool; repoFiles: RepoFileSet; words: WordCache; readFile?: ReadFile },
): Promise<ExtractResult> {
  const classified = await classifyFile(file, options.classify, context.readFile);
  if (!classified.ok) return classified;
  const facts = await extractStaticFacts(file.path, classified.content, context);
  const result: ExtractResult = { ok: true, facts, hash: contentHash(classified.content) };
  if (options.keepContent) result.content = classified.content;
  return result;
}
