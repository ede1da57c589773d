/**
 * Property-based fuzzing of everything that reads an indexes folder: the RepoIndex shape check and its
 * normalisation, `loadIndexes` (with and without search packs), `readPack` and a folder's combined pack.
 * Whatever the bytes on disk, loading never throws or hangs, each file either loads or is named in a warning,
 * and what loads can be searched, overviewed and outlined. Runs are bounded (a fixed count and seed per property).
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeRepoIndex, repoIndexProblem } from '../../src/index/serialize.js';
import { overviewJson } from '../../src/search/format.js';
import { folderPackPath } from '../../src/search/folderPack.js';
import { loadIndexes, PackMismatchError } from '../../src/search/load.js';
import { PACK_VERSION, packPathFor, readPack } from '../../src/search/pack.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import { makeTempDir } from '../support/tempRepo.js';

/** A fixed seed and count, so `npm test` is repeatable and bounded; FUZZ_SEED and FUZZ_SCALE run a longer campaign. */
const SCALE = Math.max(1, Number(process.env.FUZZ_SCALE) || 1);
const runs = (numRuns: number) => ({ seed: Number(process.env.FUZZ_SEED) || 20261123, numRuns: numRuns * SCALE, endOnFailure: true });
const RUNS = runs(60);

/** Strings and numbers at the edges: long, empty, odd code points, the largest and smallest doubles. */
const hugeString = fc.constantFrom(10, 1_000, 200_000).chain((n) => fc.constantFrom('x'.repeat(n), 'a b '.repeat(n / 4), '\u{1F600}'.repeat(n / 2), '\\"'.repeat(n / 2)));
const edgeNumber = fc.oneof(
  fc.constantFrom(0, -0, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 1.5, -7),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
const anyValue = fc.oneof({ maxDepth: 3 }, fc.jsonValue({ maxDepth: 3 }), hugeString, edgeNumber);
const maybe = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: good }, { weight: 1, arbitrary: anyValue });
const word = fc.constantFrom('retry', 'request', 'cache', 'ttl', 'parse', 'header', 'the', '', '__proto__', 'constructor', 'toString');

const symbol = maybe(
  fc.record(
    {
      kind: maybe(fc.constantFrom('function', 'class', 'method', 'constant', 'variable')),
      name: maybe(word),
      ast_path: maybe(word),
      start_line: maybe(edgeNumber),
      end_line: maybe(edgeNumber),
      doc: maybe(fc.string()),
    },
    { requiredKeys: [] },
  ),
);

const summary = maybe(
  fc.record(
    {
      file_path: maybe(fc.constantFrom('src/retry.ts', 'lib/cache.py', 'a', '', '../../etc/passwd', 'dir/', 'x.d.ts', 'tests/test_cache.py')),
      file_type: maybe(fc.string()),
      main_functions: maybe(fc.array(maybe(word), { maxLength: 4 })),
      key_concepts: maybe(fc.array(maybe(word), { maxLength: 4 })),
      dependencies: maybe(fc.array(maybe(fc.constantFrom('./x', '@scope/pkg', 'lodash', 'a/b/c.ts')), { maxLength: 3 })),
      summary: maybe(fc.string()),
      lines_of_code: maybe(edgeNumber),
      language: maybe(fc.constantFrom('TypeScript', 'Python', '')),
      role: maybe(fc.constantFrom('source', 'test', 'docs', 'nonsense')),
      status: maybe(fc.constantFrom('ok', 'skipped', 'failed', 'weird')),
      profile_source: maybe(fc.constantFrom('static', 'llm', 'none')),
      content_hash: maybe(fc.string()),
      symbols: maybe(fc.array(symbol, { maxLength: 4 })),
      local_imports: maybe(fc.array(maybe(fc.constantFrom('src/retry.ts', 'lib/cache.py')), { maxLength: 3 })),
      vocabulary: maybe(fc.constantFrom('retry:3 request:2 header', 'x:', ':5', 'a:1e999 b:-1 c:NaN', '')),
    },
    { requiredKeys: [] },
  ),
);

const relationship = maybe(
  fc.record(
    {
      repo_file_path: maybe(fc.constantFrom('src/retry.ts', 'lib/cache.py')),
      target_file_path: maybe(fc.constantFrom('cache.ts', 'src/cache.ts', '')),
      relationship_type: maybe(fc.constantFrom('direct_match', 'utility', 'other')),
      confidence_score: maybe(edgeNumber),
      helpful_aspects: maybe(fc.array(maybe(fc.string()), { maxLength: 2 })),
      potential_contributions: maybe(fc.array(maybe(fc.string()), { maxLength: 2 })),
      usage_suggestions: maybe(fc.string()),
    },
    { requiredKeys: [] },
  ),
);

/** Index-shaped values with any field missing, mistyped or extreme. */
const mistypedIndex = fc.record(
  {
    repo_name: maybe(fc.constantFrom('demo', '', '__proto__')),
    total_files: maybe(edgeNumber),
    file_summaries: maybe(fc.array(summary, { maxLength: 6 })),
    relationships: maybe(fc.array(relationship, { maxLength: 3 })),
    analysis_metadata: maybe(fc.record({ schema_version: maybe(edgeNumber), repo_path: maybe(fc.string()), git_commit: maybe(fc.string()) }, { requiredKeys: [] })),
  },
  { requiredKeys: [] },
);

const wellFormedIndex = {
  repo_name: 'demo',
  total_files: 3,
  file_summaries: [
    { file_path: 'src/retry.ts', file_type: 'TypeScript source', main_functions: ['retryRequest'], key_concepts: ['retry'], dependencies: ['./headers'], summary: 'Retries a request.', lines_of_code: 20, last_modified: '', language: 'TypeScript', role: 'source', status: 'ok', profile_source: 'static', content_hash: '', size_bytes: 10, symbols: [{ kind: 'function', name: 'retryRequest', ast_path: 'retryRequest', start_line: 1, end_line: 9, doc: 'Retry with backoff.' }], local_imports: ['src/headers.ts'] },
    { file_path: 'src/headers.ts', file_type: 'TypeScript source', main_functions: ['parseHeaders'], key_concepts: ['header'], dependencies: [], summary: 'Parses "headers" {with} \\ escapes ]', lines_of_code: 12, last_modified: '', language: 'TypeScript', role: 'source', status: 'ok', profile_source: 'static', content_hash: '', size_bytes: 10, symbols: [{ kind: 'function', name: 'parseHeaders', ast_path: 'parseHeaders', start_line: 3, end_line: 7 }], local_imports: [] },
    { file_path: 'big.bin', file_type: 'Binary (skipped: binary)', main_functions: [], key_concepts: [], dependencies: [], summary: 'File skipped.', lines_of_code: 0, last_modified: '', language: 'Text', role: 'data', status: 'skipped', reason: 'binary', profile_source: 'none', content_hash: '', size_bytes: 10, symbols: [], local_imports: [] },
  ],
  relationships: [{ repo_file_path: 'src/retry.ts', target_file_path: 'src/cache.ts', relationship_type: 'utility', confidence_score: 0.5, helpful_aspects: ['retries'], potential_contributions: [], usage_suggestions: 'use it' }],
  analysis_metadata: { schema_version: 1, tool: 'coderag', repo_path: '/nowhere', git_commit: null },
};
const wellFormedText = JSON.stringify(wellFormedIndex, null, 2);

/** Text that is JSON, almost JSON, or not JSON at all. */
const fileText = fc.oneof(
  mistypedIndex.map((v) => JSON.stringify(v, null, 2)),
  mistypedIndex.map((v) => JSON.stringify(v)),
  fc.nat({ max: wellFormedText.length }).map((n) => wellFormedText.slice(0, n)),
  fc.tuple(fc.nat({ max: wellFormedText.length }), fc.string({ maxLength: 8 })).map(([at, junk]) => wellFormedText.slice(0, at) + junk + wellFormedText.slice(at)),
  fc.constantFrom('1e999', '-1e999', '{"file_summaries": [{"file_path": "a.ts", "lines_of_code": 1e999, "symbols": [{"name": "x", "start_line": -1e999}]}]}'),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ unit: 'binary', maxLength: 300 }),
);

const QUERIES = [{ query: 'retry request headers' }, { target: 'src/cache.ts', keywords: ['ttl', 'cache'] }, { query: 'the of and' }];

/** Everything a user can do with a loaded folder must work on whatever loaded. */
function exercise(dir: string, loaded: Awaited<ReturnType<typeof loadIndexes>>): void {
  const corpus = new SearchCorpus(loaded.indexes);
  for (const request of QUERIES) {
    for (const scorer of ['bm25f', 'deepcode'] as const) {
      const answer = search(corpus, { ...request, scorer, maxResults: 5 });
      expect(Array.isArray(answer.references)).toBe(true);
      JSON.stringify(answer);
    }
  }
  JSON.stringify(overviewJson(dir, loaded.indexes, loaded.warnings));
}

/**
 * Loads a folder: every index in `keys` loads and can be searched, or the one search that finds a pack out says
 * so. A pack's body has no checksum, so a changed file name is found only when a profile is read; that search
 * fails with a clear message and drops the pack, and the next load is whole again.
 */
async function loadsWhole(dir: string, keys: readonly string[]): Promise<void> {
  const loaded = await loadIndexes(dir);
  expect(loaded.indexes.map((l) => l.key)).toEqual(keys);
  try {
    exercise(dir, loaded);
  } catch (error) {
    if (!(error instanceof PackMismatchError)) throw error;
    expect(error.hint).toBe('search again: the next search rebuilds it from the index');
    exercise(dir, await loadIndexes(dir));
  }
}

describe('the index loaders, fuzzed', () => {
  it('say why any JSON value is not an index, or normalise it into one whose fields have their declared types', () => {
    fc.assert(
      fc.property(fc.oneof(mistypedIndex, fc.jsonValue({ maxDepth: 4 })), (value) => {
        const problem = repoIndexProblem(value);
        if (problem !== null) {
          expect(typeof problem).toBe('string');
          return;
        }
        const index = normalizeRepoIndex(value as Record<string, unknown>, 'fallback');
        expect(typeof index.repo_name).toBe('string');
        expect(Number.isFinite(index.total_files)).toBe(true);
        for (const file of index.file_summaries) {
          expect(typeof file.file_path).toBe('string');
          for (const list of [file.main_functions, file.key_concepts, file.dependencies, file.local_imports]) expect(list.every((v) => typeof v === 'string')).toBe(true);
          expect(typeof file.summary).toBe('string');
          expect(Number.isFinite(file.lines_of_code)).toBe(true);
          expect(['ok', 'skipped', 'failed']).toContain(file.status);
          for (const key of ['language', 'role', 'content_hash', 'vocabulary'] as const) if (key in file) expect(typeof file[key]).toBe('string');
          for (const s of file.symbols) {
            expect([typeof s.kind, typeof s.name, typeof s.ast_path]).toEqual(['string', 'string', 'string']);
            expect(Number.isFinite(s.start_line) && Number.isFinite(s.end_line)).toBe(true);
            if (s.doc !== undefined) expect(typeof s.doc).toBe('string');
          }
        }
        for (const rel of index.relationships) {
          expect([typeof rel.repo_file_path, typeof rel.target_file_path, typeof rel.relationship_type, typeof rel.usage_suggestions]).toEqual(['string', 'string', 'string', 'string']);
          expect(Number.isFinite(rel.confidence_score)).toBe(true);
        }
      }),
      runs(300),
    );
  });

  it('load any file as an index or name it in a warning, and what loads can be searched', async () => {
    const dir = makeTempDir();
    await fc.assert(
      fc.asyncProperty(fc.array(fileText, { minLength: 1, maxLength: 3 }), async (texts) => {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
        texts.forEach((text, i) => writeFileSync(path.join(dir, `r${i}_index.json`), text));
        const loaded = await loadIndexes(dir, { packs: false });
        const skipped = loaded.warnings.filter((w) => w.startsWith('skipped '));
        expect(loaded.indexes.length + skipped.length).toBe(texts.filter((t) => !isRunReportText(t)).length);
        for (const warning of loaded.warnings) expect(warning).toMatch(/^(skipped r\d_index\.json: |r\d_index\.json: written by a newer CodeRAG \(index schema \d+;)/);
        exercise(dir, loaded);
      }),
      RUNS,
    );
  });

  it('load the same files through search packs, written and then read back, with the same answers', async () => {
    const dir = makeTempDir();
    await fc.assert(
      fc.asyncProperty(fileText, async (text) => {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
        writeFileSync(path.join(dir, 'r_index.json'), text);
        const first = await loadIndexes(dir);
        exercise(dir, first);
        const second = await loadIndexes(dir);
        exercise(dir, second);
        const answer = (l: typeof first) => search(new SearchCorpus(l.indexes), { query: 'retry request headers cache', maxResults: 5 }).references.map((r) => [r.file_path, r.score]);
        expect(answer(second)).toEqual(answer(first));
      }),
      runs(40),
    );
  });

  describe('a search pack', () => {
    const dir = makeTempDir();
    const indexFile = path.join(dir, 'demo_index.json');
    writeFileSync(indexFile, wellFormedText);
    const info = statSync(indexFile);
    const source = { size: info.size, mtimeMs: info.mtimeMs };
    const packFile = packPathFor(indexFile);
    const written = loadIndexes(dir).then(() => readFileSync(packFile));

    it('that is random, cut short or has a header of the wrong shape is read as damaged, and the index is searched from its JSON', async () => {
      const good = await written;
      expect(readPack(indexFile, source).status).toBe('fresh');
      const damaged = fc.oneof(
        fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)),
        fc.nat({ max: good.length - 1 }).map((n) => good.subarray(0, n)),
        fc
          .constantFrom('null', '[]', '"x"', '{"version":V}', '{"version":V,"source":null}', '{"version":V,"source":S,"sections":{}}', '{"version":V,"source":S,"sections":7}', '{"version":V,"source":S,"repoName":"demo","relationships":[],"sections":[{"name":"df","kind":"i32","offset":3,"bytes":5}]}', '{"version":V,"source":S,"repoName":"demo","relationships":[],"sections":[{"name":"df","kind":"i32","offset":-8,"bytes":1e300}]}')
          .map((header) => packWithHeader(header.replaceAll('V', String(PACK_VERSION)).replaceAll('S', JSON.stringify(source)))),
      );
      await fc.assert(
        fc.asyncProperty(damaged, async (bytes) => {
          writeFileSync(packFile, bytes);
          expect(readPack(indexFile, source).status).toBe('corrupt');
          const loaded = await loadIndexes(dir);
          expect(loaded.indexes.map((l) => l.key)).toEqual(['demo_index']);
          expect(loaded.warnings).toEqual([expect.stringMatching(/^the search file of demo_index\.json was damaged \(.+\); rebuilt it from the index$/)]);
          exercise(dir, loaded);
        }),
        runs(150),
      );
    });

    it('with any of its bytes changed is read without an error, and searched, or found out and rebuilt', async () => {
      const good = await written;
      const flipped = fc.array(fc.tuple(fc.nat({ max: good.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }).map((edits) => {
        const copy = Buffer.from(good);
        for (const [at, value] of edits) copy[at] = value;
        return copy;
      });
      await fc.assert(
        fc.asyncProperty(flipped, async (bytes) => {
          writeFileSync(packFile, bytes);
          expect(['fresh', 'stale', 'corrupt']).toContain(readPack(indexFile, source).status);
          await loadsWhole(dir, ['demo_index']);
        }),
        runs(300),
      );
    });
  });
});

describe('a folder\'s combined search pack, fuzzed', () => {
  // Four indexes, so the folder is combined; each with enough words for several blocks in its term list.
  const dir = makeTempDir();
  const keys = ['a_index', 'b_index', 'c_index', 'd_index'];
  keys.forEach((key, i) => {
    const index = structuredClone(wellFormedIndex) as typeof wellFormedIndex & { file_summaries: Array<{ vocabulary?: string }> };
    index.repo_name = key.slice(0, 1);
    for (const summary of index.file_summaries) summary.vocabulary = Array.from({ length: 90 }, (_, k) => `word${k + 10 * i}`).join(' ');
    writeFileSync(path.join(dir, `${key}.json`), JSON.stringify(index, null, 2));
  });
  const written = loadIndexes(dir).then(() => ({ folder: readFileSync(folderPackPath(dir)), member: readFileSync(packPathFor(path.join(dir, 'b_index.json'))) }));

  const edits = (length: number) => fc.array(fc.tuple(fc.nat({ max: length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 });
  const edited = (good: Buffer, changes: ReadonlyArray<[number, number]>) => {
    const copy = Buffer.from(good);
    for (const [at, value] of changes) copy[at] = value;
    return copy;
  };

  it('that is random, cut short or has any of its bytes changed never breaks a load or a search', async () => {
    const { folder } = await written;
    const damaged = fc.oneof(
      fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)),
      fc.nat({ max: folder.length - 1 }).map((n) => folder.subarray(0, n)),
      edits(folder.length).map((changes) => edited(folder, changes)),
    );
    await fc.assert(
      fc.asyncProperty(damaged, async (bytes) => {
        writeFileSync(folderPackPath(dir), bytes);
        await loadsWhole(dir, keys);
        await loadsWhole(dir, keys);
      }),
      runs(120),
    );
  });

  it('is never made from, or broken by, a member pack with any of its bytes changed', async () => {
    const { member } = await written;
    await fc.assert(
      fc.asyncProperty(edits(member.length), async (changes) => {
        rmSync(folderPackPath(dir), { force: true });
        writeFileSync(packPathFor(path.join(dir, 'b_index.json')), edited(member, changes));
        await loadsWhole(dir, keys);
        await loadsWhole(dir, keys);
      }),
      runs(120),
    );
  });
});

/** The magic, a header length and the given header text. */
function packWithHeader(header: string): Buffer {
  const body = Buffer.from(header);
  const out = Buffer.alloc(12 + body.length);
  out.write('CRAGPACK', 0, 'latin1');
  out.writeUInt32LE(body.length, 8);
  body.copy(out, 12);
  return out;
}

/** Run reports (`indexing_summary.json`) are passed over without a warning. */
function isRunReportText(text: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && ['indexing_completion_time', 'report_generation_time'].some((k) => k in value) && !('file_summaries' in value);
  } catch {
    return false;
  }
}
