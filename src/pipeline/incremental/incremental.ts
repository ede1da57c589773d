/**
 * Incremental re-indexing: a run takes the entries of unchanged files from the index it wrote last time
 * instead of extracting and profiling them again, and writes an index byte for byte the one a full run
 * writes. The rest of the pipeline uses it through this module only:
 *
 *   loadPreviousIndex   the previous index and its reuse state, opened, not parsed (previousIndex.ts)
 *   reuseStage          which walked files keep their previous entry, and which go on to extraction (reuse.ts)
 *   StreamedEntries     where finished entries go: a fragment file, then the index assembled from it and the
 *                       previous index's bytes, and the reuse state written beside it (indexAssembly.ts)
 *   MemoryEntries       the same sink for an index kept in memory and returned, not written (entries.ts)
 *
 * reuseState.ts is the format of the state a run leaves beside its index; entryTable.ts keeps a run's
 * entries as columns so 50,000 of them take a few megabytes.
 */
export { MemoryEntries, type EntrySink, type FreshEntry, type IndexFacts, type Relate } from './entries.js';
export { StreamedEntries, type RunState } from './indexAssembly.js';
export { fileDigest, loadPreviousIndex, type LoadedPrevious } from './previousIndex.js';
export { entryShape, EXTRACT_VERSION, repoIdentity, reuseStage, type ProfileKind, type ReusedEntry } from './reuse.js';
export { loadReuseState, stateFileFor, type EntryShape, type RecordedHistory, type StateDetails, type StateHeader, type StoredRecord } from './reuseState.js';
