/**
 * The LLM pipeline against the fake OpenAI-compatible server (127.0.0.1 only) with a fixed latency:
 *   cold    a fresh cache: wall time beside the ideal, ceil(calls / concurrency) × latency
 *   warm    the same repository again with the same cache (a second run)
 *   clone   a real copy with new mtimes, same cache (a CI clone of an unchanged repository)
 *   faults  a fresh cache with 20% 429s (Retry-After 1 s) and 5% 500s: wall time against cold, files lost
 *
 * The server runs in this process; each pipeline run is a fresh child (bench/lib/llmWorker.ts), killed past a
 * time bound or when the server has seen more requests than files × (max_retries + 1).
 *
 *   node --import tsx bench/llm.ts [--quick]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeLlmServer } from '../tests/support/fakeLlmServer.js';
import { isMain, runJsonChild } from './lib/child.js';
import { WORK_DIR, buildCorpus, cloneWithNewMtimes, warmPageCache } from './lib/corpus.js';
import { Figures, renderTable, type SectionResult } from './lib/figures.js';
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
  log?: (line: string) => void;
}

export const LLM_FULL: LlmBenchOptions = { files: 300, latencyMs: 200, concurrency: 5, warmups: 1, reps: 3, faultReps: 2, faultFiles: 300, retryDelay: 1, maxRetries: 3 };
/** Quick: the fault runs take 100 files, since every 429 holds a slot for a second whatever the latency. */
export const LLM_QUICK: LlmBenchOptions = { files: 300, latencyMs: 50, concurrency: 5, warmups: 0, reps: 1, faultReps: 1, faultFiles: 100, retryDelay: 1, maxRetries: 3 };

const FAULTS = { rate_limit: 0.2, server_error: 0.05 };
const RETRY_AFTER_S = 1;

/** A target structure, so each file's relationships come in its profiling call: one call per file. */
const TARGET_STRUCTURE = `new-service/
├── src/http/client.ts        # HTTP client with retries and timeouts
├── src/cli/args.ts           # command-line option parsing
├── src/cache/lru.ts          # in-memory LRU cache with TTL
└── src/parse/yaml.ts         # YAML and JSON document parsing
`;

interface ServerView {
  requests: number;
  maxInFlight: number;
  byOutcome: Record<string, number>;
}

interface Run extends LlmWorkerResult {
  kind: 'cold' | 'warm' | 'clone' | 'faults' | 'fault-free';
  rep: number;
  server: ServerView;
}

export async function benchLlm(options: LlmBenchOptions): Promise<SectionResult> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const corpus = buildCorpus(options.files);
  warmPageCache(corpus);
  const server = await startFakeLlmServer({ latencyMs: options.latencyMs, seed: 1, retryAfterSeconds: RETRY_AFTER_S });
  const runs: Run[] = [];
  try {
    const measure = async (kind: Run['kind'], rep: number, repo: string, cacheDir: string): Promise<Run> => {
      server.resetStats();
      const worker: LlmWorkerOptions = {
        corpus: repo,
        baseURL: server.openaiBaseUrl,
        cacheDir,
        concurrency: options.concurrency,
        requestDelay: 0,
        retryDelay: options.retryDelay,
        maxRetries: options.maxRetries,
        requestTimeout: 30,
        targetStructure: TARGET_STRUCTURE,
      };
      const files = kind === 'faults' || kind === 'fault-free' ? options.faultFiles : options.files;
      const maxRequests = files * (options.maxRetries + 1);
      // Worst case under faults: every file fails every try and waits the longest backoff each time.
      const worstPerFileS = (options.maxRetries + 1) * (options.latencyMs / 1000) + Array.from({ length: options.maxRetries }, (_, i) => Math.max(RETRY_AFTER_S, options.retryDelay * 2 ** i)).reduce((a, b) => a + b, 0);
      const timeoutMs = 30_000 + (kind === 'faults' ? (files * worstPerFileS * 1000) / options.concurrency : 10 * idealMs(files, options));
      const result = await runJsonChild<LlmWorkerResult>('lib/llmWorker.ts', [JSON.stringify(worker)], {
        timeoutMs,
        watch: () => (server.stats.requests > maxRequests ? `more than ${maxRequests} requests` : null),
      });
      const run: Run = {
        kind,
        rep,
        ...result,
        server: { requests: server.stats.requests, maxInFlight: server.stats.maxInFlight, byOutcome: { ...server.stats.byOutcome } },
      };
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
        runs.push(await measure('warm', rep, corpus, cacheDir));
        cloneWithNewMtimes(corpus, clone);
        runs.push(await measure('clone', rep, clone, cacheDir));
      } finally {
        rmSync(cacheDir, { recursive: true, force: true });
        rmSync(path.dirname(clone), { recursive: true, force: true });
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
  return summarise(options, runs, (performance.now() - started) / 1000);
}

function idealMs(calls: number, options: Pick<LlmBenchOptions, 'concurrency' | 'latencyMs'>): number {
  return Math.ceil(calls / options.concurrency) * options.latencyMs;
}

function summarise(options: LlmBenchOptions, runs: Run[], seconds: number): SectionResult {
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
  f.add('cold: calls per file', round(med('cold', (r) => r.calls / r.walked), 3), 'calls/file');
  f.add('cold: prompt tokens per file', Math.round(med('cold', (r) => r.promptTokens / r.walked)), 'tokens/file', 'the fake counts 4 characters a token');
  f.add('cold: completion tokens per file', Math.round(med('cold', (r) => r.completionTokens / r.walked)), 'tokens/file');
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
  findings.push(`llm.request_delay is set to 0 for every LLM run: it spaces request starts across the whole run and would otherwise cap throughput at 1 / request_delay requests per second (10/s by default).`);
  for (const r of runs) {
    if (r.kind !== 'faults' && r.lost > 0) findings.push(`LLM ${r.kind} run ${r.rep + 1} lost ${r.lost} files.`);
    if ((r.kind === 'warm' || r.kind === 'clone') && r.calls > 0) findings.push(`LLM ${r.kind} run ${r.rep + 1} made ${r.calls} calls (expected 0).`);
  }
  if (cold.length > 1 && spread(cold.map((r) => r.ms)) > 1.3) findings.push(`LLM cold runs disagree (slowest / fastest ${spread(cold.map((r) => r.ms)).toFixed(2)}): the machine is noisy.`);
  if (median(efficiencies) < 0.8) findings.push(`LLM cold efficiency is ${(100 * median(efficiencies)).toFixed(0)}%: the pipeline adds ${Math.round(coldS * 1000 - median(cold.map((r) => idealMs(r.calls, options))))} ms to the ideal.`);

  return {
    setup: { ...options, log: undefined, faults: FAULTS, retry_after_s: RETRY_AFTER_S, request_delay_s: 0, request_timeout_s: 30, target_structure: true },
    figures: f.list,
    runs,
    findings,
    seconds: round(seconds, 1),
  };
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  const result = await benchLlm({ ...(quick ? LLM_QUICK : LLM_FULL), log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(`${renderTable(result.figures)}\n\n${result.findings.join('\n')}\n`);
}
