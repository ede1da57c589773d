/**
 * `coderag search`: load the indexes, rank, print markdown (people) or JSON (programs).
 */
import { readdir } from 'node:fs/promises';
import { formatMarkdown, searchResultJson, staleWarnings } from '../../search/format.js';
import { checkFreshness } from '../../search/freshness.js';
import { isIndexFileName, loadIndexes } from '../../search/load.js';
import { SearchCorpus, search } from '../../search/search.js';
import type { ElementType, ScorerName } from '../../search/types.js';
import { CodeRagError, UsageError } from '../../shared/errors.js';

export interface SearchFlags {
  target: string;
  keywords: string;
  query?: string;
  indexes?: string;
  maxResults: number;
  type?: ElementType;
  scorer: ScorerName;
  config?: string;
  json: boolean;
  snippets?: number;
}

export async function indexesDir(flagDir: string | undefined, configPath: string | undefined): Promise<string> {
  if (flagDir) return flagDir;
  // Loaded only when needed: validating a config costs more than the rest of a search's start-up.
  const { loadConfig } = await import('../../config/load.js');
  const { config } = await loadConfig({ configPath });
  return config.paths.output_dir;
}

/**
 * The error for a folder that gave no index: empty, holding no JSON, or holding JSON that is not an index
 * (the warnings printed before it name each file and why).
 */
export async function noIndexesError(dir: string, warnings: readonly string[]): Promise<CodeRagError> {
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
  return new CodeRagError(`no index files found in ${dir}: ${why}`, { hint: 'run `coderag index <repo> --out <dir>` first, or pass --indexes <dir>' });
}

export async function searchCommand(flags: SearchFlags): Promise<void> {
  const keywords = flags.keywords.split(',').map((k) => k.trim()).filter(Boolean);
  if (!flags.target && keywords.length === 0 && !flags.query) {
    throw new UsageError('nothing to search for', { hint: 'give --target <file>, --keywords a,b or --query "free text"' });
  }
  const dir = await indexesDir(flags.indexes, flags.config);
  const { indexes, warnings } = await loadIndexes(dir);
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
  if (indexes.length === 0) throw await noIndexesError(dir, warnings);
  // Started first: its git processes run while the query is ranked.
  const checking = checkFreshness(indexes);
  const ranked = search(new SearchCorpus(indexes), {
    target: flags.target,
    keywords,
    ...(flags.query ? { query: flags.query } : {}),
    maxResults: flags.maxResults,
    ...(flags.type ? { type: flags.type } : {}),
    scorer: flags.scorer,
  });
  // Loaded only when asked for, like the config: a plain search should not pay for it.
  const response = flags.snippets ? await (await import('../../search/snippets.js')).addSnippets(ranked, indexes, { lines: flags.snippets }) : ranked;
  const freshness = await checking;
  for (const warning of staleWarnings(freshness)) process.stderr.write(`warning: ${warning}\n`);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(searchResultJson(response, dir, indexes, warnings, freshness), null, 2)}\n`);
  } else {
    process.stdout.write(`${formatMarkdown(response)}\n`);
  }
}
