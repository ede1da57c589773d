import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import type { ExtractorPool } from '../../src/extract/extractorPool.js';
import type { EntrySink, FreshEntry } from '../../src/pipeline/incremental/incremental.js';
import type { IndexEvent } from '../../src/pipeline/events.js';
import { profileFiles, type ProfileStage } from '../../src/pipeline/profile.js';
import { createExtractors } from '../../src/pipeline/runIndex.js';
import { walkRepository } from '../../src/pipeline/walk.js';
import { AbortedError } from '../../src/shared/errors.js';
import { makeTempRepo } from '../support/tempRepo.js';

const config = defaultConfig();
const pools: ExtractorPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

/** A sink that keeps what it is given and notes how many entries were being added at once at most. */
function recordingSink(): EntrySink & { fresh: FreshEntry[]; mostAtOnce: number } {
  let adding = 0;
  const sink = {
    fresh: [] as FreshEntry[],
    mostAtOnce: 0,
    takeFrom: () => undefined,
    addReused: () => Promise.resolve(),
    useHistory: () => undefined,
    relateWith: () => undefined,
    async addFresh(entry: FreshEntry) {
      adding++;
      sink.mostAtOnce = Math.max(sink.mostAtOnce, adding);
      await new Promise((resolve) => setTimeout(resolve, 5));
      sink.fresh.push(entry);
      adding--;
    },
  };
  return sink;
}

async function stageFor(files: Record<string, string>, inFlight: number, signal = new AbortController().signal) {
  const repo = makeTempRepo(files);
  const walked = await walkRepository(repo.root, { supportedExtensions: config.file_analysis.supported_extensions, skipDirectories: [], respectGitignore: false });
  const extractors = createExtractors(config);
  pools.push(extractors);
  extractors.setRepository(walked.files.map((f) => f.path), null, { classify: { maxFileSize: config.file_analysis.max_file_size, skipGenerated: true }, keepContent: false });
  const events: IndexEvent[] = [];
  const entries = recordingSink();
  const stage: ProfileStage = {
    extractors,
    context: null,
    chosen: null,
    blobs: new Map(),
    entries,
    signal,
    fatal: new AbortController(),
    emit: (event) => events.push(event),
    repoName: 'repo',
    inFlight,
  };
  return { files: walked.files, stage, entries, events };
}

const FIVE_FILES = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`src/f${i}.ts`, `export function f${i}() { return ${i}; }\n`]));

describe('the extract-and-profile stage', () => {
  it('hands each file its static entry once, with no more files in flight than the run allows', async () => {
    const { files, stage, entries, events } = await stageFor(FIVE_FILES, 2);
    const parsed = await profileFiles(files, stage);
    expect(entries.fresh.map((e) => e.summary.file_path).sort()).toEqual(files.map((f) => f.path).sort());
    expect(entries.fresh.every((e) => e.summary.status === 'ok' && e.summary.profile_source === 'static')).toBe(true);
    expect(entries.mostAtOnce).toBeLessThanOrEqual(2);
    expect(parsed).toBe(5);
    expect(events.filter((e) => e.type === 'file_done')).toHaveLength(5);
  });

  it('stops with an interrupt once the run is stopped, taking no file after that', async () => {
    const stop = new AbortController();
    stop.abort();
    const { files, stage, entries } = await stageFor(FIVE_FILES, 2, stop.signal);
    await expect(profileFiles(files, stage)).rejects.toBeInstanceOf(AbortedError);
    expect(entries.fresh).toEqual([]);
  });
});
