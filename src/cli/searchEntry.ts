/**
 * A plain `coderag search` as one CommonJS bundle (dist/bin/search.cjs), which the command npm links
 * (fastBin.ts) loads with V8's code cache: the command agents run most and wait on, run without commander and
 * without Node's ES module loader.
 */
import { searchCommand } from './commands/search.js';
import { cliState } from './state.js';
import { finish, main, plainSearch } from './main.js';

/** Runs `argv` when it is a plain search and says so; any other command line is left to the caller. */
export function runPlainSearch(argv: string[]): boolean {
  const searchFlags = plainSearch(argv);
  if (!searchFlags) return false;
  finish(
    main(argv, async () => {
      await searchCommand(searchFlags);
      return cliState.exitCode;
    }),
  );
  return true;
}
