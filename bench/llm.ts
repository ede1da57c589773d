/**
 * The LLM pipeline against the fake OpenAI-compatible server (127.0.0.1 only), with the default config
 * (request_delay 0.1 s, packing, max_concurrent_files as given):
 *   cold      a fresh cache at a fixed latency per call: calls and prompt tokens per file, wall time
 *   deepcode  DeepCode's call pattern (bench/lib/deepcode.ts) on the same server and files: the reference
 *   warm      the same repository again with the same cache (a second run)
 *   clone     a real copy with new mtimes, same cache (a CI clone of an unchanged repository)
 *   realistic both tools again with a base latency plus a delay per answer token
 *   ratelimit a server enforcing a requests-per-minute window, one file per call: 429s and throughput
 *   faults    a fresh cache with 20% 429s (Retry-After 1 s) and 5% 500s: wall time against cold, files lost
 *
 * The server runs in this process; each pipeline run is a fresh child (bench/lib/llmWorker.ts), killed past a
 * time bound or when the server has seen more requests than files × (max_retries + 1).
 *
 * `--tier` runs the comparison of issue 22 instead (benchTier): both tools, default settings, on a server
 * sending a paid tier's rate-limit headers (5,000 requests and 2,000,000 tokens a minute), at a fixed 200 ms
 * a call and at 400 ms + 10 ms per answer token + 0.05 ms per prompt token; then CodeRAG alone against 120
 * requests a minute.
 *
 *   node --import tsx bench/llm.ts [--quick | --tier [--files 173] [--regimes fixed,realistic,ratelimit]]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeLlmServer } from '../tests/support/fakeLlmServer.js';
import { isMain, runJsonChild } from './lib/child.js';
import { WORK_DIR, buildCorpus, cloneWithNewMtimes, warmPageCache } from './lib/corpus.js';
import { Figures, renderTable, type SectionResult } from './lib/figures.js';
import type { FakeLlmOptions } from '../tests/support/fakeLlmServer.js';
import { deepcodeRespond } from './lib/deepcode.js';
import type { DeepcodeWorkerOptions, DeepcodeWorkerResult } from './lib/deepcodeWorker.js';
import type { LlmWorkerOptions, LlmWorkerResult } from './lib/llmWorker.js';
import { describeRegime } from './lib/policy.js';
import { median, round, spread } from './lib/stats.js';

export interface LlmBenchOptions {
  files: number;
  latencyMs: number;
  concurrency: number;
  /** Untimed cold runs before the measured ones. */
  warmups: number;
  /** Measured cold → warm → clone sequences, each with its own cache. */
  reps: number;
  faultReps: number;
  /** Files in the fault runs; when not `files`, a fault-free cold run over the same files is the reference. */
  faultFiles: number;
  /** The retry policy under faults: seconds and count (the defaults are 1 s and 3). */
  retryDelay: number;
  maxRetries: number;
  /** DeepCode-pattern runs at `latencyMs` on the same files. */
  deepcodeReps: number;
  /** Both tools with latency = baseMs + perTokenMs × answer tokens, on the first `files` files. */
  realistic: { files: number; baseMs: number; perTokenMs: number } | null;
  /** A server allowing `rpm` requests in any minute; one file per call, so there are enough calls to pace. */
  rateLimit: { files: number; rpm: number } | null;
  log?: (line: string) => void;
}

export const LLM_FULL: LlmBenchOptions = {
  files: 300, latencyMs: 200, concurrency: 5, warmups: 1, reps: 3, faultReps: 2, faultFiles: 300, retryDelay: 1, maxRetries: 3,
  deepcodeReps: 1, realistic: { files: 60, baseMs: 400, perTokenMs: 10 }, rateLimit: { files: 100, rpm: 120 },
};
/** Quick: the fault runs take 100 files, since every 429 holds a slot for a second whatever the latency. */
export const LLM_QUICK: LlmBenchOptions = {
  files: 300, latencyMs: 50, concurrency: 5, warmups: 0, reps: 1, faultReps: 1, faultFiles: 100, retryDelay: 1, maxRetries: 3,
  deepcodeReps: 1, realistic: null, rateLimit: null,
};

/** DeepCode's default request_delay, and ours. */
const REQUEST_DELAY_S = 0.1;

const FAULTS = { rate_limit: 0.2, server_error: 0.05 };
const RETRY_AFTER_S = 1;

/**
 * A target structure, so each file's relationships come in its profiling call. Its size (~2,400 characters)
 * puts DeepCode's prompts near the ~1,440 tokens a file the issue measured.
 */
const TARGET_STRUCTURE = `new-service/
├── package.json                    # scripts, dependencies, engines
├── tsconfig.json                   # strict TypeScript, NodeNext modules
├── src/index.ts                    # public API: re-exports the client, cache and parsers
├── src/cli/main.ts                 # command-line entry: parses flags, runs a command, sets the exit code
├── src/cli/args.ts                 # command-line option parsing with defaults and validation errors
├── src/cli/output.ts               # tables and JSON output for the terminal
├── src/config/schema.ts            # configuration schema with defaults, loaded from YAML and env vars
├── src/config/load.ts              # merges file, environment and flags; reports unknown keys
├── src/http/client.ts              # HTTP client with retries, timeouts, backoff and abort signals
├── src/http/headers.ts             # header normalisation, content negotiation, user agent
├── src/http/errors.ts              # typed HTTP errors carrying status codes and response bodies
├── src/http/stream.ts              # streaming response bodies, server-sent events parsing
├── src/auth/tokens.ts              # API key and bearer token handling, refresh before expiry
├── src/cache/lru.ts                # in-memory LRU cache with TTL and size-based eviction
├── src/cache/disk.ts               # persistent cache on disk keyed by content hash
├── src/parse/yaml.ts               # YAML and JSON document parsing with line-numbered errors
├── src/parse/partialJson.ts        # tolerant parsing of incomplete JSON from a stream
├── src/parse/schema.ts             # JSON schema validation of parsed documents
├── src/queue/limiter.ts            # concurrency limiter and rate limiter for outgoing requests
├── src/queue/batch.ts              # micro-batching of small requests into larger ones
├── src/fs/walk.ts                  # directory walking with ignore files and symlink handling
├── src/fs/watch.ts                 # file watching with debounce
├── src/log/logger.ts               # levelled logging to stderr, JSON lines in CI
├── src/util/uuid.ts                # random identifiers
├── src/util/time.ts                # durations, sleep with abort, monotonic clocks
├── src/util/objects.ts             # deep merge, pick, omit, stable stringify
├── src/types/api.d.ts              # request and response types of the remote API
├── tests/http/client.test.ts       # retries and timeouts against a local fake server
├── tests/cache/lru.test.ts         # eviction order and TTL expiry
├── tests/parse/yaml.test.ts        # parse errors and edge cases
└── README.md                       # install, quick start, configuration table
`;

interface ServerView {
  requests: number;
  maxInFlight: number;
  byOutcome: Record<string, number>;
}

interface Run extends LlmWorkerResult {
  kind: 'cold' | 'warm' | 'clone' | 'faults' | 'fault-free' | 'realistic' | 'ratelimit';
  rep: number;
  server: ServerView;
  /** Ratelimit runs: requests the server's window accepted per minute, first to last. */
  acceptedPerMinute?: number;
}

interface DeepcodeRun extends DeepcodeWorkerResult {
  kind: 'deepcode' | 'deepcode-realistic';
  server: ServerView;
}

export async function benchLlm(options: LlmBenchOptions): Promise<SectionResult> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const corpus = buildCorpus(options.files);
  warmPageCache(corpus);
  const server = await startFakeLlmServer({ latencyMs: options.latencyMs, seed: 1, retryAfterSeconds: RETRY_AFTER_S, respond: deepcodeRespond });
  const runs: Run[] = [];
  const deepcodeRuns: DeepcodeRun[] = [];
  const view = (): ServerView => ({ requests: server.stats.requests, maxInFlight: server.stats.maxInFlight, byOutcome: { ...server.stats.byOutcome } });
  try {
    const measureDeepcode = async (kind: DeepcodeRun['kind'], repo: string, files: number, perCallMs: number): Promise<DeepcodeRun> => {
      server.resetStats();
      const worker: DeepcodeWorkerOptions = { corpus: repo, baseURL: server.openaiBaseUrl, targetStructure: TARGET_STRUCTURE, concurrency: options.concurrency, requestDelay: REQUEST_DELAY_S, maxRetries: 3, retryDelay: 1 };
      const result = await runJsonChild<DeepcodeWorkerResult>('lib/deepcodeWorker.ts', [JSON.stringify(worker)], {
        timeoutMs: 60_000 + ((2 * files + 1) * (perCallMs + 60) * 3) / options.concurrency,
        watch: () => (server.stats.requests > 3 * (2 * files + 1) ? 'too many requests' : null),
      });
      const run: DeepcodeRun = { kind, ...result, server: view() };
      log(`llm ${kind}: ${(run.ms / 1000).toFixed(2)} s, ${run.calls} calls, ${Math.round(run.promptTokens / run.files)} prompt tokens a file`);
      return run;
    };

    const measure = async (kind: Run['kind'], rep: number, repo: string, cacheDir: string, extra: Partial<LlmWorkerOptions> = {}, perCallMs = options.latencyMs): Promise<Run> => {
      server.resetStats();
      const worker: LlmWorkerOptions = {
        corpus: repo,
        baseURL: server.openaiBaseUrl,
        cacheDir,
        concurrency: options.concurrency,
        requestDelay: REQUEST_DELAY_S,
        retryDelay: options.retryDelay,
        maxRetries: options.maxRetries,
        requestTimeout: 60,
        targetStructure: TARGET_STRUCTURE,
        ...extra,
      };
      const files = kind === 'faults' || kind === 'fault-free' ? options.faultFiles : kind === 'realistic' ? (options.realistic?.files ?? 0) : kind === 'ratelimit' ? (options.rateLimit?.files ?? 0) : options.files;
      const maxRequests = files * (options.maxRetries + 1);
      // Worst case under faults: every file fails every try and waits the longest backoff each time.
      const worstPerFileS = (options.maxRetries + 1) * (options.latencyMs / 1000) + Array.from({ length: options.maxRetries }, (_, i) => Math.max(RETRY_AFTER_S, options.retryDelay * 2 ** i)).reduce((a, b) => a + b, 0);
      const timeoutMs =
        30_000 +
        (kind === 'faults' ? (files * worstPerFileS * 1000) / options.concurrency
          : kind === 'ratelimit' ? (files / (options.rateLimit?.rpm ?? 1)) * 60_000 * 2
          : 10 * idealMs(files, { concurrency: options.concurrency, latencyMs: perCallMs }));
      const result = await runJsonChild<LlmWorkerResult>('lib/llmWorker.ts', [JSON.stringify(worker)], {
        timeoutMs,
        watch: () => (server.stats.requests > maxRequests ? `more than ${maxRequests} requests` : null),
      });
      const run: Run = { kind, rep, ...result, server: view() };
      const accepted = server.stats.accepted;
      if (kind === 'ratelimit' && accepted.length > 1) run.acceptedPerMinute = ((accepted.length - 1) / ((accepted[accepted.length - 1] as number) - (accepted[0] as number))) * 60_000;
      log(`llm ${kind}${rep < 0 ? ' (warm-up)' : ` #${rep + 1}`}: ${(run.ms / 1000).toFixed(2)} s, ${run.calls} calls, ${run.retries} retries, ${run.cacheHits} cache hits, lost ${run.lost}`);
      return run;
    };

    for (let rep = -options.warmups; rep < options.reps; rep++) {
      const cacheDir = mkdtempSync(path.join(tmpdir(), 'coderag-bench-cache-'));
      const clone = path.join(WORK_DIR, `llm-clone-${options.files}`, path.basename(corpus));
      try {
        const cold = await measure('cold', rep, corpus, cacheDir);
        if (rep < 0) continue;
        runs.push(cold);
        if (rep < options.deepcodeReps) deepcodeRuns.push(await measureDeepcode('deepcode', corpus, options.files, options.latencyMs));
        runs.push(await measure('warm', rep, corpus, cacheDir));
        cloneWithNewMtimes(corpus, clone);
        runs.push(await measure('clone', rep, clone, cacheDir));
      } finally {
        rmSync(cacheDir, { recursive: true, force: true });
        rmSync(path.dirname(clone), { recursive: true, force: true });
      }
    }

    if (options.realistic) {
      const { files, baseMs, perTokenMs } = options.realistic;
      const small = buildCorpus(files);
      warmPageCache(small);
      // A call's latency grows with its answer: ~2,000 answer tokens for a pack of eight.
      const perCallMs = baseMs + perTokenMs * 2000;
      server.configure({ latencyMs: baseMs, latencyPerTokenMs: perTokenMs });
      const cacheDir = mkdtempSync(path.join(tmpdir(), 'coderag-bench-cache-'));
      try {
        runs.push(await measure('realistic', 0, small, cacheDir, {}, perCallMs));
        deepcodeRuns.push(await measureDeepcode('deepcode-realistic', small, files, baseMs + perTokenMs * 250));
      } finally {
        rmSync(cacheDir, { recursive: true, force: true });
        server.configure({ latencyMs: options.latencyMs, latencyPerTokenMs: 0 });
      }
    }

    if (options.rateLimit) {
      const { files, rpm } = options.rateLimit;
      const small = buildCorpus(files);
      server.configure({ rateLimit: { requestsPerMinute: rpm } });
      const cacheDir = mkdtempSync(path.join(tmpdir(), 'coderag-bench-cache-'));
      try {
        runs.push(await measure('ratelimit', 0, small, cacheDir, { llm: { pack_max_files: 1 }, maxRetries: 6 }));
      } finally {
        rmSync(cacheDir, { recursive: true, force: true });
        server.configure({ rateLimit: null });
      }
    }

    const faultCorpus = options.faultFiles === options.files ? corpus : buildCorpus(options.faultFiles);
    if (faultCorpus !== corpus) {
      warmPageCache(faultCorpus);
      const cacheDir = mkdtempSync(path.join(tmpdir(), 'coderag-bench-cache-'));
      try {
        runs.push(await measure('fault-free', 0, faultCorpus, cacheDir));
      } finally {
        rmSync(cacheDir, { recursive: true, force: true });
      }
    }
    server.configure({ faults: FAULTS, retryAfterSeconds: RETRY_AFTER_S });
    for (let rep = 0; rep < options.faultReps; rep++) {
      server.configure({ seed: 1000 + rep });
      const cacheDir = mkdtempSync(path.join(tmpdir(), 'coderag-bench-cache-'));
      try {
        runs.push(await measure('faults', rep, faultCorpus, cacheDir));
      } finally {
        rmSync(cacheDir, { recursive: true, force: true });
      }
    }
  } finally {
    await server.close();
  }
  return summarise(options, runs, deepcodeRuns, (performance.now() - started) / 1000);
}

function idealMs(calls: number, options: Pick<LlmBenchOptions, 'concurrency' | 'latencyMs'>): number {
  return Math.ceil(calls / options.concurrency) * options.latencyMs;
}

function summarise(options: LlmBenchOptions, runs: Run[], deepcodeRuns: DeepcodeRun[], seconds: number): SectionResult {
  const f = new Figures('llm');
  const findings: string[] = [];
  const of = (kind: Run['kind']) => runs.filter((r) => r.kind === kind);
  const med = (kind: Run['kind'], pick: (r: Run) => number) => median(of(kind).map(pick));
  const cold = of('cold');
  const files = med('cold', (r) => r.walked);
  const n = `median of ${cold.length}`;

  const coldS = med('cold', (r) => r.ms) / 1000;
  const efficiencies = cold.map((r) => idealMs(r.calls, options) / r.ms);
  f.add('files walked', files, 'files', describeRegime(files));
  f.add('cold: wall time', round(coldS, 2), 's', n);
  f.add('cold: ideal ceil(calls/concurrency) × latency', round(median(cold.map((r) => idealMs(r.calls, options))) / 1000, 2), 's', `${options.concurrency} × ${options.latencyMs} ms`);
  f.add('cold: efficiency ideal / wall', round(100 * median(efficiencies), 1), '%', `runs: ${efficiencies.map((e) => (100 * e).toFixed(1)).join(', ')}`);
  f.add('cold: overhead per call (wall − ideal) / calls × concurrency', round(med('cold', (r) => ((r.ms - idealMs(r.calls, options)) / r.calls) * options.concurrency), 1), 'ms');
  const profiledFiles = (r: Run) => r.walked - r.cacheHits;
  f.add('cold: calls per profiled file', round(med('cold', (r) => r.calls / profiledFiles(r)), 3), 'calls/file', 'target <= 0.5');
  f.add('cold: prompt tokens per file, cached ones apart', Math.round(med('cold', (r) => (r.promptTokens - r.cachedPromptTokens) / profiledFiles(r))), 'tokens/file', 'target <= 600; the fake counts 4 characters a token');
  f.add('cold: cached prompt tokens per file', Math.round(med('cold', (r) => r.cachedPromptTokens / profiledFiles(r))), 'tokens/file', 'the shared prefix, once it passes 1,024 tokens');
  f.add('cold: completion tokens per file', Math.round(med('cold', (r) => r.completionTokens / profiledFiles(r))), 'tokens/file');
  f.add('cold: symbols with a description', med('cold', (r) => r.described), 'symbols');
  const deepcode = deepcodeRuns.filter((r) => r.kind === 'deepcode');
  if (deepcode.length > 0) {
    const dcS = median(deepcode.map((r) => r.ms)) / 1000;
    f.add('deepcode: wall time', round(dcS, 2), 's', `its call pattern, same server and files; median of ${deepcode.length}`);
    f.add('deepcode: calls per file', round(median(deepcode.map((r) => r.calls / r.files)), 3), 'calls/file');
    f.add('deepcode: prompt tokens per file', Math.round(median(deepcode.map((r) => r.promptTokens / r.files))), 'tokens/file');
    f.add('cold wall / deepcode wall', round(coldS / dcS, 3), '×', 'target <= 0.25');
    const warmS = med('warm', (r) => r.ms) / 1000;
    f.add('cold wall − warm wall: what the model calls add', round(coldS - warmS, 2), 's', 'warm parses the same files and answers from the cache');
  }
  const realistic = of('realistic');
  const dcRealistic = deepcodeRuns.filter((r) => r.kind === 'deepcode-realistic');
  if (options.realistic && realistic.length > 0 && dcRealistic.length > 0) {
    const { files: rf, baseMs, perTokenMs } = options.realistic;
    const ours = (realistic[0] as Run).ms / 1000;
    const theirs = (dcRealistic[0] as DeepcodeRun).ms / 1000;
    const latency = `${baseMs} ms + ${perTokenMs} ms per answer token, ${rf} files`;
    f.add('realistic: wall time', round(ours, 2), 's', latency);
    f.add('realistic: calls, completion tokens per file', `${(realistic[0] as Run).calls}, ${Math.round((realistic[0] as Run).completionTokens / rf)}`, '');
    f.add('realistic: deepcode wall time', round(theirs, 2), 's', latency);
    f.add('realistic: deepcode calls, completion tokens per file', `${(dcRealistic[0] as DeepcodeRun).calls}, ${Math.round((dcRealistic[0] as DeepcodeRun).completionTokens / rf)}`, '');
    f.add('realistic: wall / deepcode wall', round(ours / theirs, 3), '×');
  }
  const limited = of('ratelimit')[0];
  if (options.rateLimit && limited) {
    const { rpm, files: lf } = options.rateLimit;
    f.add('ratelimit: wall time', round(limited.ms / 1000, 2), 's', `a server allowing ${rpm} requests a minute; ${lf} files, one a call`);
    f.add('ratelimit: 429s', limited.server.byOutcome.rate_limited_window ?? 0, 'answers', `of ${limited.server.requests} requests`);
    f.add('ratelimit: accepted requests per minute', round(limited.acceptedPerMinute ?? 0, 1), 'requests/min', `target >= ${0.9 * rpm} (90% of the limit)`);
    f.add('ratelimit: files lost', limited.lost, 'files', 'must be 0');
  }
  f.add('cold: most requests in flight', Math.max(...cold.map((r) => r.server.maxInFlight)), 'requests', `limit ${options.concurrency}`);
  f.add('cold: peak RSS', med('cold', (r) => r.maxRssMb), 'MB');
  f.add('warm: wall time', round(med('warm', (r) => r.ms) / 1000, 2), 's', 'same repository, same cache');
  f.add('warm: calls', med('warm', (r) => r.calls), 'calls', `${med('warm', (r) => r.cacheHits)} cache hits`);
  f.add('clone: wall time', round(med('clone', (r) => r.ms) / 1000, 2), 's', 'real copy with new mtimes, same cache');
  f.add('clone: calls', med('clone', (r) => r.calls), 'calls', `${med('clone', (r) => r.cacheHits)} cache hits`);

  const faults = of('faults');
  if (faults.length > 0) {
    const faultS = med('faults', (r) => r.ms) / 1000;
    const reference = of('fault-free');
    const referenceS = reference.length > 0 ? med('fault-free', (r) => r.ms) / 1000 : coldS;
    f.add('faults: files', options.faultFiles, 'files', options.faultFiles === options.files ? 'the corpus above' : `the first ${options.faultFiles} files`);
    f.add('faults: wall time', round(faultS, 2), 's', `median of ${faults.length}; 20% 429 (Retry-After ${RETRY_AFTER_S} s), 5% 500`);
    if (reference.length > 0) f.add('faults: fault-free wall time, same files', round(referenceS, 2), 's', 'one cold run');
    f.add('faults: wall / fault-free wall', round(faultS / referenceS, 2), '×');
    f.add('faults: files lost (walked but not in the index)', Math.max(...faults.map((r) => r.lost)), 'files', 'must be 0');
    f.add('faults: files failed with a reason', Math.max(...faults.map((r) => r.byStatus.failed ?? 0)), 'files', 'worst run');
    f.add('faults: requests per file', round(median(faults.map((r) => r.server.requests / r.walked)), 3), 'requests/file');
    f.add('faults: 429 / 500 answers / requests', faults.map((r) => `${r.server.byOutcome.rate_limit ?? 0} / ${r.server.byOutcome.server_error ?? 0} / ${r.server.requests}`).join(', '), '', 'per run');
    f.add('faults: retries', faults.map((r) => r.retries).join(', '), 'retries', 'per run');
    f.add('faults: wall per run', faults.map((r) => (r.ms / 1000).toFixed(1)).join(', '), 's', 'the fault draws differ per run (seeded)');
    f.add('faults: retry policy', `retry_delay ${options.retryDelay} s, max_retries ${options.maxRetries}`, '');
    for (const r of faults) {
      if (r.lost > 0) findings.push(`LLM under faults lost ${r.lost} of ${r.walked} files (run ${r.rep + 1}).`);
      if (r.entries !== r.walked) findings.push(`LLM under faults: the index has ${r.entries} entries for ${r.walked} walked files (run ${r.rep + 1}).`);
      const reasons = Object.entries(r.failedReasons).map(([k, v]) => `${v} × ${k}`).join(', ');
      if (reasons) findings.push(`LLM under faults, run ${r.rep + 1}: files not ok: ${reasons}.`);
    }
  }
  findings.push(`Every run uses llm.request_delay ${REQUEST_DELAY_S} s, the default: a pause per worker after each request, as in DeepCode.`);
  for (const r of runs) {
    if (r.kind !== 'faults' && r.lost > 0) findings.push(`LLM ${r.kind} run ${r.rep + 1} lost ${r.lost} files.`);
    if ((r.kind === 'warm' || r.kind === 'clone') && r.calls > 0) findings.push(`LLM ${r.kind} run ${r.rep + 1} made ${r.calls} calls (expected 0).`);
  }
  if (cold.length > 1 && spread(cold.map((r) => r.ms)) > 1.3) findings.push(`LLM cold runs disagree (slowest / fastest ${spread(cold.map((r) => r.ms)).toFixed(2)}): the machine is noisy.`);
  if (median(efficiencies) < 0.8) findings.push(`LLM cold efficiency is ${(100 * median(efficiencies)).toFixed(0)}%: the pipeline adds ${Math.round(coldS * 1000 - median(cold.map((r) => idealMs(r.calls, options))))} ms to the ideal.`);

  return {
    setup: { ...options, log: undefined, faults: FAULTS, retry_after_s: RETRY_AFTER_S, request_delay_s: REQUEST_DELAY_S, request_timeout_s: 60, target_structure: true },
    figures: f.list,
    runs: { coderag: runs, deepcode: deepcodeRuns },
    findings,
    seconds: round(seconds, 1),
  };
}

export interface TierBenchOptions {
  files: number;
  /** A paid tier's limits, announced in every answer's headers. */
  rpm: number;
  tpm: number;
  regimes: Array<{ name: string; latencyMs: number; perTokenMs: number; perPromptTokenMs: number }>;
  /** CodeRAG alone against a server allowing this many requests a minute (one file a call); null: skip. */
  rateLimit: { files: number; rpm: number } | null;
  log?: (line: string) => void;
}

export const TIER: TierBenchOptions = {
  files: 173,
  rpm: 5000,
  tpm: 2_000_000,
  regimes: [
    { name: 'fixed', latencyMs: 200, perTokenMs: 0, perPromptTokenMs: 0 },
    { name: 'realistic', latencyMs: 400, perTokenMs: 10, perPromptTokenMs: 0.05 },
  ],
  rateLimit: { files: 100, rpm: 120 },
};

interface TierRun {
  regime: string;
  coderag: LlmWorkerResult & { server: ServerView };
  deepcode: (DeepcodeWorkerResult & { server: ServerView }) | null;
}

/** Both tools with their default settings on a server that announces a paid tier's headroom. */
export async function benchTier(options: TierBenchOptions): Promise<SectionResult> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const corpus = buildCorpus(options.files);
  warmPageCache(corpus);
  const tier = { requestsPerMinute: options.rpm, tokensPerMinute: options.tpm };
  const server = await startFakeLlmServer({ seed: 1, retryAfterSeconds: RETRY_AFTER_S, respond: deepcodeRespond, rateLimit: tier });
  const view = (): ServerView => ({ requests: server.stats.requests, maxInFlight: server.stats.maxInFlight, byOutcome: { ...server.stats.byOutcome } });
  const runs: TierRun[] = [];
  let limited: (LlmWorkerResult & { server: ServerView; acceptedPerMinute: number }) | null = null;
  const ours = async (repo: string, files: number, boundMs: number, llm: Record<string, unknown> = {}, maxRetries = 3) => {
    const cacheDir = mkdtempSync(path.join(tmpdir(), 'coderag-bench-cache-'));
    server.resetStats();
    server.resetRateWindow(); // each run starts with the tier's whole minute, not what the previous run left
    try {
      const worker: LlmWorkerOptions = { corpus: repo, baseURL: server.openaiBaseUrl, cacheDir, concurrency: 5, requestDelay: REQUEST_DELAY_S, retryDelay: 1, maxRetries, requestTimeout: 120, targetStructure: TARGET_STRUCTURE, llm };
      const result = await runJsonChild<LlmWorkerResult>('lib/llmWorker.ts', [JSON.stringify(worker)], {
        timeoutMs: boundMs,
        watch: () => (server.stats.requests > files * (maxRetries + 1) ? 'too many requests' : null),
      });
      return { ...result, server: view() };
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  };
  try {
    for (const regime of options.regimes) {
      server.configure({ latencyMs: regime.latencyMs, latencyPerTokenMs: regime.perTokenMs, latencyPerPromptTokenMs: regime.perPromptTokenMs, rateLimit: tier } satisfies Partial<FakeLlmOptions>);
      const coderag = await ours(corpus, options.files, 600_000);
      log(`tier ${regime.name}: coderag ${(coderag.ms / 1000).toFixed(1)} s, ${coderag.calls} calls, peak concurrency ${coderag.highestConcurrency}, ${coderag.server.maxInFlight} in flight at most`);
      server.resetStats();
      server.resetRateWindow();
      const worker: DeepcodeWorkerOptions = { corpus, baseURL: server.openaiBaseUrl, targetStructure: TARGET_STRUCTURE, concurrency: 5, requestDelay: REQUEST_DELAY_S, maxRetries: 3, retryDelay: 1 };
      const deepcode = await runJsonChild<DeepcodeWorkerResult>('lib/deepcodeWorker.ts', [JSON.stringify(worker)], {
        timeoutMs: 900_000,
        watch: () => (server.stats.requests > 3 * (2 * options.files + 1) ? 'too many requests' : null),
      });
      log(`tier ${regime.name}: deepcode ${(deepcode.ms / 1000).toFixed(1)} s, ${deepcode.calls} calls`);
      runs.push({ regime: regime.name, coderag, deepcode: { ...deepcode, server: view() } });
    }
    if (options.rateLimit) {
      const { files, rpm } = options.rateLimit;
      const small = buildCorpus(files);
      server.configure({ latencyMs: 200, latencyPerTokenMs: 0, latencyPerPromptTokenMs: 0, rateLimit: { requestsPerMinute: rpm } });
      const run = await ours(small, files, 30_000 + (files / rpm) * 60_000 * 2, { pack_max_files: 1 }, 6);
      const accepted = server.stats.accepted;
      const acceptedPerMinute = accepted.length > 1 ? ((accepted.length - 1) / ((accepted[accepted.length - 1] as number) - (accepted[0] as number))) * 60_000 : 0;
      limited = { ...run, acceptedPerMinute };
      log(`tier ratelimit: ${(run.ms / 1000).toFixed(1)} s, ${acceptedPerMinute.toFixed(1)} accepted a minute`);
    }
  } finally {
    await server.close();
  }
  const f = new Figures('llm-tier');
  const findings: string[] = [];
  const refused = (v: ServerView) => (v.byOutcome.rate_limited_window ?? 0) + (v.byOutcome.rate_limit ?? 0);
  for (const { regime, coderag, deepcode } of runs) {
    const r = options.regimes.find((x) => x.name === regime);
    const latency = r ? `${r.latencyMs} ms${r.perTokenMs ? ` + ${r.perTokenMs} ms an answer token` : ''}${r.perPromptTokenMs ? ` + ${r.perPromptTokenMs} ms a prompt token` : ''}` : '';
    f.add(`${regime}: coderag wall time`, round(coderag.ms / 1000, 2), 's', `${options.files} files, ${latency}, tier headers`);
    if (deepcode) {
      f.add(`${regime}: deepcode wall time`, round(deepcode.ms / 1000, 2), 's', 'its call pattern, same server and files');
      f.add(`${regime}: coderag wall / deepcode wall`, round(coderag.ms / deepcode.ms, 3), '×', regime === 'fixed' ? 'target <= 0.25' : 'target <= 0.5');
    }
    f.add(`${regime}: calls, files model-profiled`, `${coderag.calls}, ${coderag.modelProfiled} of ${coderag.walked}`, '');
    f.add(`${regime}: answer tokens per file`, Math.round(coderag.completionTokens / Math.max(1, coderag.answeredFiles)), 'tokens/file', deepcode ? `deepcode ${Math.round(deepcode.completionTokens / deepcode.files)}` : undefined);
    f.add(`${regime}: 429s`, refused(coderag.server), 'answers', 'target <= 5');
    f.add(`${regime}: peak concurrency, most in flight`, `${coderag.highestConcurrency}, ${coderag.server.maxInFlight}`, '', `trace ${coderag.concurrencyTrace.slice(0, 24).join(' ')}`);
    if (coderag.lost > 0 || coderag.modelProfiled < coderag.walked) findings.push(`${regime}: ${coderag.walked - coderag.modelProfiled} files not model-profiled (${JSON.stringify(coderag.failedReasons)}), ${coderag.lost} lost.`);
  }
  if (limited && options.rateLimit) {
    f.add('ratelimit: accepted requests per minute', round(limited.acceptedPerMinute, 1), 'requests/min', `target >= ${0.9 * options.rateLimit.rpm}`);
    f.add('ratelimit: 429s', refused(limited.server), 'answers', `of ${limited.server.requests} requests`);
    f.add('ratelimit: files lost, model-profiled', `${limited.lost}, ${limited.modelProfiled} of ${limited.walked}`, '');
  }
  return { setup: { ...options, log: undefined }, figures: f.list, runs: { tier: runs, ratelimit: limited }, findings, seconds: round((performance.now() - started) / 1000, 1) };
}

if (isMain(import.meta.url)) {
  const log = (l: string) => process.stderr.write(`${l}\n`);
  const arg = (flag: string) => {
    const i = process.argv.indexOf(flag);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const files = arg('--files');
  const regimes = arg('--regimes')?.split(',');
  const tier: TierBenchOptions = {
    ...TIER,
    ...(files ? { files: Number(files) } : {}),
    ...(regimes ? { regimes: TIER.regimes.filter((r) => regimes.includes(r.name)), rateLimit: regimes.includes('ratelimit') ? TIER.rateLimit : null } : {}),
    log,
  };
  const result = process.argv.includes('--tier')
    ? await benchTier(tier)
    : await benchLlm({ ...(process.argv.includes('--quick') ? LLM_QUICK : LLM_FULL), log });
  process.stdout.write(`${renderTable(result.figures)}\n\n${result.findings.join('\n')}\n`);
}
