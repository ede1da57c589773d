import { estimateTokens } from '../../src/search/budget.js';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');

describe('coderag index, search and overview end to end (offline)', () => {
  const out = makeTempDir();
  const cwd = makeTempDir();
  let indexRun: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    indexRun = await runCli(['index', fixture, '--out', out], { cwd });
  });

  it('indexes the repository with no API key and says it is offline', () => {
    expect(indexRun.code).toBe(0);
    expect(indexRun.stderr).toContain('profiles: static');
    expect(indexRun.stderr).toMatch(/polyglot: 26 files indexed, 0 skipped, \d+\.\ds/);
    expect(indexRun.stdout.trim()).toBe(path.join(out, 'polyglot_index.json'));
  });

  it('writes the index with DeepCode\'s field names and the run reports beside it', () => {
    expect(readdirSync(out).sort()).toEqual(['.coderag-search', '.polyglot_index.json.state', 'indexing_statistics.json', 'indexing_summary.json', 'polyglot_index.json']);
    expect(readdirSync(path.join(out, '.coderag-search'))).toEqual(['polyglot_index.pack']);
    const index = JSON.parse(readFileSync(path.join(out, 'polyglot_index.json'), 'utf8'));
    expect(Object.keys(index)).toEqual(['repo_name', 'total_files', 'file_summaries', 'relationships', 'analysis_metadata']);
    const summary = index.file_summaries.find((f: { file_path: string }) => f.file_path === 'src/cache/lruCache.ts');
    for (const key of ['file_path', 'file_type', 'main_functions', 'key_concepts', 'dependencies', 'summary', 'lines_of_code', 'last_modified']) {
      expect(summary).toHaveProperty(key);
    }
    expect(summary).toMatchObject({ language: 'TypeScript', status: 'ok', profile_source: 'static', role: 'source' });
    expect(summary.content_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(summary.key_concepts).toContain('cache');
    expect(index.analysis_metadata).toMatchObject({ schema_version: 2, tool: 'coderag', provider: 'static', llm_calls: 0 });
  });

  it('writes the same index twice for the same repository, byte for byte apart from timings', async () => {
    const second = makeTempDir();
    await runCli(['index', fixture, '--out', second], { cwd });
    const strip = (file: string) => {
      const index = JSON.parse(readFileSync(file, 'utf8'));
      delete index.analysis_metadata;
      return JSON.stringify(index);
    };
    expect(strip(path.join(second, 'polyglot_index.json'))).toBe(strip(path.join(out, 'polyglot_index.json')));
  });

  it('answers a search with markdown in DeepCode\'s sections', async () => {
    const result = await runCli(['search', '--indexes', out, '--target', 'cache.ts', '--keywords', 'ttl,eviction'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^# Code Reference Information - cache\.ts\n={80}\n/);
    expect(result.stdout).toContain('## 📚 Relevant Code References');
    expect(result.stdout).toContain('### 1. src/cache/lruCache.ts');
    expect(result.stdout).toContain('## 💡 Implementation Suggestions');
  });

  it('cuts an answer to --max-tokens by leaving out its last results, as valid JSON or markdown that says so', async () => {
    const json = await runCli(['search', '--indexes', out, '--query', 'cache entries expire', '--json', '--max-tokens', '900'], { cwd });
    expect(estimateTokens(json.stdout.trimEnd())).toBeLessThanOrEqual(900);
    expect(JSON.parse(json.stdout).truncated).toMatchObject({ max_tokens: 900 });
    const markdown = await runCli(['search', '--indexes', out, '--query', 'cache entries expire', '--max-tokens', '400'], { cwd });
    expect(estimateTokens(markdown.stdout.trimEnd())).toBeLessThanOrEqual(400);
    expect(markdown.stdout).toMatch(/left out to fit --max-tokens 400/);
    const tooSmall = await runCli(['search', '--indexes', out, '--query', 'cache', '--max-tokens', '50'], { cwd });
    expect(tooSmall.code).toBe(2);
    expect(tooSmall.stderr).toMatch(/at least 200/);
  });

  it('answers a search with DeepCode\'s JSON keys plus structured references', async () => {
    const result = await runCli(['search', '--indexes', out, '--target', 'cache.ts', '--keywords', 'ttl', '--json'], { cwd });
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({ status: 'success', target_file: 'cache.ts', keywords_used: ['ttl'], indexes_loaded: ['polyglot_index'], total_indexes_loaded: 1 });
    expect(json.total_references_found).toBe(json.references.length);
    expect(json.references[0]).toMatchObject({ repo_name: 'polyglot', file_path: 'src/cache/lruCache.ts' });
    expect(json.references[0].symbols).toContainEqual({ kind: 'method', name: 'get', qualified_name: 'LruCache.get', start_line: 23, end_line: 27, description: 'Returns the value, or undefined when missing or past its TTL.' });
    expect(typeof json.formatted_content).toBe('string');
  });

  it('titles the markdown of a query, which has no target file, with the heading alone', async () => {
    const result = await runCli(['search', '--indexes', out, '--query', 'token bucket rate limiter'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^# Code Reference Information\n={80}\n/);
  });

  it('tokenises a free-text query into keywords', async () => {
    const result = await runCli(['search', '--indexes', out, '--query', 'where is the token bucket rate limiter?', '--json'], { cwd });
    const json = JSON.parse(result.stdout);
    expect(json.keywords_used).toEqual(['token', 'bucket', 'rate', 'limiter']);
    expect(json.references[0].file_path).toBe('pkg/store/ratelimit.go');
  });

  it('narrows the answer to one kind of element with --type', async () => {
    const result = await runCli(['search', '--indexes', out, '--keywords', 'cache', '--type', 'class', '--json'], { cwd });
    const json = JSON.parse(result.stdout);
    expect(json.references.length).toBeGreaterThan(0);
    for (const ref of json.references) {
      expect(ref.symbols.length).toBeGreaterThan(0);
      for (const symbol of ref.symbols) expect(symbol.kind).toBe('class');
    }
  });

  it('gives an overview in DeepCode\'s shape', async () => {
    const result = await runCli(['overview', '--indexes', out, '--json'], { cwd });
    const json = JSON.parse(result.stdout);
    expect(json.status).toBe('success');
    expect(json.overview.total_repos).toBe(1);
    expect(json.overview.repositories.polyglot_index).toMatchObject({ repo_name: 'polyglot', total_files: 26, total_relationships: 0 });
    expect(json.overview.repositories.polyglot_index.main_concepts.length).toBeGreaterThan(0);
  });

  it('still answers beside a corrupt index, naming it in a warning', async () => {
    writeFileSync(path.join(out, 'corrupt_index.json'), '{ not json');
    const result = await runCli(['search', '--indexes', out, '--keywords', 'matrix'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: skipped corrupt_index.json: not valid JSON');
    expect(result.stdout).toContain('src/matrix.cpp');
  });
});

describe('coderag search with a damaged search file', () => {
  it('rebuilds a search file that names a file its index does not hold, says so, and answers', async () => {
    const out = makeTempDir();
    const cwd = makeTempDir();
    expect((await runCli(['index', fixture, '--out', out], { cwd })).code).toBe(0);
    // One letter of a path changed inside the pack's body, which has no checksum of its own.
    const pack = path.join(out, '.coderag-search', 'polyglot_index.pack');
    const bytes = readFileSync(pack);
    const at = bytes.indexOf('lruCache.ts');
    expect(at).toBeGreaterThan(0);
    bytes[at] = 'x'.charCodeAt(0);
    writeFileSync(pack, bytes);
    // A file the loader warns about on each load: the search loads twice, and says it once.
    writeFileSync(path.join(out, 'corrupt_index.json'), '{ not json');
    const result = await runCli(['search', '--indexes', out, '--query', 'lru cache eviction', '--json'], { cwd });
    expect(result.code).toBe(0);
    const warning = 'the search file of polyglot_index.json did not match the index and was removed; rebuilt from the index';
    expect(result.stderr).toContain(`warning: ${warning}`);
    expect(result.stderr.match(/did not match/g)).toHaveLength(1);
    expect(result.stderr.match(/warning: skipped corrupt_index\.json/g)).toHaveLength(1);
    const answer = JSON.parse(result.stdout);
    expect(answer.warnings).toContain(warning);
    expect(answer.references.map((r: { file_path: string }) => r.file_path)).toContain('src/cache/lruCache.ts');
    const again = await runCli(['search', '--indexes', out, '--query', 'lru cache eviction'], { cwd });
    expect(again.stderr).not.toContain('did not match');
  });
});

describe('coderag on bad input', () => {
  it('exits 2 with a one-line error for a missing repository', async () => {
    const result = await runCli(['index', '/nonexistent/repo', '--out', makeTempDir()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: repository not found: /nonexistent/repo');
  });

  it('exits 2 for an unknown option', async () => {
    const result = await runCli(['search', '--colour']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--colour'");
  });

  it('exits 2 when search is given nothing to search for', async () => {
    expect((await runCli(['search', '--indexes', makeTempDir()])).code).toBe(2);
  });

  it('exits 1 naming the key of a broken config, and writes nothing', async () => {
    const dir = makeTempDir();
    const config = path.join(dir, 'bad.yaml');
    writeFileSync(config, 'performance:\n  max_concurrent_files: -1\n');
    const out = path.join(dir, 'out');
    const result = await runCli(['index', fixture, '--config', config, '--out', out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .*bad\.yaml: performance\.max_concurrent_files: /m);
    expect(existsSync(out)).toBe(false);
  });

  it('reads a config named on the command line even when --indexes names the folder, and reports it broken', async () => {
    const dir = makeTempDir();
    const broken = path.join(dir, 'broken.yaml');
    writeFileSync(broken, 'performance: [unclosed\n');
    for (const command of [['search', '--keywords', 'cache'], ['overview']]) {
      const result = await runCli([...command, '--indexes', dir, '--config', broken]);
      expect(result.code, command[0]).toBe(1);
      expect(result.stderr).toMatch(/^error: .*broken\.yaml/m);
    }
    const missing = await runCli(['search', '--keywords', 'cache', '--indexes', dir, '--config', path.join(dir, 'missing.yaml')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('missing.yaml');
  });

  it('indexes two repositories whose folders have the same name side by side, the second named with its parent folder', async () => {
    const first = makeTempRepo({ 'a.ts': 'export const a = 1;\n' }, { name: 'app' });
    const second = makeTempRepo({ 'b.ts': 'export const b = 1;\n' }, { name: 'app' });
    const out = path.join(makeTempDir(), 'out');
    const result = await runCli(['index', first.root, second.root, '--out', out]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([path.join(out, 'app_index.json'), path.join(out, `${path.basename(path.dirname(second.root))}_app_index.json`)]);
  });

  it('indexes an empty repository and warns that nothing could be profiled', async () => {
    const repo = makeTempRepo({}, { name: 'empty' });
    const out = makeTempDir();
    const result = await runCli(['index', repo.root, '--out', out]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: empty: no file could be profiled (0 candidate files)');
    expect(JSON.parse(readFileSync(path.join(out, 'empty_index.json'), 'utf8')).file_summaries).toEqual([]);
  });

  it('records binary, oversized and secret files as skipped with their reasons', async () => {
    const repo = makeTempRepo({ 'ok.py': 'def f():\n    return 1\n', 'blob.py': Buffer.from([0, 1, 2]), 'big.py': 'x = 1\n'.repeat(400), '.env': 'TOKEN=abc' }, { name: 'mixed' });
    writeFileSync(path.join(repo.root, '.gitignore'), '');
    const out = makeTempDir();
    const result = await runCli(['index', repo.root, '--out', out, '--max-file-size', '1000']);
    expect(result.code).toBe(0);
    const index = JSON.parse(readFileSync(path.join(out, 'mixed_index.json'), 'utf8'));
    const byPath = Object.fromEntries(index.file_summaries.map((f: { file_path: string; status: string; reason?: string }) => [f.file_path, `${f.status}:${f.reason ?? ''}`]));
    expect(byPath).toEqual({ 'big.py': 'skipped:too_large', 'blob.py': 'skipped:binary', 'ok.py': 'ok:' });
    expect(result.stderr).toMatch(/mixed: 1 file indexed, 2 skipped \((too large 1, binary 1|binary 1, too large 1)\)/);
  });

  it('lists every option and its default in --help', async () => {
    const result = await runCli(['search', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--max-results <n>');
    expect(result.stdout).toContain('(default: 10)');
  });
});

describe('coderag writing into a pipe that closes early', () => {
  it('ends quietly with exit 0 when the reader stops reading, as `coderag --help | head -1` does', async () => {
    const { spawn } = await import('node:child_process');
    const { CLI, cleanEnv } = await import('../support/cli.js');
    const child = spawn(process.execPath, [CLI, 'index', '--help'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Close our end before the command writes: its write then fails with EPIPE.
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});
