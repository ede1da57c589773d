/**
 * Source lines for a search answer's matching symbols, read from the repository when it is still where it was
 * indexed (`analysis_metadata.repo_path`) and the file is unchanged (its content hash matches the index), so
 * the lines shown are the lines the index describes. Otherwise each reference says why it has none.
 */
import { readFile as fsReadFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileSummary } from '../index/types.js';
import { contentHash } from '../shared/hash.js';
import type { LoadedIndex, Reference, SearchResponse, Snippet } from './types.js';

export interface SnippetOptions {
  /** Lines before and after each symbol's first line. */
  lines: number;
  readFile?: (file: string) => Promise<Buffer>;
}

/** The most lines shown around one symbol, whatever N is asked for. */
export const MAX_SNIPPET_LINES = 200;

/**
 * The response with `snippets` on each reference that has matching symbols, or a `snippet_notice` saying why
 * there are none: the index names no repository, the repository or file is gone, or the file changed.
 */
export async function addSnippets<R extends SearchResponse>(response: R, indexes: readonly LoadedIndex[], options: SnippetOptions): Promise<R> {
  const lines = Math.min(Math.max(0, Math.floor(options.lines)), MAX_SNIPPET_LINES);
  const readFile = options.readFile ?? fsReadFile;
  const byRepo = new Map<string, RepoFiles>();
  const references: Reference[] = [];
  for (const ref of response.references) {
    if (ref.symbols.length === 0) {
      references.push(ref);
      continue;
    }
    let repo = byRepo.get(ref.repo_name);
    if (!repo) byRepo.set(ref.repo_name, (repo = repoFiles(indexes, ref.repo_name)));
    references.push({ ...ref, ...(await snippetsOf(ref, repo, lines, readFile)) });
  }
  return { ...response, references };
}

interface RepoFiles {
  root: string | null;
  files: Map<string, FileSummary>;
}

function repoFiles(indexes: readonly LoadedIndex[], repoName: string): RepoFiles {
  const loaded = indexes.find((l) => (l.packed?.repoName ?? l.index.repo_name) === repoName);
  if (!loaded) return { root: null, files: new Map() };
  const { index } = loaded;
  const root = (index.analysis_metadata as { repo_path?: unknown } | undefined)?.repo_path;
  return { root: typeof root === 'string' && root ? root : null, files: new Map(index.file_summaries.map((f) => [f.file_path, f])) };
}

async function snippetsOf(ref: Reference, repo: RepoFiles, lines: number, readFile: (file: string) => Promise<Buffer>): Promise<Pick<Reference, 'snippets' | 'snippet_notice'>> {
  if (!repo.root) return { snippet_notice: 'no snippets: the index does not record where the repository was' };
  const summary = repo.files.get(ref.file_path);
  if (!summary?.content_hash) return { snippet_notice: 'no snippets: the index has no content hash to check the file against' };
  const root = path.resolve(repo.root);
  const file = path.resolve(root, ref.file_path);
  if (file !== root && !file.startsWith(`${root}${path.sep}`)) return { snippet_notice: 'no snippets: the file path leaves the repository' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await readFile(file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { snippet_notice: code === 'ENOENT' ? `no snippets: ${file} is not on disk (the repository moved, or was indexed elsewhere)` : `no snippets: cannot read ${file}` };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (contentHash(text) !== summary.content_hash) return { snippet_notice: `no snippets: ${ref.file_path} changed since it was indexed (re-index for current lines)` };
  const fileLines = text.split('\n');
  const snippets = ref.symbols.map((s): Snippet => {
    const from = clamp(s.start_line - lines, 1, fileLines.length);
    const to = clamp(s.start_line + lines, from, fileLines.length);
    return { kind: s.kind, ast_path: s.ast_path, start_line: s.start_line, end_line: s.end_line, from_line: from, to_line: to, text: fileLines.slice(from - 1, to).join('\n').replace(/\r$/gm, '') };
  });
  return { snippets };
}

function clamp(n: number, low: number, high: number): number {
  return Math.min(Math.max(Math.trunc(n), low), Math.max(low, high));
}
