/**
 * Runs extraction jobs on worker threads so parsing uses every core, or in the main thread when workers are
 * off (size 0) or unavailable (running from TypeScript sources, as tests do). Callers see one interface.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ReadFile } from './classify.js';
import type { WalkedFile } from './walkedFile.js';
import { runExtractJob, type ExtractJobOptions, type ExtractResult } from './extractJob.js';
import type { WorkerRequest } from './extractWorker.js';
import { RepoFileSet } from './imports.js';
import { ParserPool } from './parser.js';
import { WordCache } from './wordCache.js';

type WorkerReply = { id: number; result: ExtractResult } | { id: number; error: string };

interface Pending {
  resolve: (result: ExtractResult) => void;
  reject: (error: Error) => void;
}

/** The compiled worker beside this module; absent when this module runs from its TypeScript source. */
const WORKER_FILE = fileURLToPath(new URL('./extractWorker.js', import.meta.url));

export function defaultWorkerCount(): number {
  return Math.max(1, Math.min(availableParallelism(), 8));
}

/**
 * An extraction thread's young generation. A job's garbage is short-lived (a file's text, its tree's nodes,
 * its reply), and V8's default (48 MB a thread) only holds more of it between scavenges: 16 MB takes about
 * 40 MB off two threads' peak RSS with no measurable change in CPU time (5,000 files).
 */
const WORKER_YOUNG_GENERATION_MB = 16;

/** Below this many files, starting workers (each compiling its grammars) costs more than it saves. */
export const MIN_FILES_FOR_WORKERS = 400;

export class ExtractorPool {
  private readonly workers: Worker[] = [];
  private readonly load: number[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private readonly local: { parsers: ParserPool; repoFiles: RepoFileSet; words: WordCache; readFile?: ReadFile };
  private readonly canUseWorkers: boolean;
  /** Whether the current repository's jobs go to the workers. */
  private useWorkers = false;
  private options: ExtractJobOptions | null = null;

  /**
   * Up to `size` workers, started when a repository is large enough to repay them; 0, an injected
   * `readFile`, or a missing compiled worker means in-process extraction throughout.
   */
  constructor(private readonly size: number, readFile?: ReadFile) {
    this.canUseWorkers = size > 0 && !readFile && import.meta.url.endsWith('.js') && existsSync(WORKER_FILE);
    this.local = { parsers: new ParserPool(), repoFiles: new RepoFileSet([]), words: new WordCache(), ...(readFile ? { readFile } : {}) };
  }

  get threads(): number {
    return this.useWorkers ? this.workers.length : 0;
  }

  /**
   * The repository the next jobs belong to: its file list resolves imports, and the number of files to
   * extract (all of them unless said) picks threads or not.
   */
  setRepository(files: string[], goModule: string | null, options: ExtractJobOptions, jobs: number = files.length): void {
    this.options = options;
    this.useWorkers = this.canUseWorkers && jobs >= MIN_FILES_FOR_WORKERS;
    if (!this.useWorkers) {
      this.local.repoFiles = new RepoFileSet(files);
      this.local.repoFiles.goModule = goModule;
      return;
    }
    this.startWorkers();
    const message: WorkerRequest = { type: 'repo', files, goModule, options };
    for (const worker of this.workers) worker.postMessage(message);
  }

  private startWorkers(): void {
    for (let i = this.workers.length; i < this.size; i++) {
      const worker = new Worker(WORKER_FILE, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
      worker.on('message', (replies: string) => {
        for (const reply of JSON.parse(replies) as WorkerReply[]) this.settle(i, reply);
      });
      worker.on('error', (error) => this.failAll(error));
      worker.unref();
      this.workers.push(worker);
      this.load.push(0);
    }
  }

  run(file: WalkedFile): Promise<ExtractResult> {
    if (!this.options) return Promise.reject(new Error('setRepository must come before run'));
    if (!this.useWorkers) return runExtractJob(file, this.options, this.local);
    const slot = this.load.indexOf(Math.min(...this.load));
    const id = this.nextId++;
    this.load[slot] = (this.load[slot] ?? 0) + 1;
    // A busy worker keeps the process alive until its answer arrives; an idle one never does.
    if (this.load[slot] === 1) this.workers[slot]?.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      (this.workers[slot] as Worker).postMessage({ type: 'job', id, file } satisfies WorkerRequest);
    });
  }

  private settle(slot: number, reply: WorkerReply): void {
    this.load[slot] = Math.max(0, (this.load[slot] ?? 1) - 1);
    if (this.load[slot] === 0) this.workers[slot]?.unref();
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if ('error' in reply) pending.reject(new Error(reply.error));
    else pending.resolve(reply.result);
  }

  private failAll(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  async close(): Promise<void> {
    await this.local.parsers.dispose();
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}
