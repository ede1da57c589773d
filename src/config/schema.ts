/**
 * One schema for the configuration: it yields the types, the defaults and the validation. Section and key
 * names follow DeepCode's `indexer_config.yaml`; our additions sit beside them. Every object is strict, so an
 * unknown key is an error naming its path rather than silence.
 */
import { z } from 'zod';

const DEFAULT_EXTENSIONS = [
  '.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs',
  '.py', '.pyi', '.go', '.rs', '.java', '.kt', '.scala', '.c', '.h', '.cc', '.cpp', '.cxx', '.hpp', '.hh', '.hxx',
  '.cs', '.rb', '.php', '.swift', '.lua', '.sh', '.bash',
  '.md', '.rst', '.txt', '.json', '.yaml', '.yml', '.toml', '.ini', '.cfg', '.sql', '.html', '.css', '.scss', '.vue',
];

/**
 * Folders skipped at any depth. `build`, `out`, `target` and `env` are not among them: a folder of that name is
 * often source (fastify's `build/`, `test/build/`), so the walk skips it only as build output, where git ignores it
 * or, outside git, unless `skip_generated` is false (walk.ts `BUILD_OUTPUT_DIRECTORIES`).
 */
const DEFAULT_SKIP_DIRECTORIES = [
  '.git', '.hg', '.svn', 'node_modules', 'bower_components', 'vendor', '__pycache__', '.venv', 'venv',
  '.tox', '.mypy_cache', '.pytest_cache', '.ruff_cache', 'dist', 'coverage', '.next',
  '.nuxt', '.cache', '.idea', '.vscode', '.gradle', '.terraform',
];

const positiveInt = z.number().int().positive();
/** A file written into the output folder: a name, never a path that could leave it (`../x.json`). */
const jsonFileName = z
  .string()
  .regex(/\.json$/, 'must end in .json')
  .refine((s) => !/[\\/]/.test(s), 'must be a file name, not a path: files are written into the output folder');

/** Published list prices (US dollars per million tokens) of the providers' default models. */
const DEFAULT_PRICING = {
  'gpt-4o-mini': { input: 0.15, cached_input: 0.075, output: 0.6, batch: 0.5 },
  'claude-haiku-4-5': { input: 1, cached_input: 0.1, output: 5, batch: 0.5 },
};
const nonNegative = z.number().nonnegative();
const probability = z.number().min(0).max(1);

export const configSchema = z.strictObject({
  paths: z
    .strictObject({
      /** DeepCode's layout: with no repository on the command line, index every folder directly under this one. */
      code_base_path: z.string().min(1).nullable().default(null),
      /** Where RepoIndex files are written and read. */
      output_dir: z.string().min(1).default('indexes'),
      /** Persistent profile cache; shared across clones so CI re-uses unchanged profiles. */
      cache_dir: z.string().min(1).default('.coderag-cache'),
    })
    .prefault({}),
  file_analysis: z
    .strictObject({
      supported_extensions: z.array(z.string().regex(/^\./, 'must start with a dot')).default(DEFAULT_EXTENSIONS),
      skip_directories: z.array(z.string().min(1)).default(DEFAULT_SKIP_DIRECTORIES),
      max_file_size: positiveInt.default(1_048_576),
      max_content_length: positiveInt.default(3000),
      enable_pre_filtering: z.boolean().default(false),
      /** Honour .gitignore files (nested too) and .git/info/exclude. */
      respect_gitignore: z.boolean().default(true),
      /** Record minified or machine-generated files as skipped instead of profiling them (false also keeps build output folders outside git). */
      skip_generated: z.boolean().default(true),
      /** A file longer than max_content_length: show the model its head, or split it at symbol boundaries into chunks. */
      long_files: z.enum(['head', 'chunks']).default('head'),
      /** With long_files: chunks, the most chunks of one file sent (the rest is left out). */
      max_chunks_per_file: z.number().int().min(1).max(64).default(4),
    })
    .prefault({}),
  llm: z
    .strictObject({
      /** auto: Anthropic if ANTHROPIC_API_KEY is set, else OpenAI if OPENAI_API_KEY or OPENAI_BASE_URL is set, else static. */
      model_provider: z.enum(['auto', 'openai', 'anthropic', 'static']).default('auto'),
      model: z.string().min(1).nullable().default(null),
      max_tokens: positiveInt.default(4000),
      temperature: z.number().min(0).max(2).default(0.3),
      system_prompt: z
        .string()
        .default('You are a code analysis expert. Provide precise, structured analysis of code relationships and similarities.'),
      /** Seconds each worker pauses after its request before its next one (DeepCode's meaning); not a run-wide spacing. */
      request_delay: nonNegative.default(0.1),
      /**
       * Requests in flight grow from max_concurrent_files up to this while the provider's rate-limit headers
       * show headroom (a server that sends none keeps max_concurrent_files); null, or `--concurrency`: never.
       */
      adaptive_concurrency_max: positiveInt.max(256).nullable().default(64),
      /** Our own cap: requests started in any minute; null: only the provider's limits apply. */
      requests_per_minute: positiveInt.nullable().default(null),
      /** Our own cap: estimated prompt plus max answer tokens started in any minute; null: no cap. */
      tokens_per_minute: positiveInt.nullable().default(null),
      /**
       * Files sent together in one request at most; 1 sends each file alone. Answers take time per token, so
       * a few files a call keep every request slot busy; many would serialise the answers into fewer calls.
       */
      pack_max_files: z.number().int().min(1).max(50).default(4),
      /** Estimated prompt tokens of the files in one request (the shared prefix apart). */
      pack_token_budget: positiveInt.default(6000),
      max_retries: z.number().int().min(0).max(20).default(3),
      /** Seconds; the first backoff step, doubled each retry, with jitter. */
      retry_delay: nonNegative.default(1.0),
      /** Seconds; the cap on a server's Retry-After that we honour. */
      max_retry_after: nonNegative.default(60),
      /** Seconds; a request that takes longer is aborted and retried. */
      request_timeout: z.number().positive().default(120),
      /** What to do when the pre-filter fails or answers nothing usable. */
      prefilter_failure: z.enum(['keep_all', 'abort']).default('keep_all'),
    })
    .prefault({}),
  relationships: z
    .strictObject({
      min_confidence_score: probability.default(0.3),
      high_confidence_threshold: probability.default(0.7),
      relationship_types: z
        .record(z.string().regex(/^[a-z_]+$/, 'relationship types are snake_case'), probability)
        .default({ direct_match: 1.0, partial_match: 0.8, reference: 0.6, utility: 0.4 }),
      /** A target structure (tree or plan text) to relate files to; `--target-structure` overrides. */
      target_structure_file: z.string().nullable().default(null),
    })
    .prefault({}),
  output: z
    .strictObject({
      json_indent: z.number().int().min(0).max(8).default(2),
      /** Escape non-ASCII characters as \uXXXX in the written JSON. */
      ensure_ascii: z.boolean().default(false),
      summary_filename: jsonFileName.default('indexing_summary.json'),
      stats_filename: jsonFileName.default('indexing_statistics.json'),
      generate_summary: z.boolean().default(true),
      generate_statistics: z.boolean().default(true),
      include_metadata: z.boolean().default(true),
      index_filename_pattern: jsonFileName.refine((s) => s.includes('{repo_name}'), 'must contain {repo_name}').default('{repo_name}_index.json'),
    })
    .prefault({}),
  logging: z
    .strictObject({
      level: z.enum(['DEBUG', 'INFO', 'WARNING', 'ERROR']).default('INFO'),
      log_to_file: z.boolean().default(false),
      log_file: z.string().default('indexer.log'),
    })
    .prefault({}),
  performance: z
    .strictObject({
      enable_concurrent_analysis: z.boolean().default(true),
      max_concurrent_files: positiveInt.max(256).default(5),
      enable_content_caching: z.boolean().default(true),
      /** Worker threads that parse files; null: one per core (up to 8); 0: parse in the main thread. */
      parse_workers: z.number().int().min(0).max(64).nullable().default(null),
      /** Entries in the in-memory cache of model answers in front of the persistent store. */
      max_cache_size: positiveInt.default(10_000),
    })
    .prefault({}),
  /**
   * (CodeRAG) In a git work tree, the subjects of past commits that touched each file become a search field:
   * `git log --no-merges` of HEAD only, bounded in count and in age from HEAD's commit date. `--no-history` skips it.
   */
  history: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** The most recent subjects kept per file. */
      max_subjects: z.number().int().min(1).max(100).default(10),
      /** Commits read at most, newest first. */
      max_commits: positiveInt.max(1_000_000).default(5000),
      /** Days before HEAD's commit date (not the clock) past which commits are not read. */
      max_age_days: positiveInt.max(36_500).default(1095),
    })
    .prefault({}),
  /** (CodeRAG) `coderag plan`: the conversation that writes a target structure. */
  plan: z
    .strictObject({
      /** Model turns before the loop ends with the last proposal; `--max-turns` overrides. */
      max_turns: positiveInt.max(100).default(12),
      /** Bytes; larger input documents are skipped with a note. */
      max_input_file_size: positiveInt.default(262_144),
      /** Characters of all input documents together sent to the model; the rest is cut with a note. */
      max_input_chars: positiveInt.default(40_000),
    })
    .prefault({}),
  /** (CodeRAG) Prices per model, in US dollars per million tokens, for `--dry-run`, `--max-cost` and batches. */
  pricing: z
    .record(
      z.string().min(1),
      z.strictObject({
        input: nonNegative,
        /** Prompt tokens served from the provider's prompt cache; null: the input price. */
        cached_input: nonNegative.nullable().default(null),
        output: nonNegative,
        /** The share of these prices a batch request pays (both providers: half). */
        batch: probability.default(0.5),
      }),
    )
    .default(DEFAULT_PRICING),
  /** (CodeRAG) Limits that stop a model run before it spends more; flags --max-cost and --max-calls override. */
  budget: z
    .strictObject({
      /** US dollars; null: no limit. */
      max_cost: nonNegative.nullable().default(null),
      /** Model requests, retries included; null: no limit. */
      max_calls: z.number().int().min(0).nullable().default(null),
      /** Answer tokens assumed per request before a run has seen any (dry runs and cost limits). */
      expected_output_tokens: positiveInt.default(400),
    })
    .prefault({}),
  /** (CodeRAG) `coderag index --batch`: provider batch APIs, half price, answers within 24 hours. */
  batch: z
    .strictObject({
      /** Seconds between two status checks while waiting (`--wait`). */
      poll_interval: z.number().positive().default(30),
      /** Seconds `--wait` waits at most before leaving the batch to `--collect`. */
      max_wait: z.number().positive().default(86_400),
      /** Requests a batch answered with an error, or left expired or cancelled, are asked again live. */
      retry_failed_live: z.boolean().default(true),
    })
    .prefault({}),
  debug: z
    .strictObject({
      save_raw_responses: z.boolean().default(false),
      raw_responses_dir: z.string().default('debug_responses'),
      verbose_output: z.boolean().default(false),
    })
    .prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

export function defaultConfig(): Config {
  return configSchema.parse({});
}
