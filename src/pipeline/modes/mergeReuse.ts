/**
 * A merged index written as a single run writes its own: entry by entry (incremental/indexAssembly.ts), with
 * the reuse state beside it, so the next `coderag index` into that folder (a CI artifact seeding a local run)
 * takes every unchanged entry instead of indexing the repository again.
 *
 * Each shard left its own reuse state beside its partial index (`.<shard file>.state`): the records of its
 * files (mtime, size, git blob id, imports as written, candidate terms, exported names). The merged state is
 * theirs, combined.
 * A shard whose state is missing (an artifact upload that skipped hidden files) or describes another file gives
 * its files no record, and the next run extracts those again; shards whose states disagree on what shaped
 * their entries give the merged index no state at all. Either way the index itself is the same.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/schema.js';
import { termsFromFlat } from '../../extract/conceptTerms.js';
import type { FileRelationship, RepoIndex } from '../../index/types.js';
import { buildRepoIndex, type BuildIndexInput } from '../buildIndex.js';
import type { EventSink } from '../events.js';
import { fileDigest, loadReuseState, StreamedEntries, type RunState, type StateDetails, type StateHeader, type StoredRecord } from '../incremental/incremental.js';
import { subjectsByFile } from '../history.js';
import { describeIndex, indexPathFor, jsonStyle, writeRepoIndex, type WrittenRepo } from '../writeIndex.js';

/** A shard's partial index and the file it was read from. */
export interface MergedShard {
  file: string;
  index: Pick<RepoIndex, 'file_summaries' | 'analysis_metadata'>;
}

interface ShardState {
  header: StateHeader;
  records: Map<string, StoredRecord>;
  details: StateDetails;
}

/**
 * Writes the merged index of one repository into `outDir` with the reuse state its shards' states make, or
 * without one (saying why) when they cannot make one.
 */
export async function writeMergedIndex(input: BuildIndexInput, shards: readonly MergedShard[], outDir: string, config: Config, emit: EventSink): Promise<WrittenRepo> {
  const states = await Promise.all(shards.map((shard) => loadShardState(shard.file)));
  try {
    const usable = states.filter((s): s is ShardState => typeof s !== 'string');
    const first = usable[0];
    const disagreement = first ? usable.find((s) => !sameRun(s.header, first.header)) : undefined;
    if (!first || disagreement) {
      const why = first ? 'the shards\' reuse states disagree on what shaped their entries' : `no shard has a reuse state beside it (${states[0] as string})`;
      emit({ type: 'info', message: `${input.repoName}: merged without a reuse state: ${why}; the next index into ${outDir} indexes every file again` });
      const index = buildRepoIndex(input);
      return { index: describeIndex(index), outputPath: await writeRepoIndex(index, outDir, config) };
    }
    const owners = new Map<string, ShardState>();
    shards.forEach((shard, i) => {
      const state = states[i];
      if (typeof state === 'string') {
        const shardInfo = shard.index.analysis_metadata.shard;
        emit({ type: 'info', message: `${input.repoName}: shard ${shardInfo ? `${shardInfo.index}/${shardInfo.count}` : shard.file} has no reuse state (${state}); the next index extracts its ${shard.index.file_summaries.length} files again` });
      } else if (state) for (const summary of shard.index.file_summaries) owners.set(summary.file_path, state);
    });
    return await writeWithState(input, owners, { startedAt: Math.min(...usable.map((s) => s.header.started_ms)), shape: first.header.shape, repo: first.header.repo, goModule: first.header.go_module, walkedDigest: first.header.walked_digest, history: first.header.history }, outDir, config);
  } finally {
    await Promise.all(states.map((s) => (typeof s === 'string' ? undefined : s.details.close())));
  }
}

async function writeWithState(input: BuildIndexInput, owners: ReadonlyMap<string, ShardState>, state: RunState, outDir: string, config: Config): Promise<WrittenRepo> {
  const { summaries, relationships, finishedAt, ...facts } = input;
  const outputPath = indexPathFor(outDir, config, input.repoName, null);
  const byFile = new Map<string, FileRelationship[]>();
  for (const relationship of relationships) {
    const list = byFile.get(relationship.repo_file_path);
    if (list) list.push(relationship);
    else byFile.set(relationship.repo_file_path, [relationship]);
  }
  // Relationships of no merged file (none, in shards that passed the checks) go with the first entry all the same.
  const paths = new Set(summaries.map((s) => s.file_path));
  const rest = [...byFile.entries()].filter(([file]) => !paths.has(file)).flatMap(([, list]) => list);
  const entries = await StreamedEntries.create(outputPath, jsonStyle(config));
  // The shards read the same commits (sameRun): their subjects stay the entries'.
  if (state.history) entries.useHistory(subjectsByFile(state.history.read.commits, state.history.subjects));
  try {
    for (const [n, summary] of summaries.entries()) {
      const own = [...(byFile.get(summary.file_path) ?? []), ...(n === 0 ? rest : [])];
      const shard = owners.get(summary.file_path);
      const record = shard?.records.get(summary.file_path);
      if (!shard || !record) {
        await entries.addFresh({ summary, relationships: own, record: null });
        continue;
      }
      const { terms, imports, exports } = await shard.details.detail(record);
      await entries.addFresh({
        summary,
        relationships: own,
        ...(terms ? { terms: termsFromFlat(terms) } : {}),
        record: {
          file: { path: summary.file_path, absolute: path.join(input.repoPath, summary.file_path), size: record.size, mtimeMs: record.mtimeMs },
          blob: record.blob,
          imports,
          exports,
        },
      });
    }
    const { index, summaryRanges } = await entries.write(facts, () => finishedAt, state, config.output.include_metadata);
    return { index, outputPath, summaryRanges };
  } finally {
    await entries.dispose();
  }
}

/** A shard's reuse state, when it describes the shard file beside it; else why not. */
async function loadShardState(file: string): Promise<ShardState | string> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    return `unreadable: ${(error as Error).message}`;
  }
  const loaded = await loadReuseState(file, async (header) => (header.index_bytes === size && (await fileDigest(file)) === header.index_digest ? null : 'its reuse state describes another file'));
  return loaded.ok ? { header: loaded.header, records: loaded.records, details: loaded.details } : loaded.problem;
}

/** Whether two shards' entries were shaped alike, resolved against the same files and given the same commit subjects. */
function sameRun(a: StateHeader, b: StateHeader): boolean {
  const history = (h: StateHeader['history']) => (h ? [h.subjects, h.read.head, h.read.maxCommits, h.read.maxAgeDays] : null);
  return JSON.stringify(a.shape) === JSON.stringify(b.shape) && a.walked_digest === b.walked_digest && a.go_module === b.go_module && JSON.stringify(history(a.history)) === JSON.stringify(history(b.history));
}
