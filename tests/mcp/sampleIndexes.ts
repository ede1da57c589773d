/**
 * Small hand-written RepoIndex files for the MCP tests that do not need the built CLI.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

export function sampleIndex(repo: string, files: { path: string; summary: string; functions: string[]; concepts: string[] }[]) {
  return {
    repo_name: repo,
    total_files: files.length,
    file_summaries: files.map((f) => ({
      file_path: f.path,
      file_type: 'TypeScript source',
      main_functions: f.functions,
      key_concepts: f.concepts,
      dependencies: [],
      summary: f.summary,
      lines_of_code: 10,
      last_modified: '',
      language: 'TypeScript',
      role: 'source',
      status: 'ok',
      symbols: f.functions.map((name, i) => ({ kind: 'function', name, ast_path: name, start_line: i * 10 + 1, end_line: i * 10 + 8 })),
    })),
    relationships: [],
  };
}

export const CACHE_REPO = sampleIndex('cachelib', [
  { path: 'src/lruCache.ts', summary: 'A least-recently-used cache with a time to live.', functions: ['createCache', 'setTtl'], concepts: ['cache', 'ttl', 'evict'] },
  { path: 'src/clock.ts', summary: 'A clock that can be faked.', functions: ['now'], concepts: ['clock', 'time'] },
]);

export const LIMITER_REPO = sampleIndex('limiter', [
  { path: 'src/tokenBucket.ts', summary: 'A token bucket rate limiter.', functions: ['takeToken', 'refillBucket'], concepts: ['rate', 'limit', 'token', 'bucket'] },
]);

export function writeIndex(dir: string, name: string, index: unknown): string {
  const file = path.join(dir, `${name}_index.json`);
  writeFileSync(file, typeof index === 'string' ? index : JSON.stringify(index));
  return file;
}
