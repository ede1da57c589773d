/** Shared types for the history-based retrieval evaluation (bench/eval). */

/** Languages the evaluation reports on separately. */
export type Language = 'typescript' | 'javascript' | 'python' | 'go' | 'rust' | 'java';

/** One mined case: a real commit whose message is the query and whose changed source files are the answer. */
export interface EvalCase {
  /** Short repository name, e.g. "koa". */
  repo: string;
  /** GitHub owner/name the mirror was fetched from, e.g. "koajs/koa". */
  mirror_hint: string;
  /** The repository's main language; results are reported per language. */
  language: Language;
  commit: string;
  /** First (only) parent; the index is built from the tree at this commit. */
  parent: string;
  /** Committer date of `commit` (ISO 8601), informational. */
  date: string;
  /** Subject + first paragraph of the body (trailers removed). */
  message: string;
  /** Source files that existed at `parent` and that the commit modified, deleted or renamed away. Repo-relative POSIX. */
  changed_source_files: string[];
  /** Source files the commit added (absent at `parent`). Repo-relative POSIX. */
  added_files: string[];
  /** Mined past the per-repo cap only because it adds a file; used in target mode, not in query mode. */
  target_only?: boolean;
}

/** What a ranker is asked. `query` is free text; `target` is set only in target mode. */
export interface RankQuery {
  query: string;
  target?: string;
  keywords: string[];
}

/** A retrieval system under evaluation. */
/**
 * Where a tree's commit history is: the mirror it was exported from (trees are `git archive` output, without
 * `.git`) and the commit it is. A ranker that reads history reads the history of `rev` only, nothing after it.
 */
export interface TreeHistory {
  gitDir: string;
  rev: string;
}

export interface Ranker {
  name: string;
  /**
   * Build whatever the ranker needs for one tree. `files` is the shared candidate set (relative to `treeDir`,
   * POSIX). With `roots`, `treeDir` holds several repositories, one per root folder, searched together: the
   * lexical baselines see one corpus of files; CodeRAG indexes each root on its own and searches all the indexes.
   */
  prepare(treeDir: string, files: string[], roots?: readonly string[], history?: TreeHistory): Promise<unknown>;
  /** Return up to `k` paths relative to the prepared tree (so `<root>/<path>` with roots), best first. */
  rank(prepared: unknown, q: RankQuery, k: number): Promise<string[]> | string[];
}
