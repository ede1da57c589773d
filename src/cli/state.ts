/** What the CLI's one error handler needs to know from the command that ran: whether to print stacks. */
export const cliState = { verbose: false };
