/**
 * The size thresholds the pipeline applies, read from the build being measured so the figures can say which
 * regime each run was in: below MIN_FILES_FOR_WORKERS files it extracts in-process, and below
 * FAST_STARTUP_MAX_FILES it keeps V8's baseline wasm compiler (--liftoff-only), trading parse speed for start-up.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MIN_FILES_FOR_WORKERS } from '../../dist/extract/extractorPool.js';
import { REPO_ROOT } from './child.js';

function fastStartupMaxFiles(): number | null {
  try {
    const source = readFileSync(path.join(REPO_ROOT, 'dist', 'pipeline', 'runIndex.js'), 'utf8');
    const match = /FAST_STARTUP_MAX_FILES\s*=\s*([\d_]+)/.exec(source);
    return match?.[1] ? Number(match[1].replace(/_/g, '')) : null;
  } catch {
    return null;
  }
}

export interface PipelineRegime {
  workers: boolean;
  /** V8 baseline compiler only; null when the build has no such threshold. */
  liftoffOnly: boolean | null;
}

export function pipelineRegime(files: number): PipelineRegime {
  const fast = fastStartupMaxFiles();
  return { workers: files >= MIN_FILES_FOR_WORKERS, liftoffOnly: fast === null ? null : files < fast };
}

export function describeRegime(files: number): string {
  const r = pipelineRegime(files);
  return `${r.workers ? 'worker threads' : 'in-process extraction'}${r.liftoffOnly ? ', baseline wasm compiler only' : ''}`;
}

export const policyThresholds = () => ({ min_files_for_workers: MIN_FILES_FOR_WORKERS, fast_startup_max_files: fastStartupMaxFiles() });
