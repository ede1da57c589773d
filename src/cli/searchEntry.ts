/**
 * A plain `coderag search` as one CommonJS bundle (dist/bin/search.cjs), which the command npm links
 * (fastBin.ts) loads with V8's code cache: the command agents run most and wait on, run without commander and
 * without Node's ES module loader.
 */
import { searchCommand, type SearchFlags } from './commands/search.js';
import { cliState } from './state.js';
import { finish, main, plainSearch } from './main.js';

/** Runs a plain search to its exit code (both bundles' way of running one). */
export async function runSearch(flags: SearchFlags): Promise<number> {
  await searchCommand(flags);
  return cliState.exitCode;
}

/** Runs `argv` when it is a plain search and says so; any other command line is left to the caller. */
export function runPlainSearch(argv: string[]): boolean {
  const searchFlags = plainSearch(argv);
  if (!searchFlags) return false;
  finish(main(argv, () => runSearch(searchFlags)));
  return true;
}
