/**
 * Relationships without a model, as a user gets them: `coderag index --target-structure` with no key, then
 * `coderag search --target` and the MCP server over stdio reading the index it wrote.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileRelationship, RepoIndex } from '../../src/index/types.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { makeTempDir } from '../support/tempRepo.js';
import { connectMcp } from '../support/mcpClient.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');

const STRUCTURE = `new-service/
├── src/cache/ttl_store.ts      # cache entries that expire after a TTL, evicting the least recently used
├── src/http/routes.js          # route requests to handlers by path
└── src/billing/invoice.rb      # invoices and their line items
`;

/** The environment of a user with no model configured: no key, no base URL. */
function offline(): NodeJS.ProcessEnv {
  const env = cleanEnv();
  expect(Object.keys(env).filter((k) => /^(ANTHROPIC_API_KEY|OPENAI_API_KEY|OPENAI_BASE_URL)$/.test(k))).toEqual([]);
  return env;
}

function readIndex(out: string): RepoIndex {
  return JSON.parse(readFileSync(path.join(out, 'polyglot_index.json'), 'utf8')) as RepoIndex;
}

/** Each target's relationship of highest confidence. */
function best(relationships: readonly FileRelationship[]): Record<string, string> {
  const top: Record<string, FileRelationship> = {};
  for (const r of relationships) if (!top[r.target_file_path] || r.confidence_score > (top[r.target_file_path]?.confidence_score ?? 0)) top[r.target_file_path] = r;
  return Object.fromEntries(Object.entries(top).map(([t, r]) => [t, r.repo_file_path]));
}

describe('coderag index --target-structure with no model', () => {
  const out = makeTempDir();
  const cwd = makeTempDir();
  const target = path.join(makeTempDir(), 'target.txt');
  writeFileSync(target, STRUCTURE);
  let run: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    run = await runCli(['index', fixture, '--out', out, '--target-structure', target, '--json'], { cwd, env: offline() });
  }, 60_000);

  it('profiles offline and relates each target file to the file that does what its line says', () => {
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('profiles: static');
    expect(best(readIndex(out).relationships)).toEqual({
      'src/cache/ttl_store.ts': 'src/cache/lruCache.ts',
      'src/http/routes.js': 'lib/router.js',
      'src/billing/invoice.rb': 'lib/billing.rb',
    });
  });

  it("writes DeepCode's relationship fields, source static, with types of the configuration and the matching definitions as aspects", () => {
    const index = readIndex(out);
    for (const r of index.relationships) {
      expect(Object.keys(r)).toEqual(['repo_file_path', 'target_file_path', 'relationship_type', 'confidence_score', 'helpful_aspects', 'potential_contributions', 'usage_suggestions', 'source']);
      expect(r.source).toBe('static');
      expect(['direct_match', 'partial_match', 'reference', 'utility']).toContain(r.relationship_type);
      expect(r.confidence_score).toBeGreaterThan(0.3);
      expect(r.confidence_score).toBeLessThanOrEqual(1);
    }
    const cache = index.relationships.find((r) => r.repo_file_path === 'src/cache/lruCache.ts' && r.target_file_path === 'src/cache/ttl_store.ts');
    expect(cache?.helpful_aspects.length).toBeGreaterThan(0);
    const symbols = index.file_summaries.find((f) => f.file_path === 'src/cache/lruCache.ts')?.symbols.map((s) => s.ast_path.replace(/-/g, '.'));
    for (const aspect of cache?.helpful_aspects ?? []) expect(symbols).toContain(aspect);
  });

  it('fills the metadata honestly and says in the --json summary that the relationships were inferred statically', () => {
    const { analysis_metadata: meta, relationships } = readIndex(out);
    expect(meta).toMatchObject({ provider: 'static', relationships_source: 'static', total_relationships_found: relationships.length });
    expect(meta.high_confidence_relationships).toBe(relationships.filter((r) => r.confidence_score > 0.7).length);
    expect(meta.target_structure_analyzed).toContain('ttl_store.ts');
    const summary = JSON.parse(run.stdout);
    expect(summary.repositories[0]).toMatchObject({ relationships_source: 'static', total_relationships: relationships.length, high_confidence_relationships: meta.high_confidence_relationships });
  });

  it('says so in the closing line without --json', async () => {
    const again = await runCli(['index', fixture, '--out', makeTempDir(), '--target-structure', target], { cwd, env: offline() });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/\n {2}relationships inferred statically \(no model\): \d+ to 3 target files, \d+ above 0\.7 confidence\n/);
  });

  it('reads relationships.target_structure_file from the config as it reads the flag', async () => {
    const config = path.join(makeTempDir(), 'indexer_config.yaml');
    writeFileSync(config, `relationships:\n  target_structure_file: ${JSON.stringify(target)}\n`);
    const second = makeTempDir();
    const result = await runCli(['index', fixture, '--out', second, '--config', config], { cwd, env: offline() });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('needs a model');
    expect(readIndex(second).relationships).toEqual(readIndex(out).relationships);
  });

  it('infers the same relationships again when a second run reuses every entry, and leaves the index as it stood', async () => {
    const before = readFileSync(path.join(out, 'polyglot_index.json'));
    const again = await runCli(['index', fixture, '--out', out, '--target-structure', target], { cwd, env: offline() });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('index unchanged, not written');
    expect(readFileSync(path.join(out, 'polyglot_index.json'))).toEqual(before);
  });

  it('writes the relationships of a new target structure in a run that reuses every entry', async () => {
    const reused = makeTempDir();
    await runCli(['index', fixture, '--out', reused, '--target-structure', target], { cwd, env: offline() });
    const other = path.join(makeTempDir(), 'other.txt');
    writeFileSync(other, 'src/sched/limiter.go   # rate limit requests with a token bucket\n');
    const again = await runCli(['index', fixture, '--out', reused, '--target-structure', other], { cwd, env: offline() });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('index unchanged');
    expect(best(readIndex(reused).relationships)).toEqual({ 'src/sched/limiter.go': 'pkg/store/ratelimit.go' });
  });

  it("infers none for a shard's partial index, and says why", async () => {
    const shard = makeTempDir();
    const result = await runCli(['index', fixture, '--out', shard, '--target-structure', target, '--shard', '1/2'], { cwd, env: offline() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("warning: polyglot: relationships are not inferred for a shard's partial index without a model");
    const partial = JSON.parse(readFileSync(path.join(shard, 'polyglot_index.shard-1-of-2.json'), 'utf8')) as RepoIndex;
    expect(partial.relationships).toEqual([]);
    expect(partial.analysis_metadata.relationships_source).toBeUndefined();
  });

  it('answers search --target with the target file’s static relationships, in markdown and JSON', async () => {
    const markdown = await runCli(['search', '--indexes', out, '--target', 'src/cache/ttl_store.ts', '--keywords', 'ttl'], { cwd, env: offline() });
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain('## 🎯 Direct Relationships');
    expect(markdown.stdout).toContain('### 1. src/cache/lruCache.ts');
    expect(markdown.stdout).toMatch(/\*\*Confidence Score\*\*: \d\.\d\d \(inferred statically, without a model\)/);
    const json = JSON.parse((await runCli(['search', '--indexes', out, '--target', 'src/cache/ttl_store.ts', '--keywords', 'ttl', '--json'], { cwd, env: offline() })).stdout);
    expect(json.total_relationships_found).toBeGreaterThan(0);
    expect(json.relationships[0]).toMatchObject({ repo_name: 'polyglot', repo_file_path: 'src/cache/lruCache.ts', target_file_path: 'src/cache/ttl_store.ts', source: 'static' });
    expect(json.references[0].file_path).toBe('src/cache/lruCache.ts');
  });

  describe('through the MCP server', () => {
    let client: Client;
    let stderr: () => string;

    beforeAll(async () => {
      ({ client, stderr } = await connectMcp(out, { cwd, env: offline() }));
    }, 30_000);

    afterAll(async () => {
      await client?.close();
    }, 10_000);

    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 10_000 });
      const [block] = result.content as { type: string; text: string }[];
      return JSON.parse(block?.text ?? '{}') as Record<string, unknown>;
    };

    it("search_code_references gives the target's static relationships, as DeepCode's tool gives a model's", async () => {
      const json = await call('search_code_references', { target_file: 'src/http/routes.js', keywords: 'route' });
      expect(json.total_relationships_found).toBeGreaterThan(0);
      expect((json.relationships as FileRelationship[])[0]).toMatchObject({ repo_file_path: 'lib/router.js', source: 'static' });
      expect(json.formatted_content).toContain('(inferred statically, without a model)');
      expect(stderr()).not.toContain('error');
    });

    it('get_indexes_overview counts the static relationships', async () => {
      const json = await call('get_indexes_overview', {});
      expect(JSON.stringify(json)).toContain(`"total_relationships":${readIndex(out).relationships.length}`);
    });
  });
});
