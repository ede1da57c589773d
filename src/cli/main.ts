/**
 * The CLI's one top-level error handler: the only module that exits the process. The ES module bundle's entry
 * (bin.ts) and the plain search's CommonJS bundle (searchEntry.ts, which the command npm links loads) hand it the
 * command line and how to run it. A plain `search` runs without commander (options.ts); every other command line
 * goes through the commander program.
 */
import { CodeRagError, errorMessage } from '../shared/errors.js';
import { errorEvent, progressJson, searchFlagsWithoutCommander } from './options.js';
import { cliState } from './state.js';
import type { SearchFlags } from './commands/search.js';

/** Runs a command line to its exit code. */
export type CommandRunner = (argv: string[]) => Promise<number>;

export async function main(argv: string[], run: CommandRunner): Promise<number> {
  cliState.verbose = argv.includes('--verbose');
  cliState.quit = (code) => process.exit(code);
  // A reader that stops early (`coderag search … | head`) closes the pipe: that ends the command, quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  try {
    return await run(argv);
  } catch (error) {
    const known = error instanceof CodeRagError;
    const exitCode = known ? error.exitCode : 1;
    const hint = known ? error.hint : cliState.verbose ? undefined : 'run again with --verbose for details';
    const stack = cliState.verbose && error instanceof Error ? error.stack : undefined;
    if (progressJson(argv)) {
      // A script reading the run's NDJSON events reads its failure as one more event, unless the run's closing
      // summary already gave its outcome (a budget stop).
      if (!cliState.closed) process.stderr.write(errorEvent(errorMessage(error), hint, exitCode, stack));
      return exitCode;
    }
    process.stderr.write(`error: ${errorMessage(error)}\n`);
    if (hint) process.stderr.write(`hint: ${hint}\n`);
    if (stack) process.stderr.write(`${stack}\n`);
    return exitCode;
  }
}

/** Sets the process's exit code when the command is done, and lets Node exit once nothing is pending. */
export function finish(code: Promise<number>): void {
  code.then(
    (c) => {
      process.exitCode = c;
    },
    (error: unknown) => {
      process.stderr.write(`error: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}

/** The flags of a plain `coderag search …` line (one commander would read the same way), or null for any other. */
export function plainSearch(argv: readonly string[]): SearchFlags | null {
  return argv[2] === 'search' ? (searchFlagsWithoutCommander(argv.slice(3)) as SearchFlags | null) : null;
}
