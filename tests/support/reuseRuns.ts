/**
 * Runs the indexing pipeline in process against throwaway repositories, counting the files it reads, so
 * tests can say both what an incremental run wrote and what it cost.
 */
import { cpSync, readFileSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { defaultConfig, type Config } from '../../src/config/schema.js';
import { ExtractorPool } from '../../src/extract/extractorPool.js';
import type { RepoIndex } from '../../src/index/types.js';
import type { IndexEvent } from '../../src/pipeline/events.js';
import type { ReuseFigures } from '../../src/pipeline/writeIndex.js';
import { runIndex } from '../../src/pipeline/runIndex.js';
import { gitIn, makeTempDir } from './tempRepo.js';

export const POLYGLOT = path.resolve(import.meta.dirname, '../fixtures/polyglot');

/** Copies the polyglot fixture into `root` and dates every file an hour back, as files of an older checkout. */
export function copyFixture(root: string): void {
  cpSync(POLYGLOT, root, { recursive: true });
  ageFiles(root);
}

/** The polyglot fixture as a git repository of one commit with this subject, in a new folder named poly. */
export function committedFixture(subject: string): string {
  const repo = path.join(makeTempDir(), 'poly');
  copyFixture(repo);
  const git = gitIn(repo);
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', subject);
  return repo;
}

export function ageFiles(root: string, seconds = 3600): void {
  const then = new Date(Date.now() - seconds * 1000);
  const visit = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === '.git') continue;
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) visit(file);
      else utimesSync(file, then, then);
    }
  };
  visit(root);
}

export interface Run {
  index: RepoIndex;
  reuse: ReuseFigures;
  /** Files the run read (to hash or to extract). */
  reads: string[];
  events: IndexEvent[];
  outputPath: string;
  /** How the run's search pack was written (searchPacks.ts). */
  pack: string | undefined;
}

/** One pipeline whose extraction and reads go through a counting `readFile`; close it after the tests. */
export function createRunner(configure: (config: Config) => void = () => {}) {
  let reads: string[] = [];
  const readFileCounting = (absolute: string): Promise<Buffer> => {
    reads.push(absolute);
    return readFile(absolute);
  };
  const extractors = new ExtractorPool(0, readFileCounting);
  return {
    async index(repo: string, outDir: string, options: { reuse?: boolean; config?: Config; name?: string; targetStructure?: string } = {}): Promise<Run> {
      const config = options.config ?? defaultConfig();
      configure(config);
      reads = [];
      const events: IndexEvent[] = [];
      const result = await runIndex([repo], {
        config,
        outDir,
        extractors,
        readFile: readFileCounting,
        onEvent: (e) => events.push(e),
        reuse: options.reuse ?? true,
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options.targetStructure !== undefined ? { targetStructure: options.targetStructure } : {}),
      });
      const written = result.written[0];
      if (!written?.reuse) throw new Error('runIndex wrote no index');
      const index = JSON.parse(readFileSync(written.outputPath, 'utf8')) as RepoIndex;
      return { index, reuse: written.reuse, reads: [...reads], events, outputPath: written.outputPath, pack: result.packs?.[0] };
    },
    close: () => extractors.close(),
  };
}

/** The index as written, apart from what differs between any two runs (the date and the duration). */
export function comparable(indexFile: string): unknown {
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as RepoIndex;
  const { analysis_date: _date, duration_ms: _duration, ...metadata } = index.analysis_metadata;
  return { ...index, analysis_metadata: metadata };
}

export function warnings(run: Run): string[] {
  return run.events.flatMap((e) => (e.type === 'warning' ? [e.message] : []));
}
