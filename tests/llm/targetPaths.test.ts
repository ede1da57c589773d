import { describe, expect, it } from 'vitest';
import { targetFiles } from '../../src/llm/targetPaths.js';

const TREE = `new-service/
├── package.json                 # scripts
├── src/cache/ttl_cache.ts       # cache with per-entry TTL
├── src/http/router.ts           # request routing
├── src/store/kv.py
└── README.md
`;

const NESTED = `project/
├── src/
│   ├── index.ts
│   └── cache/
│       ├── lru.ts
│       └── disk.ts
├── tests/
│   └── lru.test.ts
└── Dockerfile
`;

const PLAN = `# Target structure

Request: a cache with TTL

Files to write, one per line: path, then its purpose and the indexed code it draws on.

\`\`\`text
src/cache/ttl.ts   # the cache (draws on: src/cache/lruCache.ts)
src/index.ts       # exports
\`\`\`
`;

describe('the files of a target structure', () => {
  it('reads a drawn tree, leaving out its top folder', () => {
    const files = targetFiles(TREE);
    expect(files.size).toBe(5);
    expect(files.resolve('src/cache/ttl_cache.ts')).toBe('src/cache/ttl_cache.ts');
  });

  it('reads a nested tree, joining folders to the files below them', () => {
    const files = targetFiles(NESTED);
    expect(files.size).toBe(5);
    expect(files.resolve('src/cache/lru.ts')).toBe('src/cache/lru.ts');
    expect(files.resolve('project/src/cache/disk.ts')).toBe('src/cache/disk.ts');
    expect(files.resolve('Dockerfile')).toBe('Dockerfile');
  });

  it("reads coderag plan's one path a line, and nothing of its prose", () => {
    const files = targetFiles(PLAN);
    expect(files.size).toBe(2);
    expect(files.resolve('src/cache/ttl.ts')).toBe('src/cache/ttl.ts');
    expect(files.resolve('src/cache/lruCache.ts')).toBeNull();
  });

  it.each([
    ['./src/cache/ttl_cache.ts', 'src/cache/ttl_cache.ts'],
    ['src/cache/ttl_cache.TS', 'src/cache/ttl_cache.ts'],
    ['new-service/src/http/router.ts', 'src/http/router.ts'],
    ['./new-service/src/http/router.ts', 'src/http/router.ts'],
    ['http/router.ts', 'src/http/router.ts'],
    ['src\\store\\kv.py', 'src/store/kv.py'],
    ['`README.md`', 'README.md'],
    ['Node.js', null],
    ['./option.js', null],
    ['tsconfig.js.json', null],
    ['src/cache/ttl_cache', null],
    ['../src/http/router.ts', null],
    ['src/', null],
  ])('resolves %s to %s', (raw, expected) => {
    expect(targetFiles(TREE).resolve(raw)).toBe(expected);
  });

  it('resolves a tail only when one file has it', () => {
    const files = targetFiles('a/index.ts\nb/index.ts\n');
    expect(files.resolve('index.ts')).toBeNull();
    expect(files.resolve('a/index.ts')).toBe('a/index.ts');
  });

  it("keeps what each file's line says of it, whatever marks the comment, and nothing for a bare path", () => {
    expect(targetFiles(TREE).list()).toEqual([
      { path: 'package.json', purpose: 'scripts' },
      { path: 'src/cache/ttl_cache.ts', purpose: 'cache with per-entry TTL' },
      { path: 'src/http/router.ts', purpose: 'request routing' },
      { path: 'src/store/kv.py', purpose: '' },
      { path: 'README.md', purpose: '' },
    ]);
    expect(targetFiles(PLAN).list()[0]).toEqual({ path: 'src/cache/ttl.ts', purpose: 'the cache (draws on: src/cache/lruCache.ts)' });
    expect(targetFiles('a.ts // parses args\nb.ts - prints help\nc.ts: reads config\nd.ts — logs\n').list().map((f) => f.purpose)).toEqual(['parses args', 'prints help', 'reads config', 'logs']);
  });
});
