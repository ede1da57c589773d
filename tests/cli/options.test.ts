import { CommanderError, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { searchFlagsWithoutCommander } from '../../src/cli/options.js';
import { buildProgram } from '../../src/cli/program.js';

/** What commander hands the `search` command for these arguments, or the CommanderError it throws. */
async function commanderFlags(args: string[]): Promise<Record<string, unknown> | CommanderError> {
  const program = buildProgram().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  let flags: Record<string, unknown> | undefined;
  const search = program.commands.find((c) => c.name() === 'search') as Command;
  search.configureOutput({ writeOut: () => {}, writeErr: () => {} }).action((opts: Record<string, unknown>) => {
    flags = opts;
  });
  try {
    await program.parseAsync(['node', 'coderag', 'search', ...args]);
  } catch (error) {
    if (error instanceof CommanderError) return error;
    throw error;
  }
  return flags as Record<string, unknown>;
}

describe('reading a search command line without commander', () => {
  it.each([
    [['--target', 'cache.ts', '--keywords', 'ttl,eviction']],
    [['--query', 'parse yaml', '--json']],
    [['--query=retry with backoff', '-n', '3', '--scorer', 'deepcode']],
    [['-i', 'indexes', '-n5', '--type', 'function', '--snippets', '2', '-c', 'my.yaml']],
    [['-tsrc/cache.ts', '-kttl', '--verbose', '--json', '--json']],
    [['--keywords', 'a', '--keywords', 'b']],
    [[]],
  ])('gives the command what commander would: %j', async (args) => {
    expect(searchFlagsWithoutCommander(args)).toEqual(await commanderFlags(args));
  });

  it.each([
    [['--help']],
    [['-h']],
    [['--max-results', '0']],
    [['-n', 'many']],
    [['--scorer', 'tfidf']],
    [['--type', 'thing']],
    [['--unknown']],
    [['--query']],
    [['stray']],
    [['--json=yes']],
  ])('leaves %j to commander, which answers with help or a usage error', async (args) => {
    expect(searchFlagsWithoutCommander(args)).toBeNull();
    expect(await commanderFlags(args)).toBeInstanceOf(CommanderError);
  });
});

describe('the short option letters of every command', () => {
  it('mean one option each across the whole program', () => {
    const meaning = new Map<string, string>();
    const clashes: string[] = [];
    for (const command of buildProgram().commands) {
      for (const option of command.options) {
        if (!option.short) continue;
        const long = option.long ?? '';
        const known = meaning.get(option.short);
        if (known !== undefined && known !== long) clashes.push(`${option.short} is ${known} and ${long} (${command.name()})`);
        meaning.set(option.short, known ?? long);
      }
    }
    expect(clashes).toEqual([]);
    expect(meaning.size).toBeGreaterThan(4);
  });
});
