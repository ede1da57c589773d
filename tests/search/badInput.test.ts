import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/index/types.js';
import { formatMarkdown, searchResultJson } from '../../src/search/format.js';
import { loadIndexes } from '../../src/search/load.js';
import { SearchCorpus, search } from '../../src/search/search.js';
import { makeTempDir } from '../support/tempRepo.js';

const file = (file_path: string, status = 'ok') => ({
  file_path,
  file_type: 'TypeScript source',
  main_functions: ['retryRequest'],
  key_concepts: ['retry'],
  dependencies: [],
  summary: 'Retries a request with backoff.',
  lines_of_code: 10,
  last_modified: '',
  language: 'TypeScript',
  role: 'source',
  status,
  symbols: [{ kind: 'function', name: 'retryRequest', ast_path: 'retryRequest', start_line: 1, end_line: 9 }],
});
const index = (files = [file('src/retry.ts')], metadata: Record<string, unknown> = {}) => ({ repo_name: 'demo', total_files: files.length, file_summaries: files, relationships: [], analysis_metadata: metadata });

async function corpusOf(value: unknown): Promise<SearchCorpus> {
  const dir = makeTempDir();
  writeFileSync(path.join(dir, 'demo_index.json'), JSON.stringify(value));
  return new SearchCorpus((await loadIndexes(dir)).indexes);
}

describe('an empty answer always says why', () => {
  it.each([
    [{ query: 'the of and' }, '"the of and"'],
    [{ query: '?!... --- ;;' }, '"?!... --- ;;"'],
    [{ query: '42 7' }, '"42 7"'],
    [{ keywords: ['the', ',,'] }, '"the, ,,"'],
  ])('a request of only stopwords, numbers, single letters or punctuation (%j) is told there is nothing to search for', async (request, quoted) => {
    const corpus = await corpusOf(index());
    for (const scorer of ['bm25f', 'deepcode'] as const) {
      const answer = search(corpus, { ...request, scorer });
      expect(answer.references).toEqual([]);
      expect(answer.notice).toBe(`no results: ${quoted} has only stopwords, numbers, single letters or punctuation, so there is nothing to search for; name what the code does, e.g. "retry with backoff"`);
    }
  });

  it('a request whose words match nothing names them', async () => {
    const answer = search(await corpusOf(index()), { query: 'kubernetes helm chart' });
    expect(answer.notice).toBe('no results: no indexed file matches kubernetes, helm, chart');
  });

  it('a type filter that removes every match says to drop it', async () => {
    const answer = search(await corpusOf(index()), { query: 'retry', type: 'class' });
    expect(answer.notice).toBe('no results: no class matches retry; try without the type filter');
  });

  it('indexes whose every file was skipped say so', async () => {
    const answer = search(await corpusOf(index([file('big.bin', 'skipped')])), { query: 'retry' });
    expect(answer.notice).toBe('no results: the indexes hold no searchable file (every file was skipped when indexing)');
  });

  it('indexes of repositories with no file at all say that instead', async () => {
    const answer = search(await corpusOf(index([])), { query: 'retry' });
    expect(answer.notice).toBe('no results: the indexes hold no file (their repositories had none to index)');
  });

  it('an answer with results has no notice', async () => {
    expect(search(await corpusOf(index()), { query: 'retry the request' }).notice).toBeUndefined();
  });

  it('shows the notice in the markdown and as `notice` in the JSON', async () => {
    const corpus = await corpusOf(index());
    const answer = search(corpus, { query: 'the of' });
    expect(formatMarkdown(answer)).toContain(`\n> ${answer.notice}\n`);
    expect(searchResultJson(answer, 'indexes', corpus.indexes, [])).toMatchObject({ total_references_found: 0, notice: answer.notice });
  });
});

describe('indexes of another schema', () => {
  it('reads an index of a newer schema and says which version it is', async () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'future_index.json'), JSON.stringify({ ...index(), analysis_metadata: { schema_version: SCHEMA_VERSION + 5, tool: 'coderag' }, new_section: { x: 1 } }));
    const { indexes, warnings } = await loadIndexes(dir);
    expect(indexes.map((l) => l.key)).toEqual(['future_index']);
    expect(warnings).toEqual([
      `future_index.json: written by a newer CodeRAG (index schema ${SCHEMA_VERSION + 5}; this one writes schema ${SCHEMA_VERSION}): read as far as its fields are understood; upgrade coderag to use all of it`,
    ]);
    expect(search(new SearchCorpus(indexes), { query: 'retry' }).references[0]?.file_path).toBe('src/retry.ts');
  });

  it('names the schema of a file it cannot read as an index', async () => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'odd_index.json'), JSON.stringify({ repo_name: 'odd', files: [], analysis_metadata: { schema_version: 9 } }));
    const { indexes, warnings } = await loadIndexes(dir);
    expect(indexes).toEqual([]);
    expect(warnings).toEqual([`skipped odd_index.json: not a repository index (no file_summaries array), though it names index schema 9 (this CodeRAG writes ${SCHEMA_VERSION})`]);
  });

  it.each([
    ['an older schema', { schema_version: 0 }],
    ['no schema at all (a DeepCode index)', {}],
  ])('reads an index of %s without a warning', async (_, metadata) => {
    const dir = makeTempDir();
    writeFileSync(path.join(dir, 'old_index.json'), JSON.stringify(index([file('src/retry.ts')], metadata)));
    const { indexes, warnings } = await loadIndexes(dir);
    expect(indexes).toHaveLength(1);
    expect(warnings).toEqual([]);
  });
});
