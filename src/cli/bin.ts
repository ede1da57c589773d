#!/usr/bin/env node
/**
 * The ES module bundle's entry (dist/bin/coderag.js): the whole CLI. A plain `search` loads only the search
 * command; anything else loads the commander program and its commands.
 */
import { finish, main, plainSearch } from './main.js';

finish(
  main(process.argv, async (argv) => {
    const searchFlags = plainSearch(argv);
    if (searchFlags) {
      const { runSearch } = await import('./searchEntry.js');
      return runSearch(searchFlags);
    }
    const { runProgram } = await import('./program.js');
    return runProgram(argv);
  }),
);
