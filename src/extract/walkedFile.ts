/**
 * A file the walk found (pipeline/walk.ts), as every later stage takes it: classification, extraction in the
 * worker threads, reuse and profiling. Declared here, below the pipeline, because extraction reads it too.
 */
export interface WalkedFile {
  /** The repository-relative path, with forward slashes. */
  path: string;
  absolute: string;
  size: number;
  mtimeMs: number;
}
