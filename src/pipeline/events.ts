/**
 * What the pipeline reports while it runs. The core only emits these; the CLI decides how to draw them (a
 * progress bar on a TTY, plain lines in CI, nothing at all for a library caller).
 */
import type { FileStatus } from '../index/types.js';

export type IndexEvent =
  | { type: 'info'; message: string }
  | { type: 'warning'; message: string }
  | { type: 'repo_start'; repo_name: string; files: number }
  | { type: 'file_done'; repo_name: string; file_path: string; status: FileStatus; cached: boolean; reason?: string }
  | { type: 'repo_done'; repo_name: string; output_path: string | null };

export type EventSink = (event: IndexEvent) => void;

export const ignoreEvents: EventSink = () => {};
