/**
 * Draws pipeline events: a cli-progress bar on a TTY, plain lines every few seconds elsewhere (CI logs), all
 * on stderr so stdout carries results only.
 */
import cliProgress from 'cli-progress';
import type { EventSink, IndexEvent } from '../pipeline/events.js';

export interface ProgressOptions {
  stream: NodeJS.WriteStream;
  quiet: boolean;
  /** Seconds between plain progress lines when not on a TTY. */
  interval?: number;
}

export interface Progress {
  sink: EventSink;
  warnings: string[];
  stop(): void;
}

export function createProgress(options: ProgressOptions): Progress {
  const warnings: string[] = [];
  const { stream } = options;
  const tty = Boolean(stream.isTTY) && !process.env.CI;
  let bar: cliProgress.SingleBar | null = null;
  let done = 0;
  let total = 0;
  let repo = '';
  let lastLine = 0;
  const interval = (options.interval ?? 5) * 1000;

  const sink = (event: IndexEvent): void => {
    switch (event.type) {
      case 'warning':
        warnings.push(event.message);
        return;
      case 'info':
        if (!options.quiet) stream.write(`${event.message}\n`);
        return;
      case 'repo_start':
        repo = event.repo;
        done = 0;
        total = event.files;
        lastLine = Date.now();
        if (options.quiet) return;
        if (tty) {
          bar = new cliProgress.SingleBar(
            { stream, format: `${repo} [{bar}] {percentage}% | {value}/{total} files | {eta_formatted} left`, hideCursor: true, clearOnComplete: true },
            cliProgress.Presets.shades_classic,
          );
          bar.start(total, 0);
        } else {
          stream.write(`indexing ${repo}: ${total} files\n`);
        }
        return;
      case 'file_done':
        done++;
        if (bar) bar.update(done);
        else if (!options.quiet && !tty && Date.now() - lastLine >= interval) {
          lastLine = Date.now();
          stream.write(`  ${repo}: ${done}/${total} files\n`);
        }
        return;
      case 'repo_done':
        bar?.stop();
        bar = null;
        return;
    }
  };
  return {
    sink,
    warnings,
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}
