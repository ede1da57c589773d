/**
 * Shards: `coderag index --shard i/n` profiles the files whose path hashes to shard i, so n CI runners split a
 * repository without a scheduler. A file's shard depends on its path alone: adding or deleting other files
 * never moves it, so each runner's caches keep matching from one night to the next. Every shard still walks
 * (and resolves imports against) the whole repository, and records what it walked and the settings that
 * shaped its profiles, so `coderag merge` can refuse shards that do not belong together.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config/schema.js';
import type { ShardInfo } from '../index/types.js';
import { SCHEMA_VERSION } from '../index/types.js';
import { UsageError } from '../shared/errors.js';
import { VERSION } from '../shared/version.js';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** `"2/4"` → shard 2 of 4. */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard ${text}: expected i/n with 1 ≤ i ≤ n, e.g. 2/4`);
  }
  return { index, count };
}

/** Whether a repository path belongs to the shard: a hash of the path, never its position in a listing. */
export function inShard(filePath: string, shard: Shard): boolean {
  if (shard.count === 1) return true;
  const bucket = createHash('sha1').update(filePath).digest().readUInt32BE(0) % shard.count;
  return bucket === shard.index - 1;
}

/** A digest of every path the walk listed, so shards of different trees (or ignore rules) are told apart. */
export function filesDigest(paths: readonly string[]): string {
  const hash = createHash('sha256');
  for (const p of [...paths].sort()) hash.update(p).update('\0');
  return hash.digest('hex');
}

export interface ProfileShapers {
  provider: string;
  model: string | null;
  promptVersion: string | null;
  focus: string | null;
  targetStructure: string | null;
}

/**
 * Everything that changes what a profile says, flattened to dotted keys so a refusal can name the one that
 * differs. The target structure is kept as a digest: it can be long, and only equality matters.
 */
export function profileSettings(config: Config, run: ProfileShapers): Record<string, unknown> {
  const settings: Record<string, unknown> = {
    schema_version: SCHEMA_VERSION,
    analyzer_version: VERSION,
    provider: run.provider,
    model: run.model,
    prompt_version: run.promptVersion,
    focus: run.focus,
    target_structure: run.targetStructure ? createHash('sha256').update(run.targetStructure).digest('hex').slice(0, 16) : null,
  };
  const sections = { file_analysis: config.file_analysis, relationships: config.relationships } as Record<string, Record<string, unknown>>;
  for (const [section, values] of Object.entries(sections)) {
    for (const key of Object.keys(values).sort()) {
      if (section === 'relationships' && key === 'target_structure_file') continue;
      settings[`${section}.${key}`] = values[key];
    }
  }
  return settings;
}

export function shardInfo(shard: Shard, walkedPaths: readonly string[], settings: Record<string, unknown>): ShardInfo {
  return { index: shard.index, count: shard.count, files_total: walkedPaths.length, files_digest: filesDigest(walkedPaths), settings };
}

/** `polyglot_index.json` → `polyglot_index.shard-2-of-4.json`: beside the full index, never mistaken for it. */
export function shardFileName(indexFileName: string, shard: Shard): string {
  // The config makes every index file name end in .json.
  return `${indexFileName.slice(0, -'.json'.length)}.shard-${shard.index}-of-${shard.count}.json`;
}
