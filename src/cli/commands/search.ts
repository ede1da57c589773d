/**
 * `coderag search`: load the indexes, rank, print markdown (people) or JSON (programs).
 */
import { formatMarkdown, searchResultJson } from '../../search/format.js';
import { loadIndexes } from '../../search/load.js';
import { SearchCorpus, search, type ElementType, type ScorerName } from '../../search/search.js';
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
}

export async function indexesDir(flagDir: string | undefined, configPath: string | undefined): Promise<string> {
  if (flagDir) return flagDir;
  // Loaded only when needed: validating a config costs more than the rest of a search's start-up.
  const { loadConfig } = await import('../../config/load.js');
  const { config } = await loadConfig({ configPath });
  return config.paths.output_dir;
}

export async function searchCommand(flags: SearchFlags): Promise<void> {
  const keywords = flags.keywords.split(',').map((k) => k.trim()).filter(Boolean);
  if (!flags.target && keywords.length === 0 && !flags.query) {
    throw new UsageError('nothing to search for', { hint: 'give --target <file>, --keywords a,b or --query "free text"' });
  }
  const dir = await indexesDir(flags.indexes, flags.config);
  const { indexes, warnings } = await loadIndexes(dir);
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
  if (indexes.length === 0) throw new CodeRagError(`no index files found in ${dir}`, { hint: 'run `coderag index <repo>` first' });
  const response = search(new SearchCorpus(indexes), {
    target: flags.target,
    keywords,
    ...(flags.query ? { query: flags.query } : {}),
    maxResults: flags.maxResults,
    ...(flags.type ? { type: flags.type } : {}),
    scorer: flags.scorer,
  });
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(searchResultJson(response, dir, indexes, warnings), null, 2)}\n`);
  } else {
    process.stdout.write(`${formatMarkdown(response)}\n`);
  }
}
