import type { FileRelationship, FileSummary, RepoIndex } from '../../src/index/types.js';
import { SearchCorpus } from '../../src/search/search.js';

/**
 * A file's profile as the static profiler writes it: a 40-line TypeScript source file with nothing in it but
 * `fields`. Its main functions are its symbols' names unless `fields` names them.
 */
export function staticProfile(file_path: string, fields: Partial<FileSummary> = {}): FileSummary {
  return {
    file_path,
    file_type: 'TypeScript source',
    main_functions: (fields.symbols ?? []).map((s) => s.name),
    key_concepts: [],
    dependencies: [],
    summary: '',
    lines_of_code: 40,
    last_modified: '',
    language: 'TypeScript',
    role: 'source',
    status: 'ok',
    profile_source: 'static',
    content_hash: '',
    size_bytes: 1000,
    symbols: [],
    local_imports: [],
    ...fields,
  };
}

/** A search corpus of one in-memory index (repository `demo`) of these profiles. */
export function corpusOf(files: FileSummary[], relationships: FileRelationship[] = []): SearchCorpus {
  const index = { repo_name: 'demo', total_files: files.length, file_summaries: files, relationships } as unknown as RepoIndex;
  return new SearchCorpus([{ key: 'demo_index', file: '', index }]);
}
