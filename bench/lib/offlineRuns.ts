/** Offline measurements through bench/offlineWorker.ts, each in a fresh process, bounded in time. */
import { runJsonChild } from './child.js';

export interface OfflineRun {
  mode: 'parse' | 'pipeline';
  files: number;
  bytes: number;
  ms: number;
  maxRssMb: number;
  skipped?: number;
  /** Extraction worker threads the pipeline used; 0 means in-process. */
  threads?: number;
  /** The index as compact JSON, in bytes (pipeline only). */
  indexBytes?: number;
}

/** Generous: 20 ms a file on top of start-up, ten times what this machine needs under load. */
export function offlineTimeoutMs(files: number): number {
  return 60_000 + files * 20;
}

export function runOffline(mode: OfflineRun['mode'], corpus: string, files: number): Promise<OfflineRun> {
  return runJsonChild<OfflineRun>('offlineWorker.ts', [mode, corpus], { timeoutMs: offlineTimeoutMs(files) });
}

export const filesPerSecond = (r: OfflineRun) => r.files / (r.ms / 1000);
export const mbPerSecond = (r: OfflineRun) => r.bytes / 1024 / 1024 / (r.ms / 1000);
