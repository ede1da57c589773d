/**
 * What the CLI's one error handler needs to know from the command that ran: whether to print stacks, and the
 * exit code of a command that succeeded with reservations (3: an index was written but some files failed).
 * `quit` ends the process at once (a second Ctrl+C); main.ts, the only module that exits, sets it.
 */
export const cliState: { verbose: boolean; exitCode: number; closed: boolean; quit: (code: number) => never } = {
  verbose: false,
  exitCode: 0,
  /** A run's closing NDJSON summary went out: it gives the outcome, so a failure after it needs no event of its own. */
  closed: false,
  quit: (code) => {
    throw new Error(`quit(${code}) before main.ts set how to exit`);
  },
};
