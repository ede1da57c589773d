/**
 * An extraction worker: its own parser pool, the current repository's file list, and a loop answering
 * jobs. Only loaded as compiled JavaScript (see ExtractorPool).
 */
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { RepoFileSet } from './imports.js';
import { ParserPool } from './parser.js';
import { WordCache } from './wordCache.js';
import { runExtractJob, type ExtractJobOptions } from './extractJob.js';
import type { WalkedFile } from './walkedFile.js';

export type WorkerRequest =
  | { type: 'repo'; files: string[]; goModule: string | null; options: ExtractJobOptions }
  | { type: 'job'; id: number; file: WalkedFile };

const port = parentPort;
if (!port) throw new Error('extractWorker must run in a worker thread');

const parsers = new ParserPool();
const words = new WordCache();
let repoFiles = new RepoFileSet([]);
let options: ExtractJobOptions | null = null;
/**
 * Files are read synchronously: a worker has one job at a time to wait for, and the promise-based read
 * (open, stat, read, close, each a trip through libuv's pool) cost several times the read itself.
 */
const readFile = async (file: string): Promise<Buffer> => readFileSync(file);

port.on('message', (message: WorkerRequest) => {
  if (message.type === 'repo') {
    repoFiles = new RepoFileSet(message.files);
    repoFiles.goModule = message.goModule;
    options = message.options;
    return;
  }
  const jobOptions = options;
  if (!jobOptions) {
    reply(JSON.stringify({ id: message.id, error: 'no repository set before the first job' }));
    return;
  }
  runExtractJob(message.file, jobOptions, { parsers, repoFiles, words, readFile }).then(
    (result) => reply(JSON.stringify({ id: message.id, result })),
    (error: unknown) => reply(JSON.stringify({ id: message.id, error: error instanceof Error ? error.message : String(error) })),
  );
});

/**
 * Replies travel as JSON text (one string copy instead of a structured clone of many small objects; the main
 * thread, which parses it, is otherwise idle), gathered into one message for the jobs that were waiting
 * together: each message wakes the main thread, and on a machine with as many threads as cores every wake-up
 * takes a core from an extraction thread. A batch goes out once the jobs waiting are done, or at BATCH replies.
 */
const BATCH = 4;
const replies: string[] = [];
let flushQueued = false;

function reply(json: string): void {
  replies.push(json);
  if (replies.length >= BATCH) flush();
  else if (!flushQueued) {
    flushQueued = true;
    setImmediate(flush);
  }
}

function flush(): void {
  flushQueued = false;
  if (replies.length === 0) return;
  port?.postMessage(`[${replies.join(',')}]`);
  replies.length = 0;
}
