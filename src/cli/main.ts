#!/usr/bin/env node
/**
 * The CLI's entry and its one top-level error handler: the only module that exits the process. A plain
 * `search` runs without commander (options.ts); every other command line goes through the commander program.
 */
import { CodeRagError, errorMessage } from '../shared/errors.js';
import { searchFlagsWithoutCommander } from './options.js';
import { cliState } from './state.js';
import type { SearchFlags } from './commands/search.js';

async function run(argv: string[]): Promise<number> {
  const searchFlags = argv[2] === 'search' ? searchFlagsWithoutCommander(argv.slice(3)) : null;
  if (searchFlags) {
    const { searchCommand } = await import('./commands/search.js');
    // The same object commander would hand the command (options.ts reads the same definitions).
    await searchCommand(searchFlags as unknown as SearchFlags);
    return cliState.exitCode;
  }
  const { runProgram } = await import('./program.js');
  return runProgram(argv);
}

export async function main(argv: string[]): Promise<number> {
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

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
