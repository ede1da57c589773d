import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/config/load.js';
import { OpenAiProvider } from '../../../src/llm/openai.js';
import type { PromptTokenCounter } from '../../../src/llm/tokens.js';
import type { IndexEvent } from '../../../src/pipeline/events.js';
import { createLlmSession } from '../../../src/pipeline/llmSession.js';
import { costOfPlan, planRun } from '../../../src/pipeline/modes/dryRun.js';
import { makeTempDir, makeTempRepo } from '../../support/tempRepo.js';

/** Ten tokens a request, whatever it holds: what is counted is which requests there are. */
const counter: PromptTokenCounter = { exact: false, method: 'ten a request', count: () => 10 };

describe('a dry run', () => {
  it('lists the requests a run would send, once per content, and sends none', async () => {
    const repo = makeTempRepo({
      'src/a.ts': 'export function a() { return 1; }\n',
      'src/copy-of-a.ts': 'export function a() { return 1; }\n',
      'src/b.ts': 'export function b() { return 2; }\n',
    });
    const config = validateConfig({ paths: { cache_dir: makeTempDir('coderag-cache-') }, llm: { pack_max_files: 1 } });
    // Nothing listens there: a request sent would fail the test.
    const provider = new OpenAiProvider({ apiKey: 'sk-none', baseURL: 'http://127.0.0.1:9/v1', model: 'gpt-4o-mini', timeoutMs: 100 });
    const llm = createLlmSession({ provider, config, prefilter: true });
    const events: IndexEvent[] = [];

    const [plan] = await planRun([repo.root], { config, llm, counter, onEvent: (e) => events.push(e) });

    expect(plan).toMatchObject({ profiled: 3, cached: 0, duplicates: 1 });
    expect(plan!.requests).toHaveLength(2);
    expect(events).toContainEqual({ type: 'warning', message: 'the pre-filter is not run when planning; every file is counted as selected' });
    const cost = costOfPlan([plan!], config, 'gpt-4o-mini', counter);
    expect(cost).toMatchObject({ files: 2, requests: 2, promptTokens: 20, exact: false, method: 'ten a request' });
  });
});
