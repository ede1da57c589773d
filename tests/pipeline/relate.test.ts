import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { indexRepo } from '../../src/lib.js';
import { runIndex } from '../../src/pipeline/runIndex.js';
import { makeTempDir } from '../support/tempRepo.js';
import type { CodeSymbol, RepoIndex } from '../../src/index/types.js';
import { confidenceOf, evidenceOf, MAX_STATIC_PER_TARGET, relateStatically, targetQuery } from '../../src/pipeline/relate.js';
import type { Reference, SearchResponse } from '../../src/search/types.js';
import { staticProfile } from '../support/fileSummary.js';

const fn = (name: string, start = 1): CodeSymbol => ({ kind: 'function', name, ast_path: name, start_line: start, end_line: start + 5 });

const FILES = [
  staticProfile('src/cache/lruCache.ts', { symbols: [fn('getEntry'), fn('evictOldest', 10), fn('expireAfterTtl', 20)], summary: 'An LRU cache whose entries expire after a TTL.', vocabulary: 'cache:9 ttl:4 evict:3 entry:3 expire:2' }),
  staticProfile('src/http/router.ts', { symbols: [fn('route'), fn('matchPath', 10)], summary: 'Routes requests to handlers by path.', vocabulary: 'route:8 path:5 handler:4 request:3' }),
  staticProfile('src/log.ts', { symbols: [fn('info'), fn('warn', 10)], summary: 'Writes log lines.', vocabulary: 'log:6 level:3 line:2' }),
  staticProfile('tests/cache.test.ts', { role: 'test', symbols: [fn('testEviction')], summary: 'Tests of the cache.', vocabulary: 'cache:3 test:3 evict:1' }),
];

const settings = defaultConfig().relationships;

describe('a target file as a query', () => {
  it('is its path as the target, and its purpose, telling folders and telling file name as free text', () => {
    expect(targetQuery({ path: 'src/cache/ttl.ts', purpose: 'cache with a TTL' })).toEqual({ target: 'src/cache/ttl.ts', query: 'cache with a TTL cache ttl' });
    expect(targetQuery({ path: 'lib/index.js', purpose: '' })).toEqual({ target: 'lib/index.js', query: '' });
  });

  it('relates a bare tree’s file, with no purpose, by its name and folders', () => {
    const [r] = relateStatically('demo', FILES, [{ path: 'src/http/router_v2.ts', purpose: '' }], settings);
    expect(r).toMatchObject({ repo_file_path: 'src/http/router.ts', target_file_path: 'src/http/router_v2.ts' });
  });
});

describe('the confidence of a static relationship', () => {
  it('grows with the first file’s lead over the second, and stays below the first for later files', () => {
    const first = (lead: number) => confidenceOf({ rank: 0, relative: 1, coverage: 1, lead });
    expect(first(0)).toBeLessThan(first(0.2));
    expect(first(0.2)).toBeLessThan(first(0.6));
    expect(first(0.6)).toBeGreaterThan(0.7);
    expect(first(0.05)).toBeLessThan(0.7);
    expect(confidenceOf({ rank: 1, relative: 1, coverage: 1, lead: 0 })).toBeLessThan(first(0));
    expect(confidenceOf({ rank: 1, relative: 0.6, coverage: 1, lead: 0.4 })).toBeLessThanOrEqual(settings.min_confidence_score);
  });

  it('measures the first file’s lead against the next file that is not another build of the same module', () => {
    const ref = (file_path: string, score: number) => ({ repo_name: 'deps', file_path, score, matched_keywords: ['react'] }) as unknown as Reference;
    const answer = (...references: Reference[]) => ({ keywords_used: ['react'], references }) as unknown as SearchResponse;
    const held = () => true;
    const production = ref('react-is/cjs/react-is.production.js', 1);
    const other = ref('lru-cache/dist/react-native/index.js', 0.7);
    expect(evidenceOf(answer(production, ref('react-is/cjs/react-is.development.js', 0.99), ref('react-is/esm/react-is.js', 0.98), other), 0, held).lead).toBeCloseTo(0.3);
    expect(evidenceOf(answer(production, ref('react-is/cjs/react-dom.js', 0.99), other), 0, held).lead).toBeCloseTo(0.01);
    expect(evidenceOf(answer(production), 0, held).lead).toBe(1);
  });

  it('falls when the file lacks some of the query’s words', () => {
    expect(confidenceOf({ rank: 0, relative: 1, coverage: 0.5, lead: 0.6 })).toBeLessThan(confidenceOf({ rank: 0, relative: 1, coverage: 1, lead: 0.6 }));
  });
});

describe('static relationships of profiled files to a target structure', () => {
  const relationships = relateStatically('demo', FILES, [
    { path: 'src/store/ttl_cache.ts', purpose: 'cache entries that expire after a TTL, evicting the oldest' },
    { path: 'src/http/routes.ts', purpose: 'route requests by path' },
  ], settings);

  it('relate each target to the file that does what its purpose says, with the fields DeepCode reads and source static', () => {
    const cache = relationships.filter((r) => r.target_file_path === 'src/store/ttl_cache.ts').sort((a, b) => b.confidence_score - a.confidence_score)[0];
    expect(cache).toMatchObject({ repo_file_path: 'src/cache/lruCache.ts', source: 'static' });
    expect(Object.keys(settings.relationship_types)).toContain(cache?.relationship_type);
    expect(cache?.helpful_aspects).toEqual(expect.arrayContaining(['expireAfterTtl', 'evictOldest']));
    expect(cache?.usage_suggestions).toContain('before writing src/store/ttl_cache.ts');
    const routes = relationships.filter((r) => r.target_file_path === 'src/http/routes.ts').sort((a, b) => b.confidence_score - a.confidence_score)[0];
    expect(routes?.repo_file_path).toBe('src/http/router.ts');
  });

  it('keep only relationships above min_confidence_score, at most a few a target', () => {
    expect(relationships.every((r) => r.confidence_score > settings.min_confidence_score)).toBe(true);
    // Eight caches alike, every one kept at no threshold: the cap cuts them to MAX_STATIC_PER_TARGET.
    const caches = Array.from({ length: 8 }, (_, i) => staticProfile(`src/cache/c${i}.ts`, { summary: 'A cache with a TTL.', vocabulary: 'cache:5 ttl:3' }));
    expect(relateStatically('demo', caches, [{ path: 'src/ttl_cache.ts', purpose: 'cache with a ttl' }], { ...settings, min_confidence_score: 0 })).toHaveLength(MAX_STATIC_PER_TARGET);
    expect(relateStatically('demo', FILES, [{ path: 'src/x.ts', purpose: 'route' }], { ...settings, min_confidence_score: 0.99 })).toEqual([]);
  });

  it('do not hold against a file the words of a purpose that no file holds', () => {
    const plain = relateStatically('demo', FILES, [{ path: 'src/x.ts', purpose: 'route requests by path' }], settings)[0];
    // "blazing", "fast" and "thoroughly" are in no profile: the router lacks nothing that another file has.
    const boasting = relateStatically('demo', FILES, [{ path: 'src/x.ts', purpose: 'blazing fast, thoroughly route requests by path' }], settings)[0];
    expect(boasting).toMatchObject({ repo_file_path: 'src/http/router.ts', confidence_score: plain?.confidence_score });
    // A word another file holds still counts against the router.
    const lacking = relateStatically('demo', FILES, [{ path: 'src/x.ts', purpose: 'route requests by path, log them' }], settings)[0];
    expect(lacking?.confidence_score).toBeLessThan(plain?.confidence_score as number);
  });

  it('name a test file a utility, and a file of the target’s own name a direct match', () => {
    const [test] = relateStatically('demo', [FILES[3]!], [{ path: 'src/y.ts', purpose: 'cache eviction' }], settings);
    expect(test?.relationship_type).toBe('utility');
    const [same] = relateStatically('demo', FILES, [{ path: 'lib/router.ts', purpose: 'route requests' }], settings);
    expect(same).toMatchObject({ repo_file_path: 'src/http/router.ts', relationship_type: 'direct_match' });
  });

  it('use the configured types when they are not DeepCode’s: the one whose weight is nearest the confidence', () => {
    const [r] = relateStatically('demo', FILES, [{ path: 'lib/router.ts', purpose: 'route requests' }], { ...settings, relationship_types: { strong: 0.9, weak: 0.3 } });
    expect(['strong', 'weak']).toContain(r?.relationship_type);
    expect(r?.relationship_type).toBe(Math.abs(0.9 - (r?.confidence_score ?? 0)) <= Math.abs(0.3 - (r?.confidence_score ?? 0)) ? 'strong' : 'weak');
  });
});

describe("the library's indexRepo with a target structure and no model", () => {
  it('relates statically, as the index a run writes to disk', async () => {
    const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');
    const targetStructure = 'src/cache/ttl_store.ts   # cache entries that expire after a TTL\nlib/routes.js   # route requests by path\n';
    const inMemory = await indexRepo(fixture, { targetStructure, config: { history: { enabled: false } } });
    expect(inMemory.relationships.length).toBeGreaterThan(0);
    expect(inMemory.relationships.every((r) => r.source === 'static')).toBe(true);
    expect(inMemory.analysis_metadata.relationships_source).toBe('static');
    const config = defaultConfig();
    config.history.enabled = false;
    const out = makeTempDir();
    const { written } = await runIndex([fixture], { config, outDir: out, targetStructure });
    const onDisk = JSON.parse(readFileSync(written[0]!.outputPath, 'utf8')) as RepoIndex;
    expect(inMemory.relationships).toEqual(onDisk.relationships);
  }, 60_000);
});
