/**
 * The CLI's one top-level error handler: the only module that exits the process. The ES module bundle's entry
 * (bin.ts) and the plain search's CommonJS bundle (searchEntry.ts, which the command npm links loads) hand it the
 * command line and how to run it. A plain `search` runs without commander (options.ts); every other command line
 * goes through the commander program.
 */
import { CodeRagError, errorMessage } from '../shared/errors.js';
import { searchFlagsWithoutCommander } from './options.js';
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
    if (error instanceof CodeRagError) {
      process.stderr.write(`error: ${error.message}\n`);
      if (error.hint) process.stderr.write(`hint: ${error.hint}\n`);
      if (cliState.verbose && error.stack) process.stderr.write(`${error.stack}\n`);
      return error.exitCode;
    }
    process.stderr.write(`error: ${errorMessage(error)}\n`);
    if (cliState.verbose && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    else process.stderr.write('hint: run again with --verbose for details\n');
    return 1;
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
