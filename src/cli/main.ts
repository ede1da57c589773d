#!/usr/bin/env node
/**
 * The CLI: commander wiring and the one top-level error handler. The only module that exits the process.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CodeRagError, errorMessage } from '../shared/errors.js';
import { VERSION } from '../shared/version.js';
import { cliState } from './state.js';
import { DEFAULT_SCORER, ELEMENT_TYPES, SCORERS } from '../search/search.js';

// Each command's module is loaded when it runs: `search` should not pay for the model SDKs and tree-sitter.

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

function buildProgram(): Command {
  const program = new Command('coderag')
    .description('Index code repositories into compact, queryable profiles, and search them with no model call.')
    .version(VERSION)
    .option('--verbose', 'print stack traces with errors', false)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });

  program
    .command('index')
    .description('Profile repositories and write one RepoIndex JSON per repository (offline by default).')
    .argument('[repo...]', 'repository folders (default: every folder under paths.code_base_path)')
    .option('-o, --out <dir>', 'output folder for indexes (paths.output_dir)', undefined)
    .option('-c, --config <file>', 'configuration file (default: ./indexer_config.yaml if present)')
    .option('--concurrency <n>', 'files profiled at once (performance.max_concurrent_files)', positiveInt)
    .option('--max-file-size <bytes>', 'skip files larger than this (file_analysis.max_file_size)', positiveInt)
    .option('--no-gitignore', 'do not honour .gitignore files')
    .addOption(new Option('--provider <name>', 'profiler (llm.model_provider); auto picks Anthropic, then OpenAI, then static').choices(['auto', 'openai', 'anthropic', 'static']))
    .option('--model <name>', 'model name (llm.model)')
    .option('--target-structure <file>', 'a tree or plan of the project to be written: relate files to it (relationships.target_structure_file)')
    .option('--focus <text>', 'steer every model profile toward one concern, e.g. "error handling"')
    .option('--prefilter', 'let the model pick the files worth profiling for the target structure (file_analysis.enable_pre_filtering)')
    .option('--no-cache', 'ignore and do not write the persistent profile cache (performance.enable_content_caching)')
    .option('--full', 'index every file again instead of reusing the unchanged entries of the previous index', false)
    .option('--json', 'print a JSON run summary on stdout', false)
    .option('-q, --quiet', 'no progress output', false)
    .addHelpText('after', '\nDefaults come from indexer_config.yaml < CODERAG_* environment variables < these flags.\nModel keys come from the environment only: ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENAI_BASE_URL.\nExamples:\n  coderag index ./my-repo --out indexes\n  OPENAI_BASE_URL=http://localhost:11434/v1 coderag index ./my-repo --model qwen2.5-coder --target-structure plan.txt\n')
    .action(async (repos: string[], opts) => {
      const { indexCommand } = await import('./commands/index.js');
      await indexCommand(repos, opts);
    });

  program
    .command('search')
    .description('Rank indexed files for a target file and keywords, and list the target\'s relationships.')
    .option('-t, --target <file>', 'the file you are about to write, e.g. src/cache.ts', '')
    .option('-k, --keywords <list>', 'comma-separated keywords, e.g. ttl,eviction', '')
    .option('-q, --query <text>', 'free text, tokenised into keywords')
    .option('-i, --indexes <dir>', 'folder of RepoIndex files (default: paths.output_dir, "indexes")')
    .option('-n, --max-results <n>', 'how many references to return', positiveInt, 10)
    .addOption(new Option('--type <kind>', 'narrow the answer to one kind of element').choices([...ELEMENT_TYPES]))
    .addOption(new Option('--scorer <name>', 'ranking method').choices([...SCORERS]).default(DEFAULT_SCORER))
    .option('-c, --config <file>', 'configuration file (for paths.output_dir)')
    .option('--json', 'print DeepCode\'s search_code_references JSON plus structured references', false)
    .addHelpText('after', '\nExample:\n  coderag search --target cache.ts --keywords ttl,eviction\n')
    .action(async (opts) => {
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

  program
    .command('mcp')
    .description('Serve the indexes to MCP clients on stdio: search_code_references, get_indexes_overview and search.')
    .option('-i, --indexes <dir>', 'default folder of RepoIndex files (default: paths.output_dir, "indexes")')
    .option('-c, --config <file>', 'configuration file (for paths.output_dir)')
    .addHelpText('after', '\nstdout carries the protocol; logs go to stderr.\nExample (an MCP client\'s command):\n  npx coderag mcp --indexes /abs/path/indexes\n')
    .action(async (opts) => {
      // Loaded on demand: the MCP SDK is not needed by the other commands.
      const { mcpCommand } = await import('./commands/mcp.js');
      await mcpCommand(opts);
    });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  cliState.verbose = argv.includes('--verbose');
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every parse failure is a usage error.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof CodeRagError) {
      process.stderr.write(`error: ${error.message}\n`);
      if (error.hint) process.stderr.write(`hint: ${error.hint}\n`);
      if (cliState.verbose && error.stack) process.stderr.write(`${error.stack}\n`);
      return error.exitCode;
    }
    process.stderr.write(`error: ${errorMessage(error)}\n`);
    if (cliState.verbose && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    else process.stderr.write('hint: run again with --verbose for details\n');
    return 1;
  }
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
