/**
 * What the CLI's one error handler needs to know from the command that ran: whether to print stacks, and the
 * exit code of a command that succeeded with reservations (3: an index was written but some files failed).
 */
export const cliState = { verbose: false, exitCode: 0 };
