/**
 * How close the dry run's prompt tokens are to what the following run sends, for both providers, against
 * the fake server (127.0.0.1 only). The sent side is counted from the bodies the server received: for OpenAI
 * with the model's encoding and OpenAI's documented framing (3 tokens a message, 3 to prime the answer) plus
 * the answer schema's JSON; for Anthropic at 4 characters a token, as the dry run labels its estimate.
 *
 *   npm run build && node --import tsx bench/dryRun.ts [repo]      (default: tests/fixtures/polyglot)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { validateConfig } from '../dist/config/load.js';
import { AnthropicProvider } from '../dist/llm/anthropic.js';
import { OpenAiProvider } from '../dist/llm/openai.js';
import { promptTokenCounter } from '../dist/llm/tokens.js';
import { createLlmSession } from '../dist/pipeline/llmSession.js';
import { costOfPlan, planRun } from '../dist/pipeline/modes/dryRun.js';
import { indexRepository } from '../dist/pipeline/runIndex.js';
import { startFakeLlmServer } from '../tests/support/fakeLlmServer.js';

interface Body {
  system?: string;
  messages: Array<{ role: string; content: string }>;
  tools?: unknown[];
  response_format?: { json_schema?: { schema?: unknown } };
}

const repo = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '../tests/fixtures/polyglot'));
const target = 'new-service/\n├── src/cache/ttl_cache.ts\n└── src/http/router.ts\n';
const server = await startFakeLlmServer({ seed: 1 });
const tiktoken = new Tiktoken(o200k);
const sentTokens = {
  openai: (b: Body) => 3 + b.messages.reduce((n, m) => n + 3 + tiktoken.encode(m.role).length + tiktoken.encode(m.content).length, 0) + tiktoken.encode(JSON.stringify(b.response_format?.json_schema?.schema)).length,
  anthropic: (b: Body) => ((b.system ?? '').length + b.messages.reduce((n, m) => n + m.content.length, 0) + JSON.stringify(b.tools).length) / 4,
};
try {
  process.stdout.write(`repository: ${repo}\n| provider | model | requests planned / sent | dry-run prompt tokens | counted from sent bodies | difference | live | batch |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n`);
  for (const kind of ['openai', 'anthropic'] as const) {
    const model = kind === 'openai' ? 'gpt-4o-mini' : 'claude-haiku-4-5';
    const config = validateConfig({ paths: { cache_dir: mkdtempSync(path.join(tmpdir(), 'coderag-dryrun-')) }, llm: { request_delay: 0, model } });
    const provider = () =>
      kind === 'openai'
        ? new OpenAiProvider({ apiKey: 'sk-bench', baseURL: server.openaiBaseUrl, model, timeoutMs: 30_000 })
        : new AnthropicProvider({ apiKey: 'sk-ant-bench', baseURL: server.anthropicBaseUrl, model, timeoutMs: 30_000 });
    const counter = await promptTokenCounter(kind, model);
    const plans = await planRun([repo], { config, llm: createLlmSession({ provider: provider(), config, targetStructure: target }), counter });
    const cost = costOfPlan(plans, config, model, counter);
    server.resetStats();
    await indexRepository(repo, { config, llm: createLlmSession({ provider: provider(), config, targetStructure: target }) });
    const bodies = server.stats.bodies.map((b) => JSON.parse(b) as Body);
    const sent = bodies.reduce((n, b) => n + sentTokens[kind](b), 0);
    const diff = ((cost.promptTokens - sent) / sent) * 100;
    const dollars = (v: number | null) => (v === null ? 'no price' : `$${v.toFixed(4)}`);
    process.stdout.write(`| ${kind} | ${model} | ${cost.requests} / ${bodies.length} | ${cost.promptTokens} (${cost.method}) | ${Math.round(sent)} | ${diff.toFixed(2)}% | ${dollars(cost.live)} | ${dollars(cost.batch)} |\n`);
  }
} finally {
  await server.close();
}
