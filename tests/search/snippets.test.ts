import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RepoIndex } from '../../src/index/types.js';
import type { LoadedIndex, Reference, SearchResponse } from '../../src/search/types.js';
import { addSnippets } from '../../src/search/snippets.js';
import { contentHash } from '../../src/shared/hash.js';
import { makeTempDir } from '../support/tempRepo.js';

const SOURCE = ['// one', '// two', '/** Adds. */', 'export function add(a, b) {', '  return a + b;', '}', '// seven', '// eight'].join('\n');

function setUp(options: { repoPath?: string | null; hash?: string; filePath?: string } = {}) {
  const root = makeTempDir();
  writeFileSync(path.join(root, 'math.ts'), SOURCE);
  const filePath = options.filePath ?? 'math.ts';
  const index = {
    repo_name: 'demo',
    total_files: 1,
    file_summaries: [{ file_path: filePath, content_hash: options.hash ?? contentHash(SOURCE), symbols: [] }],
    relationships: [],
    analysis_metadata: options.repoPath === null ? {} : { repo_path: options.repoPath ?? root },
  } as unknown as RepoIndex;
  const loaded: LoadedIndex = { key: 'demo_index', file: '', index };
  const reference = (symbols: Reference['symbols']) => ({ repo_name: 'demo', file_path: filePath, language: 'TypeScript', symbols }) as unknown as Reference;
  const response = (refs: Reference[]): SearchResponse => ({ target_file: '', keywords_used: ['add'], scorer: 'bm25f', references: refs, relationships: [] });
  return { root, loaded, reference, response };
}

const ADD = { kind: 'function' as const, name: 'add', ast_path: 'add', start_line: 4, end_line: 6 };

describe('snippets for a search answer', () => {
  it('shows N lines before and after each matching symbol\'s first line, within the file', async () => {
    const { loaded, reference, response } = setUp();
    const first = { ...ADD, start_line: 1, end_line: 1, ast_path: 'top', name: 'top' };
    const answer = await addSnippets(response([reference([ADD, first])]), [loaded], { lines: 2 });
    expect(answer.references[0]?.snippets).toEqual([
      { kind: 'function', ast_path: 'add', start_line: 4, end_line: 6, from_line: 2, to_line: 6, text: '// two\n/** Adds. */\nexport function add(a, b) {\n  return a + b;\n}' },
      { kind: 'function', ast_path: 'top', start_line: 1, end_line: 1, from_line: 1, to_line: 3, text: '// one\n// two\n/** Adds. */' },
    ]);
    expect(answer.references[0]?.snippet_notice).toBeUndefined();
  });

  it('says the file changed when its content no longer matches the index, and shows no stale lines', async () => {
    const { root, loaded, reference, response } = setUp();
    writeFileSync(path.join(root, 'math.ts'), `// new first line\n${SOURCE}`);
    const [ref] = (await addSnippets(response([reference([ADD])]), [loaded], { lines: 2 })).references;
    expect(ref?.snippets).toBeUndefined();
    expect(ref?.snippet_notice).toBe('no snippets: math.ts changed since it was indexed (re-index for current lines)');
  });

  it('says the repository is not on disk when it moved', async () => {
    const gone = path.join(makeTempDir(), 'moved-away');
    const { loaded, reference, response } = setUp({ repoPath: gone });
    const [ref] = (await addSnippets(response([reference([ADD])]), [loaded], { lines: 2 })).references;
    expect(ref?.snippet_notice).toBe(`no snippets: ${path.join(gone, 'math.ts')} is not on disk (the repository moved, or was indexed elsewhere)`);
  });

  it.each([
    ['an index that names no repository', { repoPath: null }, 'no snippets: the index does not record where the repository was'],
    ['a file without a content hash', { hash: '' }, 'no snippets: the index has no content hash to check the file against'],
    ['a path that leaves the repository', { filePath: '../outside.ts' }, 'no snippets: the file path leaves the repository'],
  ])('says why there are none for %s', async (_, options, notice) => {
    const { loaded, reference, response } = setUp(options);
    const [ref] = (await addSnippets(response([reference([ADD])]), [loaded], { lines: 2 })).references;
    expect(ref?.snippet_notice).toBe(notice);
  });

  it('leaves references without matching symbols as they are, reading nothing', async () => {
    const { loaded, reference, response } = setUp();
    const reads: string[] = [];
    const answer = await addSnippets(response([reference([])]), [loaded], { lines: 2, readFile: async (f) => (reads.push(f), Buffer.from('')) });
    expect(answer.references[0]).toEqual(reference([]));
    expect(reads).toEqual([]);
  });
});
