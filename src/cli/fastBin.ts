#!/usr/bin/env node
/**
 * The command npm links as `coderag`: this module bundled alone as CommonJS (dist/bin/coderag.cjs). A plain
 * `search`, what coding agents run most and wait on, runs from that one file: Node then never starts its ES
 * module loader or reads the bundle's chunks one import after another, about 12 ms of a cold search's 160
 * (bench/README.md). Any other command line is the ES module bundle's (bin.ts, `coderag.js` beside this file),
 * which reads the line again itself.
 */
import { errorMessage } from '../shared/errors.js';
import { searchCommand } from './commands/search.js';
import { cliState } from './state.js';
import { finish, main, plainSearch } from './main.js';

const searchFlags = plainSearch(process.argv);
if (searchFlags) {
  finish(
    main(process.argv, async () => {
      await searchCommand(searchFlags);
      return cliState.exitCode;
    }),
  );
} else {
  // A computed specifier: the bundler leaves it to Node, which loads the ES module bundle beside this file.
  const bundle = new URL('./coderag.js', import.meta.url).href;
  import(bundle).catch((error: unknown) => {
    process.stderr.write(`error: cannot load ${bundle}: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  });
}
