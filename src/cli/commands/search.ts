/**
 * `coderag search`: load the indexes, rank, print markdown (people) or JSON (programs).
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fitResponse } from '../../search/budget.js';
import { formatMarkdown, budgetedSearchJson, staleWarnings } from '../../search/format.js';
import { checkFreshness } from '../../search/freshness.js';
import { INDEXES_HINT, isIndexFileName, loadIndexes, PackMismatchError } from '../../search/load.js';
import { makeScope, scopedSearch, scopeText } from '../../search/scope.js';
import { SearchCorpus } from '../../search/search.js';
import { readRepositoryFile } from '../../search/sourceFiles.js';
import type { ElementType, Granularity, ScorerName } from '../../search/types.js';
import { CodeRagError, UsageError } from '../../shared/errors.js';

export interface SearchFlags {
  target: string;
  keywords: string;
  query?: string;
  queryFile?: string;
  indexes?: string;
  maxResults: number;
  type?: ElementType;
  granularity?: Granularity;
  scorer: ScorerName;
  config?: string;
  json: boolean;
  snippets?: number;
  maxTokens?: number;
  /** The answer's scope (search/scope.ts): repositories, path globs, roles. */
  repo?: string[];
  path?: string[];
  role?: string[];
  excludeTests?: boolean;
}

export async function indexesDir(flagDir: string | undefined, configPath: string | undefined): Promise<string> {
  // Loaded only when needed: validating a config costs more than the rest of a search's start-up. A config named
  // on the command line is always read, so a broken one is reported even when --indexes makes it moot.
  if (flagDir && configPath === undefined) return flagDir;
  const { loadConfig } = await import('../../config/load.js');
  const { config } = await loadConfig({ configPath });
  return flagDir || config.paths.output_dir;
}

/**
 * The error for a folder that gave no index: empty, holding no JSON, or holding JSON that is not an index
 * (the warnings printed before it name each file and why).
 */
export async function noIndexesError(dir: string, warnings: readonly string[]): Promise<CodeRagError> {
  // Exit code 2, as for a folder that is not there: the command line named a folder that holds no index.
  const names = await readdir(dir).catch(() => [] as string[]);
  const json = names.filter(isIndexFileName);
  const why =
    names.length === 0
      ? 'the folder is empty'
      : json.length === 0
        ? `it holds ${names.length} entr${names.length === 1 ? 'y' : 'ies'} but no .json file`
        : warnings.length
          ? `none of its ${json.length} .json file(s) could be read as a repository index (see the warnings above)`
          : `its ${json.length} .json file(s) are run reports, not repository indexes`;
  return new UsageError(`no index files found in ${dir}: ${why}`, { hint: INDEXES_HINT });
}

/** A query file larger than this is not a query. */
const MAX_QUERY_BYTES = 8 * 1024 * 1024;

/**
 * The text of `--query-file`: a file, or standard input for `-`. Binary data (a NUL byte, or bytes that are not
 * UTF-8) is refused rather than searched for.
 */
export async function readQueryFile(source: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  let bytes: Buffer;
  if (source === '-') {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stdin) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      size += buffer.length;
      if (size > MAX_QUERY_BYTES) throw new UsageError(`standard input holds over ${MAX_QUERY_BYTES / 1024 / 1024} MB: that is not a query`, { hint: 'pass the issue or task text itself' });
      chunks.push(buffer);
    }
    bytes = Buffer.concat(chunks);
  } else {
    try {
      bytes = await readFile(source);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : (code ?? String(error));
      throw new UsageError(`cannot read the query file ${source}: ${why}`);
    }
    if (bytes.length > MAX_QUERY_BYTES) throw new UsageError(`the query file ${source} holds over ${MAX_QUERY_BYTES / 1024 / 1024} MB: that is not a query`);
  }
  const where = source === '-' ? 'standard input' : `the query file ${source}`;
  if (bytes.includes(0)) throw new UsageError(`${where} holds binary data (a NUL byte), not text`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${where} is not UTF-8 text`);
  }
}

export async function searchCommand(flags: SearchFlags): Promise<void> {
  const keywords = flags.keywords.split(',').map((k) => k.trim()).filter(Boolean);
  if (flags.query !== undefined && flags.queryFile !== undefined) throw new UsageError('give --query or --query-file, not both');
  const query = flags.queryFile !== undefined ? await readQueryFile(flags.queryFile) : flags.query;
  if (!flags.target && keywords.length === 0 && !query?.trim()) {
    throw new UsageError(flags.queryFile !== undefined ? `${flags.queryFile === '-' ? 'standard input' : flags.queryFile} holds no query text` : 'nothing to search for', {
      hint: 'give --target <file>, --keywords a,b, --query "free text" or --query-file <file|->',
    });
  }
  const dir = await indexesDir(flags.indexes, flags.config);
  const loadAndRank = async (packs: boolean) => {
    const { indexes, warnings } = await loadIndexes(dir, { packs });
    if (indexes.length === 0) {
      for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
      throw await noIndexesError(dir, warnings);
    }
    const scope = makeScope(flags, indexes);
    // Started first: its git processes run while the query is ranked.
    const checking = checkFreshness(indexes);
    const ranked = scopedSearch(new SearchCorpus(indexes, { readFile: readRepositoryFile }), {
      target: flags.target,
      keywords,
      ...(query ? { query } : {}),
      maxResults: flags.maxResults,
      ...(flags.type ? { type: flags.type } : {}),
      ...(flags.granularity ? { granularity: flags.granularity } : {}),
      scorer: flags.scorer,
    }, scope);
    return { indexes, warnings, checking, ranked };
  };
  const { indexes, warnings, checking, ranked } = await loadAndRank(true).catch(async (error: unknown) => {
    // A search file that did not match its index was removed as it was found: loading again rebuilds it (or, when
    // it could not be removed, reads the indexes without it).
    if (!(error instanceof PackMismatchError)) throw error;
    const again = await loadAndRank(error.removed);
    return { ...again, warnings: [error.retried, ...again.warnings] };
  });
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
  // Loaded only when asked for, like the config: a plain search should not pay for it.
  const response = flags.snippets ? await (await import('../../search/snippets.js')).addSnippets(ranked, indexes, { lines: flags.snippets }) : ranked;
  const freshness = await checking;
  for (const warning of staleWarnings(freshness)) process.stderr.write(`warning: ${warning}\n`);
  // Cut to --max-tokens by leaving out the last results; with no budget, fitResponse renders the whole answer.
  const { scope } = response;
  const text = flags.json
    ? JSON.stringify(budgetedSearchJson(response, path.resolve(dir), indexes, warnings, freshness, flags.maxTokens), null, 2)
    : fitResponse(response, (cut, leftOut) => `${scope ? `> scope: ${scopeText(scope)}\n\n` : ''}${formatMarkdown(cut)}${leftOut ? `\n\n> ${leftOut.references_left_out} references and ${leftOut.symbols_left_out} symbols left out to fit --max-tokens ${leftOut.max_tokens}` : ''}`, (t) => t, flags.maxTokens);
  process.stdout.write(`${text}\n`);
}
