/**
 * The commander program: every command, its options and help. Each command's module is loaded when it runs, so
 * a command pays only for what it uses (`search` not for the model SDKs and tree-sitter).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { VERSION } from '../shared/version.js';
import { cliState } from './state.js';
import { SYMBOL_KINDS } from '../search/symbols.js';
import { errorEvent, InvalidValue, progressJson, SCOPE_OPTIONS, SEARCH_OPTIONS, nonNegativeInt, nonNegativeNumber, positiveInt, type OptionSpec, type ValueParser } from './options.js';
import { MCP_TOOLS } from '../mcp/toolNames.js';
import { DEFAULT_RATE } from '../serve/limits.js';

/** A value parser as commander wants it: a bad value is its InvalidArgumentError, reported as a usage error. */
function checked(parse: ValueParser): (value: string) => number {
  return (value) => {
    try {
      return parse(value);
    } catch (error) {
      if (error instanceof InvalidValue) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };
}

function commanderOption(spec: OptionSpec): Option {
  const option = new Option(spec.flags, spec.description);
  if (spec.parse) option.argParser(checked(spec.parse));
  if (spec.choices) option.choices(spec.choices);
  if (spec.default !== undefined) option.default(spec.default);
  if (spec.multiple) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
  return option;
}

/** Shown after a usage error. */
const USAGE_HINT = '(run with --help for usage)';

/** `ndjsonErrors`: a usage error goes out as the NDJSON error event of `--progress json`, its hint inside. */
export function buildProgram({ ndjsonErrors = false }: { ndjsonErrors?: boolean } = {}): Command {
  const program = new Command('coderag')
    .description('Index code repositories into compact, queryable profiles, and search them with no model call.')
    .version(VERSION)
    .option('--verbose', 'print stack traces with errors', false)
    .showHelpAfterError(ndjsonErrors ? false : USAGE_HINT)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
      ...(ndjsonErrors ? { outputError: (s: string) => process.stderr.write(errorEvent(s.trim().replace(/^error: /, '').replace(/\s*\n\s*/g, ' '), USAGE_HINT, 2)) } : {}),
    });

  program
    .command('index')
    .description('Profile repositories and write one RepoIndex JSON per repository (offline by default).')
    .argument('[repo...]', 'repository folders (default: every folder under paths.code_base_path)')
    .option('-o, --out <dir>', 'output folder for indexes (paths.output_dir)', undefined)
    .option('-c, --config <file>', 'configuration file (default: ./indexer_config.yaml if present)')
    .option('--concurrency <n>', 'model requests in flight, fixed (default: start at performance.max_concurrent_files and grow while the provider\'s rate-limit headers show headroom, up to llm.adaptive_concurrency_max)', checked(positiveInt))
    .option('--max-file-size <bytes>', 'skip files larger than this (file_analysis.max_file_size)', checked(positiveInt))
    .option('--no-gitignore', 'do not honour .gitignore files')
    .option('--no-history', 'do not read commit subjects from git history into the index (history.enabled)')
    .addOption(new Option('--provider <name>', 'profiler (llm.model_provider); auto picks Anthropic, then OpenAI, then static').choices(['auto', 'openai', 'anthropic', 'static']))
    .option('--model <name>', 'model name (llm.model)')
    .option('--target-structure <file>', 'a tree or plan of the project to be written: relate files to it (relationships.target_structure_file)')
    .option('--focus <text>', 'steer every model profile toward one concern, e.g. "error handling"')
    .option('--prefilter', 'let the model pick the files worth profiling for the target structure (file_analysis.enable_pre_filtering)')
    .option('--no-cache', 'ignore and do not write the persistent profile cache (performance.enable_content_caching)')
    .option('--dry-run', 'list what a model run would send (cache misses only) with its prompt tokens and price; send nothing')
    .option('--max-cost <usd>', 'stop before the run would spend more than this many US dollars; exit code 4 (budget.max_cost)', checked(nonNegativeNumber))
    .option('--max-calls <n>', 'stop before the run would make more model requests than this; exit code 4 (budget.max_calls)', checked(nonNegativeInt))
    .option('--batch', 'submit every cache miss through the provider\'s batch API (half price, answers within 24 hours)')
    .option('--wait', 'with --batch or --collect: wait for the batch to end, then write the indexes')
    .option('--collect <manifest>', 'merge the answers of a submitted batch and write the indexes')
    .option('--full', 'index every file again instead of reusing the unchanged entries of the previous index', false)
    .option('--json', 'print a JSON run summary on stdout', false)
    .option('-q, --quiet', 'no progress output', false)
    .option('--shard <i/n>', 'profile only shard i of n (stable by path) and write a partial index for `coderag merge`')
    .option('--name <name>', 'the repository\'s name, which names its index (default: from its git remote, e.g. flask for github.com/pallets/flask; else its folder\'s name)')
    .addOption(new Option('--progress <format>', 'progress on stderr: a bar or plain lines (auto), plain lines, or NDJSON events (json)').choices(['auto', 'plain', 'json']).default('auto'))
    .addHelpText('after', '\nFiles: every file of a supported extension, minus those .gitignore files ignore (nested ones and .git/info/exclude too; --no-gitignore keeps them), those .coderagignore files exclude (gitignore syntax, at the root or in any folder: keep files out of the index without touching .gitignore) and CodeRAG\'s own output (indexes, answer cache, search packs).\nExit codes: 0 done, 3 indexes written but some files failed or could not be read (reasons in the index), 4 stopped by --max-cost or --max-calls (index written), 75 batch not finished yet, 1 failure, 2 usage, 130 interrupted.\nDefaults come from indexer_config.yaml < CODERAG_* environment variables < these flags.\nModel keys come from the environment only: ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENAI_BASE_URL.\nExamples:\n  coderag index ./my-repo --out indexes\n  OPENAI_BASE_URL=http://localhost:11434/v1 coderag index ./my-repo --model qwen2.5-coder --target-structure plan.txt\n  coderag index ./my-repo --dry-run\n  coderag index ./my-repo --batch            (then: coderag index --collect indexes/<batch id>.manifest)\n')
    .action(async (repos: string[], opts) => {
      const { indexCommand } = await import('./commands/index.js');
      cliState.exitCode = await indexCommand(repos, opts);
    });

  program
    .command('merge')
    .description('Combine the partial indexes of `coderag index --shard i/n` into the indexes a single run writes.')
    .argument('<shards...>', 'shard files (*.shard-i-of-n.json), or folders holding them')
    .option('-o, --out <dir>', 'output folder for the merged indexes (paths.output_dir)', undefined)
    .option('-c, --config <file>', 'configuration file (for paths.output_dir and the output section)')
    .option('--json', 'print a JSON run summary on stdout', false)
    .option('-q, --quiet', 'no closing lines', false)
    .addHelpText('after', '\nShards of different commits, file lists or settings are refused, naming the difference.\nExample:\n  coderag merge shards/ --out indexes\n')
    .action(async (shards: string[], opts) => {
      const { mergeCommand } = await import('./commands/merge.js');
      cliState.exitCode = await mergeCommand(shards, opts);
    });

  program
    .command('plan')
    .description('Plan the project to be written with a model, one question at a time, and write its target structure.')
    .option('--query <text>', 'what to build (required unless --resume)')
    .option('--inputs <dir>', 'a folder of .md and .txt documents to plan from')
    .option('-i, --indexes <dir>', 'a folder of indexes whose code the plan may draw on')
    .requiredOption('-o, --out <file>', 'where to write the approved target structure, e.g. target_structure.md')
    .option('--resume', 'continue the conversation saved beside --out', false)
    .option('--answers <file>', 'answers, one per line, instead of a terminal (CI, scripts)')
    .option('--max-turns <n>', 'model turns before the last proposal is written (plan.max_turns)', checked(positiveInt))
    .option('-c, --config <file>', 'configuration file (default: ./indexer_config.yaml if present)')
    .addOption(new Option('--provider <name>', 'model provider (llm.model_provider)').choices(['auto', 'openai', 'anthropic']))
    .option('--model <name>', 'model name (llm.model)')
    .addHelpText('after', '\nApprove a proposal with approve, done, SOLUTION APPROVED or Ctrl+D. The conversation is saved beside --out\n(<out>.plan.json) after every turn; --resume continues it after Ctrl+C, a crash or kill.\nExample:\n  coderag plan --query "a TTL cache service" --inputs docs/ --indexes indexes --out target_structure.md\n  coderag index ./repo --target-structure target_structure.md\n')
    .action(async (opts) => {
      const { planCommand } = await import('./commands/plan.js');
      await planCommand(opts);
    });

  const search = program
    .command('search')
    .description('Rank indexed files for a target file and keywords, or for a query: a few words, or a whole issue report or task.')
    .addHelpText(
      'after',
      '\nExamples:\n  coderag search --target cache.ts --keywords ttl,eviction\n  coderag search --query-file issue.md --granularity symbol\n  coderag search --query-file - < traceback.txt\n',
    );
  for (const spec of SEARCH_OPTIONS) search.addOption(commanderOption(spec));
  search.action(async (opts) => {
    const { searchCommand } = await import('./commands/search.js');
    await searchCommand(opts);
  });

  program
    .command('overview')
    .description('What is indexed: repositories, file counts, languages, main concepts, relationships.')
    .option('-i, --indexes <dir>', 'folder of RepoIndex files (default: paths.output_dir, "indexes")')
    .option('-c, --config <file>', 'configuration file (for paths.output_dir)')
    .option('--json', 'print DeepCode\'s get_indexes_overview JSON', false)
    .action(async (opts) => {
      const { overviewCommand } = await import('./commands/overview.js');
      await overviewCommand(opts);
    });

  const outlineCommand = program
    .command('outline')
    .description('The symbols of one indexed file, with their kinds, lines, nesting and docs.')
    .argument('<repo>', 'repository name (as `coderag overview` lists it) or index name')
    .argument('<path>', 'file path relative to the repository root, e.g. src/cache.ts, or an absolute path inside it')
    .option('-i, --indexes <dir>', 'folder of RepoIndex files (default: paths.output_dir, "indexes")')
    .option('-c, --config <file>', 'configuration file (for paths.output_dir)')
    .option('--json', 'print the outline as JSON', false)
    .addHelpText('after', '\nWith --repo, --path, --role or --exclude-tests, a file outside that scope is refused.\n')
    .action(async (repo: string, filePath: string, opts) => {
      const { outlineCommand } = await import('./commands/symbols.js');
      await outlineCommand(repo, filePath, opts);
    });

  for (const spec of SCOPE_OPTIONS) outlineCommand.addOption(commanderOption(spec));

  const symbolCommand = program
    .command('symbol')
    .description('Where a function, class or other symbol is defined, across the indexes (exact names first).')
    .argument('<name>', 'a name, e.g. LruCache, or a qualified one, e.g. LruCache.get')
    .addOption(new Option('--kind <kind>', 'only symbols of this kind').choices([...SYMBOL_KINDS]))
    .option('-n, --max-results <n>', 'how many definitions to list', checked(positiveInt), 20)
    .option('-i, --indexes <dir>', 'folder of RepoIndex files (default: paths.output_dir, "indexes")')
    .option('-c, --config <file>', 'configuration file (for paths.output_dir)')
    .option('--json', 'print the matches as JSON', false)
    .action(async (name: string, opts) => {
      const { symbolCommand } = await import('./commands/symbols.js');
      await symbolCommand(name, opts);
    });
  for (const spec of SCOPE_OPTIONS) symbolCommand.addOption(commanderOption(spec));

  program
    .command('mcp')
    .description(`Serve the indexes to MCP clients on stdio, with the tools ${MCP_TOOLS.join(', ')}.`)
    .option('-i, --indexes <dir>', 'default folder of RepoIndex files (default: paths.output_dir, "indexes")')
    .option('-c, --config <file>', 'configuration file (for paths.output_dir)')
    .addHelpText('after', '\nstdout carries the protocol; logs go to stderr.\nExample (an MCP client\'s command, with absolute paths: clients start servers from a folder of their choosing):\n  coderag mcp --indexes /abs/path/indexes\n  node /abs/path/coderag/dist/bin/coderag.cjs mcp --indexes /abs/path/indexes\n')
    .action(async (opts) => {
      // Loaded on demand: the MCP SDK is not needed by the other commands.
      const { mcpCommand } = await import('./commands/mcp.js');
      await mcpCommand(opts);
    });

  program
    .command('serve')
    .description('Serve the indexes over HTTP to a team: MCP (Streamable HTTP) at /mcp, a JSON API, a search page at /.')
    .option('-i, --indexes <dir>', 'folder of RepoIndex files, followed as it changes (default: paths.output_dir, "indexes")')
    .option('-c, --config <file>', 'configuration file (for paths.output_dir)')
    .option('--host <address>', 'address to listen on; beyond loopback only with --tokens', '127.0.0.1')
    .option('--port <n>', 'port to listen on; 0 picks a free one', checked(nonNegativeInt), 7780)
    .option('--tokens <file>', 'who may read what: one line per token, <sha256 hex of the token> <* or repositories separated by commas>')
    .option('--rate <n>', 'requests per second a token may make, sustained', checked(positiveInt), DEFAULT_RATE.ratePerSecond)
    .option('--burst <n>', 'requests a token may make at once after a quiet spell (default: twice --rate)', checked(positiveInt))
    .option('--concurrency <n>', 'requests of one token in flight at once', checked(positiveInt), DEFAULT_RATE.maxConcurrent)
    .addHelpText(
      'after',
      '\nThe first line of stdout is "listening on <url>"; logs go to stderr. SIGHUP re-reads the tokens file and the indexes folder\n(both are also followed as they change); SIGTERM lets requests in flight finish. Clients send Authorization: Bearer <token>.\nExamples:\n  coderag serve --indexes indexes --port 0\n  coderag serve --indexes /srv/coderag/indexes --host 0.0.0.0 --port 7780 --tokens /etc/coderag/tokens\n  printf %s "$TOKEN" | sha256sum    (the hash to put in the tokens file)\n',
    )
    .action(async (opts) => {
      // Loaded on demand: the HTTP server and the MCP SDK are not needed by the other commands.
      const { serveCommand } = await import('./commands/serve.js');
      await serveCommand(opts);
    });

  return program;
}

/** Runs the command line through commander; answers the exit code (help and version 0, usage errors 2). */
export async function runProgram(argv: string[]): Promise<number> {
  try {
    await buildProgram({ ndjsonErrors: progressJson(argv) }).parseAsync(argv);
    return cliState.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
}
