/**
 * DeepCode's indexing call pattern (see deepcode.ts) in a fresh process, through the real openai SDK
 * against the fake server started by the parent:
 *   node --import tsx bench/lib/deepcodeWorker.ts '<json options>'
 * Prints one JSON line: files, calls, tokens, wall ms.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import fg from 'fast-glob';
import OpenAI from 'openai';
import pLimit from 'p-limit';
import { analysisPrompt, prefilterPrompt, relationshipPrompt, SYSTEM_PROMPT, type DeepcodeSummary } from './deepcode.js';

export interface DeepcodeWorkerOptions {
  corpus: string;
  baseURL: string;
  targetStructure: string;
  /** DeepCode's defaults: 5, 0.1 s, 3 tries, 1 s. */
  concurrency: number;
  requestDelay: number;
  maxRetries: number;
  retryDelay: number;
}

export interface DeepcodeWorkerResult {
  files: number;
  calls: number;
  failedCalls: number;
  promptTokens: number;
  completionTokens: number;
  ms: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as DeepcodeWorkerOptions;
const client = new OpenAI({ apiKey: 'sk-bench-fake-key', baseURL: options.baseURL, maxRetries: 0, timeout: 120_000 });
const totals: DeepcodeWorkerResult = { files: 0, calls: 0, failedCalls: 0, promptTokens: 0, completionTokens: 0, ms: 0 };

/** DeepCode's _call_llm: max_retries attempts, sleeping retry_delay × (attempt + 1) between them. */
async function callLlm(prompt: string): Promise<string> {
  let last: unknown;
  for (let attempt = 0; attempt < options.maxRetries; attempt++) {
    try {
      totals.calls++;
      const completion = await client.chat.completions.create({
        model: 'gpt-fake-1',
        messages: [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: prompt }],
        max_tokens: 4000,
        temperature: 0.3,
      });
      totals.promptTokens += completion.usage?.prompt_tokens ?? 0;
      totals.completionTokens += completion.usage?.completion_tokens ?? 0;
      return completion.choices[0]?.message.content ?? '';
    } catch (error) {
      last = error;
      totals.failedCalls++;
      if (attempt < options.maxRetries - 1) await sleep(options.retryDelay * 1000 * (attempt + 1));
    }
  }
  return `Error: ${String(last)}`;
}

function parse<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

const files = fg.sync('**/*', { cwd: options.corpus, onlyFiles: true, dot: false }).sort();
totals.files = files.length;
const start = performance.now();
await callLlm(prefilterPrompt(files, options.targetStructure));
const semaphore = pLimit(options.concurrency);
await Promise.all(
  files.map((file, i) =>
    semaphore(async () => {
      if (i > 0) await sleep(options.requestDelay * 0.5 * 1000);
      const content = readFileSync(path.join(options.corpus, file), 'utf8');
      const analysis = parse<Partial<DeepcodeSummary>>(await callLlm(analysisPrompt(path.basename(file), content)), {});
      const summary: DeepcodeSummary = {
        file_path: file,
        file_type: analysis.file_type ?? 'unknown',
        main_functions: analysis.main_functions ?? [],
        key_concepts: analysis.key_concepts ?? [],
        summary: analysis.summary ?? '',
      };
      parse(await callLlm(relationshipPrompt(summary, options.targetStructure)), {});
    }),
  ),
);
totals.ms = performance.now() - start;
process.stdout.write(`${JSON.stringify(totals)}\n`);
