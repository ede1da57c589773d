/**
 * Option values, and the `search` command's options as data. The commander program (program.ts) builds its
 * `search` command from SEARCH_OPTIONS; `searchFlagsWithoutCommander` reads a plain `search` command line from
 * the same definitions with node's own parseArgs, so the command agents call most often starts without loading
 * commander (about a fifth of a cold search). Anything it does not read exactly as commander would (help, an
 * error, an unusual form) is left to commander.
 */
import { parseArgs } from 'node:util';
import { FILE_ROLES } from '../index/types.js';
import { CHARS_PER_TOKEN, MIN_MAX_TOKENS } from '../search/budget.js';
import { DEFAULT_SCORER, ELEMENT_TYPES, GRANULARITIES, SCORERS } from '../search/types.js';

/** A value an option does not accept; commander reports it as a usage error. */
export class InvalidValue extends Error {}

export type ValueParser = (value: string) => number;

export const positiveInt: ValueParser = (value) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidValue('expected a positive whole number');
  return n;
};

export const nonNegativeNumber: ValueParser = (value) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidValue('expected a number of 0 or more');
  return n;
};

export const nonNegativeInt: ValueParser = (value) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidValue('expected a whole number of 0 or more');
  return n;
};

const maxTokens: ValueParser = (value) => {
  const n = positiveInt(value);
  if (n < MIN_MAX_TOKENS) throw new InvalidValue(`expected a whole number of at least ${MIN_MAX_TOKENS}`);
  return n;
};

export interface OptionSpec {
  /** As commander writes them: `-n, --max-results <n>`, or `--json` for a switch. */
  flags: string;
  description: string;
  parse?: ValueParser;
  choices?: readonly string[];
  default?: string | number | boolean;
  /** Given more than once, each value is kept (a list). */
  multiple?: boolean;
}

/** The options that scope an answer, shared by `search`, `symbol` and `outline` (search/scope.ts). */
export const SCOPE_OPTIONS: readonly OptionSpec[] = [
  { flags: '--repo <name>', description: 'only this repository, as `coderag overview` names it (repeat for several)', multiple: true },
  { flags: '--path <glob>', description: 'only files whose repository-relative path matches, e.g. src/** or *.py (repeat for several)', multiple: true },
  { flags: '--role <role>', description: `only files of this role: ${FILE_ROLES.join(', ')} (repeat for several)`, multiple: true },
  { flags: '--exclude-tests', description: 'leave test files out', default: false },
];

export const SEARCH_OPTIONS: readonly OptionSpec[] = [
  { flags: '-t, --target <file>', description: 'the file you are about to write, e.g. src/cache.ts', default: '' },
  { flags: '-k, --keywords <list>', description: 'comma-separated keywords, e.g. ttl,eviction', default: '' },
  { flags: '--query <text>', description: 'free text: a word or a name (the files named for it or defining it come first), a few words, or a whole issue report or task (paths, stack frames, names in backticks and options in it are looked up as anchors)' },
  { flags: '--query-file <file>', description: 'read the query from a file, or from standard input with -' },
  { flags: '-i, --indexes <dir>', description: 'folder of RepoIndex files (default: paths.output_dir, "indexes")' },
  { flags: '-n, --max-results <n>', description: 'how many references to return', parse: positiveInt, default: 10 },
  { flags: '--type <kind>', description: 'narrow the answer to one kind of element', choices: ELEMENT_TYPES },
  { flags: '--granularity <unit>', description: 'symbol: first the functions, methods and classes most likely to need a change, then the files; file: the files alone', choices: GRANULARITIES, default: 'symbol' },
  { flags: '--max-tokens <n>', description: `cut the answer to about n tokens (n characters x ${CHARS_PER_TOKEN}) by leaving out its least relevant results; at least ${MIN_MAX_TOKENS}`, parse: maxTokens },
  { flags: '--scorer <name>', description: 'ranking method', choices: SCORERS, default: DEFAULT_SCORER },
  { flags: '-c, --config <file>', description: 'configuration file (for paths.output_dir)' },
  { flags: '--snippets <n>', description: 'show n lines around each matching symbol\'s first line, read from the repository if it is unchanged on disk', parse: positiveInt },
  { flags: '--json', description: 'print DeepCode\'s search_code_references JSON plus structured references', default: false },
  ...SCOPE_OPTIONS,
];

/** The program's own switch, accepted before or after a command. */
const VERBOSE = 'verbose';

interface ParsedFlags {
  short?: string;
  long: string;
  takesValue: boolean;
  /** The key commander stores the value under: the long name in camelCase. */
  key: string;
}

function parseFlags(flags: string): ParsedFlags {
  const match = /^(?:-(\w), )?--([\w-]+)(?: <\w+>)?$/.exec(flags);
  if (!match) throw new Error(`unsupported option flags: ${flags}`);
  const long = match[2] as string;
  return {
    ...(match[1] ? { short: match[1] } : {}),
    long,
    takesValue: flags.endsWith('>'),
    key: long.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()),
  };
}

/**
 * The flags of `coderag search <args>` as commander would give them to the command, or null when commander
 * should read the line itself: help, an unknown option, a bad value, a positional argument.
 */
export function searchFlagsWithoutCommander(args: readonly string[]): Record<string, unknown> | null {
  const specs = SEARCH_OPTIONS.map((spec) => ({ spec, flags: parseFlags(spec.flags) }));
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = { [VERBOSE]: { type: 'boolean' } };
  for (const { spec, flags } of specs) {
    options[flags.long] = { type: flags.takesValue ? 'string' : 'boolean', ...(flags.short ? { short: flags.short } : {}), ...(spec.multiple ? { multiple: true } : {}) };
  }
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({ args: [...args], options, strict: true, allowPositionals: false }) as { values: Record<string, string | boolean | string[] | undefined> });
  } catch {
    return null;
  }
  const result: Record<string, unknown> = {};
  for (const { spec, flags } of specs) {
    const value = values[flags.long];
    if (value === undefined) {
      if (spec.default !== undefined) result[flags.key] = spec.default;
      continue;
    }
    if (typeof value === 'string' && spec.choices && !spec.choices.includes(value)) return null;
    if (typeof value === 'string' && spec.parse) {
      try {
        result[flags.key] = spec.parse(value);
      } catch {
        return null;
      }
    } else result[flags.key] = value;
  }
  return result;
}

/** Whether the command line asks for NDJSON progress (`--progress json` or `--progress=json`). */
export function progressJson(argv: readonly string[]): boolean {
  return argv.some((arg, i) => arg === '--progress=json' || (arg === '--progress' && argv[i + 1] === 'json'));
}

/** A failure as the NDJSON event `--progress json` ends with: one line. */
export function errorEvent(message: string, hint: string | undefined, exitCode: number, stack?: string): string {
  return `${JSON.stringify({ type: 'error', message, ...(hint ? { hint } : {}), exit_code: exitCode, ...(stack ? { stack } : {}) })}\n`;
}
