/**
 * Scripted planning turns for the fake LLM server's `respond` hook: the answer to a plan request is chosen by
 * how many author answers its prompt already holds, so a resumed conversation gets the turn it would have got.
 * Other requests (profiles while indexing) fall through to the server's schema-driven answers.
 */
import type { FakeRequest } from '../support/fakeLlmServer.js';

export type ScriptedTurn =
  | { kind: 'question'; message: string }
  | { kind: 'proposal'; message: string; files: Array<{ path: string; purpose: string; draws_on: string[] }> };

export const question = (message: string): ScriptedTurn => ({ kind: 'question', message });

export const proposal = (files: Record<string, string>, message = 'Here is the structure.'): ScriptedTurn => ({
  kind: 'proposal',
  message,
  files: Object.entries(files).map(([path, purpose]) => ({ path, purpose, draws_on: [] })),
});

export const CACHE_PLAN = proposal({
  'src/cache/ttlCache.ts': 'An LRU cache whose entries expire after a time to live',
  'src/cache/clock.ts': 'A clock the cache reads, replaceable in tests',
  'src/http/server.ts': 'An HTTP endpoint that serves cached values',
});

export function isPlanRequest(req: FakeRequest): boolean {
  return req.prompt.includes('You are planning a software project');
}

export function answersIn(req: FakeRequest): number {
  return req.prompt.split('The author answered:').length - 1;
}

/** A respond hook playing `turns` in order; a last-turn request gets the script's last proposal. */
export function planScript(turns: readonly ScriptedTurn[]): (req: FakeRequest) => unknown {
  return (req) => {
    if (!isPlanRequest(req)) return undefined;
    if (req.prompt.includes('This is the last turn')) return [...turns].reverse().find((t) => t.kind === 'proposal');
    return turns[Math.min(answersIn(req), turns.length - 1)];
  };
}
