/**
 * Draws pipeline events: a cli-progress bar on a TTY, plain lines every few seconds elsewhere (CI logs), or
 * with `--progress json` one JSON object per line (NDJSON) for scripts; all on stderr so stdout carries
 * results only.
 */
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type cliProgress from 'cli-progress';
import type { EventSink, IndexEvent } from '../pipeline/events.js';

export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR';
/** `auto`: a bar on a TTY, plain lines elsewhere; `plain`: plain lines always; `json`: NDJSON events. */
export type ProgressFormat = 'auto' | 'plain' | 'json';
export const PROGRESS_FORMATS: readonly ProgressFormat[] = ['auto', 'plain', 'json'];
const RANK: Record<LogLevel, number> = { DEBUG: 0, INFO: 1, WARNING: 2, ERROR: 3 };

export interface ProgressOptions {
  stream: NodeJS.WriteStream;
  quiet: boolean;
  /** `logging.level`: DEBUG adds a line per file, WARNING drops info lines, ERROR drops warnings too. */
  level?: LogLevel;
  /** `logging.log_file` when `logging.log_to_file` is on: every message, with time and level, appended. */
  logFile?: string | null;
  /** Seconds between plain progress lines when not on a TTY. */
  interval?: number;
  format?: ProgressFormat;
}

export interface Progress {
  sink: EventSink;
  /** Warnings to print at the end; in JSON mode they were written as events already, so this stays empty. */
  warnings: string[];
  /** Whether events go out as NDJSON (then the closing lines go out as a `summary` event too). */
  json: boolean;
  /** Writes one NDJSON record (JSON mode only). */
  record(value: Record<string, unknown>): void;
  stop(): void;
}

/** The bar's library, loaded when a bar is drawn: a CI job or a piped run never draws one and skips its load. */
function loadCliProgress(): typeof cliProgress {
  return createRequire(import.meta.url)('cli-progress') as typeof cliProgress;
}

export function createProgress(options: ProgressOptions): Progress {
  const warnings: string[] = [];
  const { stream } = options;
  const format = options.format ?? 'auto';
  const json = format === 'json';
  const tty = format === 'auto' && Boolean(stream.isTTY) && !process.env.CI;
  let bar: cliProgress.SingleBar | null = null;
  let done = 0;
  let total = 0;
  let repo = '';
  let lastLine = 0;
  const interval = (options.interval ?? 5) * 1000;
  const level = RANK[options.level ?? 'INFO'];
  const log = (name: LogLevel, message: string): void => {
    if (options.logFile) appendFileSync(options.logFile, `${new Date().toISOString()} ${name} ${message}\n`);
  };

  const record = (value: Record<string, unknown>): void => {
    if (json) stream.write(`${JSON.stringify(value)}\n`);
  };

  const sink = (event: IndexEvent): void => {
    if (json) {
      if (event.type === 'warning') log('WARNING', event.message);
      else if (event.type === 'info') log('INFO', event.message);
      record(event);
      return;
    }
    switch (event.type) {
      case 'warning':
        log('WARNING', event.message);
        if (level <= RANK.WARNING) warnings.push(event.message);
        return;
      case 'info':
        log('INFO', event.message);
        if (!options.quiet && level <= RANK.INFO) stream.write(`${event.message}\n`);
        return;
      case 'repo_start':
        repo = event.repo_name;
        done = 0;
        total = event.files;
        lastLine = Date.now();
        if (options.quiet) return;
        if (tty) {
          const { SingleBar, Presets } = loadCliProgress();
          bar = new SingleBar(
            { stream, format: `${repo} [{bar}] {percentage}% | {value}/{total} files | {eta_formatted} left`, hideCursor: true, clearOnComplete: true },
            Presets.shades_classic,
          );
          bar.start(total, 0);
        } else {
          stream.write(`indexing ${repo}: ${total} files\n`);
        }
        return;
      case 'file_done':
        done++;
        if (level <= RANK.DEBUG) {
          const line = `${event.repo_name}: ${event.file_path} ${event.status}${event.cached ? ' (cached)' : ''}`;
          log('DEBUG', line);
          if (!bar && !options.quiet) stream.write(`${line}\n`);
        }
        if (bar) bar.update(done);
        else if (!options.quiet && !tty && Date.now() - lastLine >= interval) {
          lastLine = Date.now();
          stream.write(`  ${repo}: ${done}/${total} files\n`);
        }
        return;
      case 'repo_done':
        bar?.stop();
        bar = null;
        log('INFO', `${event.repo_name}: index written to ${event.output_path ?? '(not written)'}`);
        return;
    }
  };
  return {
    sink,
    warnings,
    json,
    record,
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}
