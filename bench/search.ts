/**
 * Search speed on a large real corpus: index size on disk, load time, cold-process and warm in-process latency.
 *
 *   npm run build && node --import tsx bench/search.ts [--files 50000] [--runs 24] [--scorer bm25f] [--json out.json]
 *
 * The corpus is `buildCorpus(n)` (real files hard-linked from node_modules, repeated under copyN/ past the ~8,000
 * available), indexed once with the built CLI into bench/.work/search-index-<n>/ and reused afterwards. Every file
 * is indexed: the config clears skip_directories (the corpus sits under node_modules-like paths) and turns off
 * .gitignore and generated-file skipping.
 *
 * first load  loadIndexes with no search pack: read + JSON.parse + normalise, build the field index, write the pack
 *             (once per index file; every later load reads the pack).
 * load        loadIndexes with the pack in place.
 * cold        `node dist/bin/coderag.cjs search --indexes <dir> --query <q> --scorer <s> --json` spawned once per query, from
 *             a small parent process (lib/coldRuns.mjs), not from this one, which holds a loaded index:
 *             what a shell user or an agent calling the CLI waits for (Node start-up, the CLI's imports, loading,
 *             ranking, printing). `cold library` is the same in a process that imports only dist/search, to show
 *             what the CLI's own start-up adds.
 * warm        one SearchCorpus answering each query again: what the MCP server pays per call.
 * small       cold CLI searches over a folder of ~70 small indexes (node_modules packages, one index each).
 * issue       the same three figures (cold over the big index, cold over the small ones, warm) for issue-length
 *             requests: ISSUE_QUERIES, each a report of a few hundred words with a stack trace and code, given to
 *             the CLI with --query-file.
 * mcp answer tokens  what the MCP `search` (every query and issue) and `search_code_references` (each query's first
 *             words as keywords) answer, by default and with max_tokens 1000: tokens as the tools estimate them and
 *             as cl100k_base counts them, and how many answers the budget cut.
 * Prints a table, then the figures as one JSON line (also written to --json when given).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fg from 'fast-glob';
import { COMMAND as CLI, REPO_ROOT as ROOT, runJsonChild } from './lib/child.js';
import { WORK_DIR, buildCorpus } from './lib/corpus.js';
import { SCHEMA_VERSION } from '../dist/index/types.js';
import { EXTRACT_VERSION } from '../dist/pipeline/incremental/incremental.js';
// The compiled build, as users run it.
import { loadIndexes } from '../dist/search/load.js';
import { PACK_DIR } from '../dist/search/pack.js';
import { SearchCorpus, search } from '../dist/search/search.js';
import { readRepositoryFile } from '../dist/search/sourceFiles.js';
import type { ScorerName } from '../dist/search/types.js';

/** Developer questions about the kind of code found in node_modules. */
export const QUERIES = [
  'parse yaml document into nodes',
  'retry a failed http request with exponential backoff',
  'validate an object against a schema and report issues',
  'split camelCase identifiers into words',
  'read a file and detect its encoding',
  'walk a directory tree and match glob patterns',
  'tree-sitter parser language loading',
  'stream json responses from the server',
  'anthropic messages api client',
  'openai chat completions streaming',
  'limit the number of promises running at once',
  'source map mappings decode vlq',
  'command line option parsing with subcommands',
  'ignore rules from gitignore files',
  'format a progress bar in the terminal',
  'abort signal timeout for fetch',
  'lru cache eviction with max size',
  'json schema to typescript types',
  'resolve module path relative to package exports',
  'escape html entities in a string',
  'convert date to iso string with timezone',
  'mcp server tool registration over stdio',
  'watch files for changes and rebuild',
  'base64 encode binary buffer',
];

/**
 * Issue reports as an agent hands them over: prose, a Node.js stack into installed packages, and code. Written
 * for this benchmark (about the kinds of packages node_modules holds); they measure speed, not ranking.
 */
export const ISSUE_QUERIES = [
  [
    'YAML parse error loses the line number when a document has an anchor before a merge key',
    '',
    'When I load a config file that uses an anchor (`&defaults`) and then a merge key (`<<: *defaults`) in a later',
    'mapping, the error thrown for a bad indentation further down has no line or column, and the message only says',
    '"Nested mappings are not allowed in compact mappings". Without the anchor the same mistake reports line 12.',
    'I would expect the position to be kept whatever aliases came before, because the tokens still carry offsets.',
    'This started after upgrading the parser; the composer seems to rebuild nodes for merges and drop their range.',
    '',
    'YAMLParseError: Nested mappings are not allowed in compact mappings',
    '    at Composer.onError (/app/node_modules/yaml/dist/compose/composer.js:70:34)',
    '    at resolveBlockMap (/app/node_modules/yaml/dist/compose/resolve-block-map.js:24:13)',
    '    at composeCollection (/app/node_modules/yaml/dist/compose/compose-collection.js:62:20)',
    '    at Object.parseDocument (/app/node_modules/yaml/dist/public-api.js:45:25)',
    '',
    '```js',
    "import { parseDocument } from 'yaml';",
    "const doc = parseDocument(readFileSync('config.yaml', 'utf8'), { prettyErrors: true });",
    'console.log(doc.errors[0].linePos);',
    '```',
  ].join('\n'),
  [
    'Retries never stop when the server answers 429 with a Retry-After date in the past',
    '',
    'Our client wraps every request in `pRetry` with `retries: 5` and a custom `shouldRetry`. When the API answers',
    '429 with a `Retry-After` header holding an HTTP date that is already in the past (clock skew between us and the',
    'server), the delay computed is negative, the timer fires at once, and with `forever: true` on one code path the',
    'loop spins at full speed and floods the server. The abort signal we pass is honoured only between attempts.',
    'Expected: a delay of at least minTimeout, and the attempt count still bounded by retries unless forever is set.',
    '',
    'RangeError: Maximum call stack size exceeded',
    '    at onAttemptFailure (/srv/api/node_modules/p-retry/index.js:84:9)',
    '    at pRetry (/srv/api/node_modules/p-retry/index.js:131:11)',
    '    at async fetchWithBackoff (/srv/api/src/http/client.ts:41:20)',
    '',
    'Options: `{ retries: 5, factor: 2, minTimeout: 1000, maxTimeout: 30000, randomize: true, signal }`',
  ].join('\n'),
  [
    'Glob with a negated pattern still walks ignored directories and is slow on large trees',
    '',
    'Calling `fg.sync(["**/*.ts", "!**/node_modules/**"], { cwd, dot: false })` on a monorepo takes 40 seconds,',
    'and strace shows it reading every folder under node_modules before filtering. With the `ignore` option instead',
    'of a negative pattern it takes 2 seconds. The README says negative patterns are turned into ignore patterns,',
    'so I expected both to skip the folder during the walk, not after it. Setting `deep` does not help either.',
    'It looks like the partial matcher does not see the negated pattern when the positive one starts with globstar.',
    '',
    '    at ReaderSync.dynamic (/repo/node_modules/fast-glob/out/readers/sync.js:18:28)',
    '    at ProviderSync.read (/repo/node_modules/fast-glob/out/providers/sync.js:20:29)',
    '    at FastGlob.sync (/repo/node_modules/fast-glob/out/index.js:24:33)',
  ].join('\n'),
];

interface Options {
  files: number;
  runs: number;
  /** The CLI's --scorer default is its own (main.ts); the benchmark names the one it measures. */
  scorer: ScorerName;
  json?: string;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { files: 50_000, runs: QUERIES.length, scorer: 'bm25f' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--files') o.files = Number(next());
    else if (a === '--runs') o.runs = Number(next());
    else if (a === '--json') o.json = next();
    else if (a === '--scorer') o.scorer = next() as ScorerName;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!(o.files > 0) || !(o.runs >= 1)) throw new Error('--files and --runs must be positive');
  return o;
}

/** The config every benchmark index is built with: every file indexed, offline. */
function benchConfig(): string {
  const config = path.join(WORK_DIR, 'search-bench-config.yaml');
  writeFileSync(
    config,
    [
      'file_analysis:',
      '  skip_directories: [.git]',
      '  respect_gitignore: false',
      '  skip_generated: false',
      'llm:',
      '  model_provider: static',
      '',
    ].join('\n'),
  );
  return config;
}

/** Indexes the repositories with the built CLI into `indexes` unless that was done by this index format. */
function indexOnce(repos: string[], indexes: string): number | null {
  const done = path.join(indexes, '.complete');
  if (existsSync(done)) return null;
  rmSync(indexes, { recursive: true, force: true });
  mkdirSync(indexes, { recursive: true });
  const t = performance.now();
  execFileSync(process.execPath, [CLI, 'index', ...repos, '--out', indexes, '--config', benchConfig(), '--no-cache', '--quiet'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const indexMs = performance.now() - t;
  writeFileSync(done, `${new Date().toISOString()}\n`);
  return indexMs;
}

/** Indexes the corpus with the built CLI unless an index of it, in this format and extraction, is already there. */
export function ensureIndex(files: number): { corpus: string; indexes: string; indexMs: number | null } {
  const corpus = buildCorpus(files);
  const indexes = path.join(WORK_DIR, `search-index-${files}-v${SCHEMA_VERSION}.${EXTRACT_VERSION}`);
  return { corpus, indexes, indexMs: indexOnce([corpus], indexes) };
}

/**
 * `count` small repositories, one index each: the packages of node_modules with 5 to 150 code files, in name
 * order (an agent's usual folder of indexes: many libraries it may draw on).
 */
export function ensureSmallIndexes(count: number): { indexes: string; indexMs: number | null } {
  const nodeModules = path.join(ROOT, 'node_modules');
  const packages = readdirSync(nodeModules)
    .flatMap((name) => (name.startsWith('@') ? readdirSync(path.join(nodeModules, name)).map((inner) => `${name}/${inner}`) : [name]))
    .filter((name) => !name.startsWith('.'))
    .sort()
    .filter((name) => {
      const n = fg.sync('**/*.{js,mjs,cjs,ts}', { cwd: path.join(nodeModules, name), ignore: ['**/node_modules/**'] }).length;
      return n >= 5 && n <= 150;
    })
    .slice(0, count);
  const indexes = path.join(WORK_DIR, `search-small-${count}-v${SCHEMA_VERSION}.${EXTRACT_VERSION}`);
  return { indexes, indexMs: indexOnce(packages.map((p) => path.join(nodeModules, p)), indexes) };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? Number.NaN;
}

function dirBytes(dir: string, extension: string): number {
  return readdirSync(dir)
    .filter((n) => n.endsWith(extension))
    .reduce((sum, n) => sum + statSync(path.join(dir, n)).size, 0);
}

/** A process that imports only the search library: load, rank, print JSON. */
const LIBRARY_SCRIPT = `
const [dir, query, scorer] = process.argv.slice(1);
const { loadIndexes } = await import(${JSON.stringify(path.join(ROOT, 'dist', 'search', 'load.js'))});
const { SearchCorpus, search } = await import(${JSON.stringify(path.join(ROOT, 'dist', 'search', 'search.js'))});
const { readRepositoryFile } = await import(${JSON.stringify(path.join(ROOT, 'dist', 'search', 'sourceFiles.js'))});
const { indexes } = await loadIndexes(dir);
process.stdout.write(JSON.stringify(search(new SearchCorpus(indexes, { readFile: readRepositoryFile }), { query, scorer, maxResults: 10 })));
`;

/**
 * The cold runs' cache folder (XDG_CACHE_HOME): the search keeps V8's compiled code there
 * (src/cli/compileCache.ts). Emptied when the bench starts, so its first cold CLI run is a user's first search
 * after installing, which compiles everything and writes the cache; the others use it, as a user's next do.
 */
const CACHE_HOME = path.join(WORK_DIR, 'cache-home');

/** Cold `node <args>` runs timed by lib/coldRuns.mjs: [bare Node start, run] in ms, per run. */
async function coldRuns(runs: string[][]): Promise<Array<[number, number]>> {
  const spec = path.join(WORK_DIR, `cold-runs-${process.pid}.json`);
  writeFileSync(spec, JSON.stringify({ runs, env: { XDG_CACHE_HOME: CACHE_HOME } }));
  try {
    const { pairs } = await runJsonChild<{ pairs: Array<[number, number]> }>('lib/coldRuns.mjs', [spec], { timeoutMs: 30_000 * runs.length });
    return pairs;
  } finally {
    rmSync(spec, { force: true });
  }
}

export type SearchBenchResult = Awaited<ReturnType<typeof benchSearch>>;

/** Measures search at `files` files (50,000 by default; `quick` uses 5,000) and returns the figures. */
export async function benchSearch(options: Partial<Options> & { quick?: boolean; log?: (line: string) => void } = {}) {
  const o: Options = { files: options.quick ? 5_000 : 50_000, runs: Math.max(20, QUERIES.length), scorer: 'bm25f', ...options };
  options.log?.(`search: ${o.files} files, ${o.runs} queries`);
  const { indexes, indexMs } = ensureIndex(o.files);
  const queries = Array.from({ length: o.runs }, (_, i) => QUERIES[i % QUERIES.length] as string);

  // First load: no pack yet, so this parses the JSON, builds the field index and writes the pack.
  rmSync(path.join(indexes, PACK_DIR), { recursive: true, force: true });
  let t = performance.now();
  await loadIndexes(indexes);
  const firstLoadMs = performance.now() - t;
  const packBytes = existsSync(path.join(indexes, PACK_DIR)) ? dirBytes(path.join(indexes, PACK_DIR), '.pack') : 0;
  // The rebuild leaves hundreds of megabytes of garbage that no real search process has: collected now (npm run
  // bench runs node with --expose-gc), so the load and the first query below do not pay for it.
  (globalThis as { gc?: () => void }).gc?.();

  // Warm, in this process, from the compiled build, with the pack in place.
  t = performance.now();
  const loaded = await loadIndexes(indexes);
  const loadMs = performance.now() - t;
  const files = loaded.indexes.reduce((n, l) => n + (l.packed ? l.packed.size : l.index.file_summaries.length), 0);
  const corpus = new SearchCorpus(loaded.indexes, { readFile: readRepositoryFile });
  t = performance.now();
  search(corpus, { query: queries[0] as string, maxResults: 10, scorer: o.scorer });
  const firstQueryMs = performance.now() - t;
  const warm: number[] = [];
  for (const q of queries) {
    t = performance.now();
    search(corpus, { query: q, maxResults: 10, scorer: o.scorer });
    warm.push(performance.now() - t);
  }

  // Cold processes are timed from a small parent (lib/coldRuns.mjs), each paired with a bare Node start just
  // before it, so a busy machine slows both alike and `beyond_node` (the run minus its Node start) is the part
  // CodeRAG itself costs.
  const cliRun = (dir: string, q: string) => [CLI, 'search', '--indexes', dir, '--query', q, '--scorer', o.scorer, '--json'];
  rmSync(CACHE_HOME, { recursive: true, force: true });
  const coldPairs = await coldRuns(queries.map((q) => cliRun(indexes, q)));
  const cold = coldPairs.map(([, run]) => run);
  const coldLibrary = (await coldRuns(queries.map((q) => ['--input-type=module', '-e', LIBRARY_SCRIPT, indexes, q, o.scorer]))).map(([, run]) => run);

  // Issue-length requests, from a file as an agent passes them.
  const issueFiles = ISSUE_QUERIES.map((text, i) => {
    const file = path.join(WORK_DIR, `issue-query-${i}.md`);
    writeFileSync(file, text);
    return file;
  });
  const issueQueries = Array.from({ length: o.runs }, (_, i) => i % ISSUE_QUERIES.length);
  const issueWarm: number[] = [];
  for (const i of issueQueries) {
    t = performance.now();
    search(corpus, { query: ISSUE_QUERIES[i] as string, maxResults: 10, scorer: o.scorer });
    issueWarm.push(performance.now() - t);
  }
  const issueRun = (dir: string, i: number) => [CLI, 'search', '--indexes', dir, '--query-file', issueFiles[i] as string, '--scorer', o.scorer, '--json'];
  const issuePairs = await coldRuns(issueQueries.map((i) => issueRun(indexes, i)));
  const issueCold = issuePairs.map(([, run]) => run);

  // What an agent reads: the MCP tools' answers over the same folder, in tokens.
  const mcpTokens = await mcpAnswerTokens(indexes, QUERIES, ISSUE_QUERIES);

  const ms = (x: number): number => Math.round(x * 10) / 10;
  // An agent's folder of many small indexes: cold CLI searches across all of them.
  const small = ensureSmallIndexes(options.quick ? 20 : 70);
  const smallLoaded = await loadIndexes(small.indexes);
  const smallFiles = smallLoaded.indexes.reduce((n, l) => n + (l.packed ? l.packed.size : l.index.file_summaries.length), 0);
  const smallPairs = await coldRuns(queries.map((q) => cliRun(small.indexes, q)));
  const smallCold = smallPairs.map(([, run]) => run);
  const issueSmallPairs = await coldRuns(issueQueries.map((i) => issueRun(small.indexes, i)));
  const issueSmallCold = issueSmallPairs.map(([, run]) => run);
  const nodeStart = [...coldPairs, ...smallPairs].map(([node]) => node);
  const beyondNode = (pairs: ReadonlyArray<readonly [number, number]>): number => ms(percentile(pairs.map(([node, run]) => run - node), 50));

  const indexBytes = dirBytes(indexes, '.json');
  const result = {
    files,
    indexes: loaded.indexes.length,
    scorer: o.scorer,
    index_bytes: indexBytes,
    index_bytes_per_1000_files: Math.round((indexBytes / files) * 1000),
    pack_bytes: packBytes,
    index_build_ms: indexMs === null ? null : ms(indexMs),
    first_load_ms: ms(firstLoadMs),
    load_ms: ms(loadMs),
    first_query_ms: ms(firstQueryMs),
    cold_ms: { p50: ms(percentile(cold, 50)), p95: ms(percentile(cold, 95)), beyond_node_p50: beyondNode(coldPairs), runs: cold.length },
    /** The first cold run, with no compile cache yet (it writes one). */
    first_cold_ms: ms(cold[0] ?? 0),
    cold_library_ms: { p50: ms(percentile(coldLibrary, 50)), p95: ms(percentile(coldLibrary, 95)), runs: coldLibrary.length },
    warm_ms: { p50: ms(percentile(warm, 50)), p95: ms(percentile(warm, 95)), runs: warm.length },
    node_startup_ms: ms(percentile(nodeStart, 50)),
    small_indexes: smallLoaded.indexes.length,
    small_files: smallFiles,
    small_cold_ms: { p50: ms(percentile(smallCold, 50)), p95: ms(percentile(smallCold, 95)), beyond_node_p50: beyondNode(smallPairs), runs: smallCold.length },
    issue_cold_ms: { p50: ms(percentile(issueCold, 50)), p95: ms(percentile(issueCold, 95)), beyond_node_p50: beyondNode(issuePairs), runs: issueCold.length },
    issue_small_cold_ms: { p50: ms(percentile(issueSmallCold, 50)), p95: ms(percentile(issueSmallCold, 95)), beyond_node_p50: beyondNode(issueSmallPairs), runs: issueSmallCold.length },
    issue_warm_ms: { p50: ms(percentile(issueWarm, 50)), p95: ms(percentile(issueWarm, 95)), runs: issueWarm.length },
    mcp_answer_tokens: mcpTokens,
  };
  return result;
}

/** A budget smaller than the default, to show an answer cut to it. */
const SMALL_BUDGET = 1000;

/**
 * The MCP `search` and `search_code_references` answers (the text a client hands its model) for each query, by
 * default and with max_tokens SMALL_BUDGET: tokens as the tools estimate them (characters / 3) and as cl100k_base
 * counts them, p50 and max over the queries, and how many answers were cut.
 */
async function mcpAnswerTokens(indexes: string, queries: readonly string[], issues: readonly string[]) {
  const { IndexCache } = await import('../dist/mcp/indexCache.js');
  const { searchCodeReferences, searchText } = await import('../dist/mcp/tools.js');
  const { toCallToolResult } = await import('../dist/mcp/server.js');
  const { estimateTokens } = await import('../dist/search/budget.js');
  const { Tiktoken } = await import('js-tiktoken/lite');
  const cl100k = new Tiktoken((await import('js-tiktoken/ranks/cl100k_base')).default);
  const context = { cache: new IndexCache(), defaultIndexesDir: indexes };
  type Answer = Awaited<ReturnType<typeof searchText>>;
  const measure = async (calls: ReadonlyArray<() => Promise<Answer>>) => {
    const estimated: number[] = [];
    const counted: number[] = [];
    let cut = 0;
    for (const call of calls) {
      const answer = await call();
      const first = toCallToolResult(answer).content[0];
      const text = first?.type === 'text' ? first.text : '';
      estimated.push(estimateTokens(text));
      counted.push(cl100k.encode(text).length);
      if ('truncated' in answer.json) cut++;
    }
    return { estimated_p50: percentile(estimated, 50), estimated_max: Math.max(...estimated), cl100k_p50: percentile(counted, 50), cl100k_max: Math.max(...counted), cut, answers: calls.length };
  };
  const keywordsOf = (q: string) => q.split(/\W+/).filter((w) => w.length > 3).slice(0, 3).join(',');
  const searchWith = (max_tokens?: number) => [...queries, ...issues].map((query) => () => searchText(context, { query, ...(max_tokens ? { max_tokens } : {}) }));
  const referencesWith = (max_tokens?: number) => queries.map((q) => () => searchCodeReferences(context, { target_file: 'src/feature.ts', keywords: keywordsOf(q), ...(max_tokens ? { max_tokens } : {}) }));
  return {
    search_default: await measure(searchWith()),
    search_budget_1000: await measure(searchWith(SMALL_BUDGET)),
    references_default: await measure(referencesWith()),
    references_budget_1000: await measure(referencesWith(SMALL_BUDGET)),
  };
}

function printResult(result: SearchBenchResult, o: Options): void {
  const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const rows: Array<[string, string]> = [
    ['files indexed', `${result.files} in ${result.indexes} index file(s)`],
    ['index size on disk (JSON)', mb(result.index_bytes)],
    ['search pack size on disk', mb(result.pack_bytes)],
    ['first load (parse, build, write pack)', `${result.first_load_ms} ms`],
    ['load (from the pack)', `${result.load_ms} ms`],
    ['first query', `${result.first_query_ms} ms`],
    [`cold CLI process p50 / p95 (${o.scorer})`, `${result.cold_ms.p50} / ${result.cold_ms.p95} ms (${result.cold_ms.beyond_node_p50} ms beyond Node's start)`],
    ['cold CLI, first run after a build (no compile cache yet)', `${result.first_cold_ms} ms`],
    ['cold library process p50 / p95', `${result.cold_library_ms.p50} / ${result.cold_library_ms.p95} ms`],
    ['warm in-process p50 / p95', `${result.warm_ms.p50} / ${result.warm_ms.p95} ms`],
    ['index size per 1,000 files (JSON)', mb(result.index_bytes_per_1000_files)],
    ['node start-up alone (p50)', `${result.node_startup_ms} ms`],
    [`cold CLI over ${result.small_indexes} small indexes (${result.small_files} files) p50 / p95`, `${result.small_cold_ms.p50} / ${result.small_cold_ms.p95} ms (${result.small_cold_ms.beyond_node_p50} ms beyond Node's start)`],
    ['issue-length query: cold CLI p50 / p95', `${result.issue_cold_ms.p50} / ${result.issue_cold_ms.p95} ms (${result.issue_cold_ms.beyond_node_p50} ms beyond Node's start)`],
    [`issue-length query: cold CLI over ${result.small_indexes} small indexes p50 / p95`, `${result.issue_small_cold_ms.p50} / ${result.issue_small_cold_ms.p95} ms (${result.issue_small_cold_ms.beyond_node_p50} ms beyond Node's start)`],
    ['issue-length query: warm in-process p50 / p95', `${result.issue_warm_ms.p50} / ${result.issue_warm_ms.p95} ms`],
    ...Object.entries(result.mcp_answer_tokens).map(([name, t]): [string, string] => [
      `MCP ${name.replace(/_/g, ' ')}: tokens p50 / max (estimated; cl100k)`,
      `${t.estimated_p50} / ${t.estimated_max}; ${t.cl100k_p50} / ${t.cl100k_max} (${t.cut} of ${t.answers} cut)`,
    ]),
  ];
  const width = Math.max(...rows.map((r) => r[0].length));
  console.log(rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n'));
  console.log(JSON.stringify(result));
  if (o.json) writeFileSync(o.json, `${JSON.stringify(result, null, 2)}\n`);
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  printResult(await benchSearch(o), o);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}
