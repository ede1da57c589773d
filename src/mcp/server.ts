/**
 * The MCP server: DeepCode's two tools (same names, argument names and JSON answers, so agents written for
 * DeepCode work unchanged), a free-text `search` and the symbol look-ups (toolNames.ts lists them all).
 * Answers come from loaded indexes, never from a model.
 * Transport-free: the CLI connects it to stdio, tests to whatever they like.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { CHARS_PER_TOKEN, DEFAULT_MAX_TOKENS, MIN_MAX_TOKENS } from '../search/budget.js';
import { DEFAULT_MAX_RESULTS } from '../search/search.js';
import { GRANULARITIES } from '../search/types.js';
import { errorMessage } from '../shared/errors.js';
import { VERSION } from '../shared/version.js';
import { freshnessWithin } from '../search/freshness.js';
import { IndexCache, type IndexSource } from './indexCache.js';
import { DEFAULT_SYMBOL_RESULTS, SYMBOL_KINDS } from '../search/symbols.js';
import { FILE_ROLES } from '../index/types.js';
import { findSymbolTool, getFileOutline, getIndexesOverview, searchCodeReferences, searchText, type ToolAnswer, type ToolContext } from './tools.js';

export interface McpServerOptions {
  /** The folder used when a call gives no `indexes_path`; relative paths resolve against the working directory. */
  defaultIndexesDir: string;
  /** Where log lines go (the CLI sends them to stderr; stdout carries the protocol). */
  log?: (line: string) => void;
  /** Loaded indexes; an `IndexCache` is created when not given. */
  cache?: IndexSource;
  /** Whether each index still matches its repository on disk; by default checked at most every two seconds. */
  freshness?: ToolContext['freshness'];
}

const indexesPath = z
  .string()
  .optional()
  .describe('Path to the indexes directory containing JSON index files (default: the folder the server was started with)');
const maxResults = z.number().int().min(1).optional().describe(`Maximum number of results to return (default: ${DEFAULT_MAX_RESULTS})`);
const maxTokens = z
  .number()
  .int()
  .min(MIN_MAX_TOKENS)
  .optional()
  .describe(`The answer's budget in tokens (estimated as characters / ${CHARS_PER_TOKEN}); the least relevant results are left out to fit, and \`truncated\` says how many (default: ${DEFAULT_MAX_TOKENS})`);

const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

// Output schemas name DeepCode's keys and let ours pass beside them.
const searchCodeReferencesOutput = z.looseObject({
  status: z.literal('success'),
  target_file: z.string(),
  indexes_directory: z.string(),
  keywords_used: z.array(z.string()),
  total_references_found: z.number(),
  total_relationships_found: z.number(),
  formatted_content: z.string(),
  indexes_loaded: z.array(z.string()),
  total_indexes_loaded: z.number(),
});
const overviewOutput = z.looseObject({
  status: z.literal('success'),
  overview: z.looseObject({ total_repos: z.number(), repositories: z.record(z.string(), z.unknown()) }),
  indexes_directory: z.string(),
  total_indexes_loaded: z.number(),
});
const lines = { start_line: z.number(), end_line: z.number() };
const searchOutput = z.looseObject({
  status: z.literal('success'),
  query: z.string(),
  keywords_used: z.array(z.string()),
  symbols: z.array(z.looseObject({ repo_name: z.string(), file_path: z.string(), kind: z.string(), name: z.string(), ...lines, score: z.number() })).optional(),
  total_references_found: z.number(),
  references: z.array(
    z.looseObject({
      repo_name: z.string(),
      file_path: z.string(),
      score: z.number(),
      summary: z.string(),
      main_functions: z.array(z.string()),
      symbols: z.array(z.looseObject({ kind: z.string(), name: z.string(), ...lines })),
    }),
  ),
  total_indexes_loaded: z.number(),
});

const outlineSymbol = z.looseObject({ kind: z.string(), name: z.string(), qualified_name: z.string(), start_line: z.number(), end_line: z.number() });
const fileOutlineOutput = z.looseObject({
  status: z.literal('success'),
  repo_name: z.string(),
  file_path: z.string(),
  total_symbols: z.number(),
  symbols: z.array(outlineSymbol),
});
const findSymbolOutput = z.looseObject({
  status: z.literal('success'),
  name: z.string(),
  total_matches: z.number(),
  truncated: z.boolean(),
  matches: z.array(outlineSymbol.extend({ repo_name: z.string(), file_path: z.string(), match: z.string() })),
});

export function createMcpServer(options: McpServerOptions): McpServer {
  const log = options.log ?? (() => {});
  const context: ToolContext = { cache: options.cache ?? new IndexCache({ log }), defaultIndexesDir: options.defaultIndexesDir, freshness: options.freshness ?? freshnessWithin() };
  const server = new McpServer(
    { name: 'coderag', version: VERSION },
    {
      instructions:
        'Search indexed code repositories for files to read before writing a file. get_indexes_overview lists what is indexed; ' +
        'search_code_references ranks files for a target file and comma-separated keywords (DeepCode\'s tool); search takes free text; ' +
        'get_file_outline lists a file\'s symbols with their lines; find_symbol says where a name is defined.',
    },
  );

  /** Runs a tool, logging a failure instead of letting it reach the transport. */
  const answer = async (tool: string, run: () => Promise<ToolAnswer>): Promise<CallToolResult> => {
    try {
      return toCallToolResult(await run());
    } catch (error) {
      log(`error: ${tool}: ${errorMessage(error)}`);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify({ status: 'error', message: `${tool} failed: ${errorMessage(error)}` }, null, 2) }] };
    }
  };

  // Scope (search/scope.ts): a filter on the files an answer may hold, stated back in the answer's `scope`.
  const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item)]).optional();
  const scopePath = oneOrMany(z.string().trim().min(1)).describe('Only files whose repository-relative path matches this glob (or any of these), e.g. "src/**" or "*.py"');
  const scopeRole = oneOrMany(z.enum(FILE_ROLES)).describe(`Only files of this role (or these): ${FILE_ROLES.join(', ')}`);
  const excludeTests = z.boolean().optional().describe('Leave test files out');
  const scopeArgs = {
    repo: oneOrMany(z.string().trim().min(1)).describe('Only this repository (or these), as get_indexes_overview names them'),
    path: scopePath,
    role: scopeRole,
    exclude_tests: excludeTests,
  };

  server.registerTool(
    'search_code_references',
    {
      title: 'Search code references',
      description:
        'Search relevant reference code from index files for target file implementation: ranked files with their functions, ' +
        'concepts, dependencies and matching symbols\' lines, plus the target\'s known relationships. Returns DeepCode\'s JSON ' +
        '(status, formatted_content, …) with each reference\'s place (file, score, matching symbols\' lines) and the definitions ' +
        'most likely to need a change beside it, cut to max_tokens (default ' + DEFAULT_MAX_TOKENS + ').',
      inputSchema: {
        indexes_path: indexesPath,
        target_file: z.string().describe('Target file path (file to be implemented), e.g. src/cache.ts'),
        keywords: z
          .union([z.string(), z.array(z.string())])
          .optional()
          .describe('Search keywords, comma-separated, e.g. "ttl,eviction" (default: none)'),
        max_results: maxResults,
        max_tokens: maxTokens,
        ...scopeArgs,
      },
      outputSchema: searchCodeReferencesOutput,
      annotations: readOnly,
    },
    (args) => answer('search_code_references', () => searchCodeReferences(context, args)),
  );

  server.registerTool(
    'get_indexes_overview',
    {
      title: 'Indexes overview',
      description: 'Get overview of all available reference code index information: repositories, file counts, file types, languages, main concepts, relationships.',
      inputSchema: { indexes_path: indexesPath },
      outputSchema: overviewOutput,
      annotations: readOnly,
    },
    (args) => answer('get_indexes_overview', () => getIndexesOverview(context, args)),
  );

  server.registerTool(
    'search',
    {
      title: 'Search code',
      description:
        'Free-text search over the indexed files: a word or a name (`cache`, `LruCache`, `Request class`: the files named for ' +
        'it or defining it come first), a description, e.g. "token bucket rate limiter", or a whole issue report or task with its ' +
        'traceback and code (file paths, names in backticks, options and stack frames are looked up as anchors): first the ' +
        'definitions most likely to need a change (file, name, lines, a one-line description), then the ranked files with ' +
        'repository, path, score, a one-line summary, main functions and their matching symbols\' lines; cut to max_tokens ' +
        '(default ' + DEFAULT_MAX_TOKENS + ').',
      inputSchema: {
        query: z.string().trim().min(1).describe('What you are looking for, in words, or a whole issue report or task text'),
        target_file: z.string().optional().describe('The file you are about to write; its name and extension count too'),
        max_results: maxResults,
        granularity: z.enum(GRANULARITIES).optional().describe('"symbol" (the default) also returns the definitions most likely to need a change (file, name, kind, lines) as `symbols`, first; "file" ranks files only'),
        max_tokens: maxTokens,
        indexes_path: indexesPath,
        snippets: z.number().int().min(1).max(50).optional().describe('Also return this many source lines before and after each matching symbol\'s first line, when the repository is unchanged on disk'),
        ...scopeArgs,
      },
      outputSchema: searchOutput,
      annotations: readOnly,
    },
    (args) => answer('search', () => searchText(context, args)),
  );

  server.registerTool(
    'get_file_outline',
    {
      title: 'File outline',
      description:
        'The symbols of one indexed file (functions, classes, methods, constants…) with their kinds, start and end lines, nesting ' +
        '(depth, and the dotted qualified_name) and doc comments, read from the index: what to read before opening the file, and which lines.',
      // Loose, with both names optional to zod: `repo` and `path`, the names this tool took before, still reach it
      // (tools.ts resolves them), while the schema agents are shown lists, and requires, only the new ones.
      inputSchema: z
        .looseObject({
          repo_name: z.string().trim().min(1).optional().describe('Repository name (as get_indexes_overview lists it) or index name'),
          file_path: z.string().trim().min(1).optional().describe('File path relative to the repository root, e.g. src/cache/lruCache.ts, or an absolute path inside it'),
          indexes_path: indexesPath,
          role: scopeRole.describe('Refuse the file unless it has this role (or one of these)'),
          exclude_tests: excludeTests.describe('Refuse the file if it is a test'),
        })
        .meta({ required: ['repo_name', 'file_path'] }),
      outputSchema: fileOutlineOutput,
      annotations: readOnly,
    },
    (args) => answer('get_file_outline', () => getFileOutline(context, args)),
  );

  server.registerTool(
    'find_symbol',
    {
      title: 'Find symbol',
      description:
        'Where a function, class, method or other symbol is defined, across every index: repository, file, lines and qualified_name. ' +
        'Exact names first, then qualified names (LruCache.get), then case-insensitive and trailing-part matches; bounded.',
      inputSchema: {
        name: z.string().trim().min(1).describe('The symbol\'s name, e.g. LruCache, or qualified, e.g. LruCache.get'),
        kind: z.enum(SYMBOL_KINDS as [string, ...string[]]).optional().describe('Only symbols of this kind'),
        max_results: z.number().int().min(1).max(200).optional().describe(`Maximum number of definitions to return (default: ${DEFAULT_SYMBOL_RESULTS})`),
        indexes_path: indexesPath,
        ...scopeArgs,
      },
      outputSchema: findSymbolOutput,
      annotations: readOnly,
    },
    (args) => answer('find_symbol', () => findSymbolTool(context, args)),
  );

  return server;
}

/** DeepCode returns its JSON as a string; so do we, in a text block, and as structured content on success. */
export function toCallToolResult(answer: ToolAnswer): CallToolResult {
  // Compact: an answer is read by a model, for whom indentation is tokens that say nothing.
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(answer.json) }];
  // Structured content is checked against the success schema, so error answers carry text only.
  return answer.isError ? { isError: true, content } : { content, structuredContent: answer.json };
}
