/**
 * A loaded set of indexes, ready to answer many queries: what each ranker needs is built on its first use and
 * kept (the MCP server keeps one corpus per indexes folder). BM25F sees one segment per repository index,
 * read from the index's search pack when it has one; DeepCode's scorer sees every profile with its token set.
 */
import type { FileSummary } from '../index/types.js';
import type { Segment } from './bm25f.js';
import { searchableTokens } from './deepcodeScore.js';
import { FieldIndex, type IndexedDoc } from './fieldIndex.js';
import type { LoadedIndex } from './load.js';
import { Tokenizer } from './profileTokens.js';

/**
 * Which profiles search ranks: everything but skipped files. A file whose model call failed keeps its
 * static profile (status `failed`), which is still worth finding.
 */
export function isSearchable(file: Pick<FileSummary, 'status'>): boolean {
  return file.status !== 'skipped';
}

export interface SearchDoc {
  repo: string;
  file: FileSummary;
  searchable: Set<string>;
}

interface CorpusSegment extends Segment {
  loaded: LoadedIndex;
  repo: string;
  /** Profiles in field-index order, when the index is in memory (not read from a pack). */
  files: readonly FileSummary[] | null;
}

export class SearchCorpus {
  readonly indexes: readonly LoadedIndex[];
  private docsCache: SearchDoc[] | null = null;
  private segmentsCache: CorpusSegment[] | null = null;
  private docNumbers: Map<string, number> | null = null;
  private tokenizerCache: Tokenizer | null = null;

  constructor(indexes: readonly LoadedIndex[]) {
    this.indexes = indexes;
  }

  /** DeepCode's scorer's view of every profiled file: token sets are built on first use. */
  get docs(): SearchDoc[] {
    this.docsCache ??= this.indexes.flatMap(({ index }) =>
      index.file_summaries
        .filter(isSearchable)
        .map((file) => ({ repo: index.repo_name, file, searchable: searchableTokens(file) })),
    );
    return this.docsCache;
  }

  /**
   * BM25F's statistics, one segment per index: field postings, lengths, document frequencies, the import
   * graph. Read from the index's search pack when it has one, else built here once. Skipped files are left
   * out: a skipped file has nothing to recommend it.
   */
  get segments(): readonly CorpusSegment[] {
    if (!this.segmentsCache) {
      let base = 0;
      this.segmentsCache = this.indexes.map((loaded) => {
        let segment: CorpusSegment;
        if (loaded.packed) {
          segment = { loaded, repo: loaded.packed.repoName, index: loaded.packed.fieldIndex, base, files: null };
        } else {
          const repo = loaded.index.repo_name;
          const files = loaded.index.file_summaries.filter(isSearchable);
          segment = { loaded, repo, index: FieldIndex.build(files.map((file) => ({ repo, file }))), base, files };
        }
        base += segment.index.size;
        return segment;
      });
    }
    return this.segmentsCache;
  }

  /** Profiled files across all indexes. */
  get size(): number {
    const last = this.segments[this.segments.length - 1];
    return last ? last.base + last.index.size : 0;
  }

  /** The segment holding corpus document `d`, and `d`'s number in it. */
  private locate(d: number): { segment: CorpusSegment; local: number } {
    const segments = this.segments;
    let lo = 0;
    let hi = segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((segments[mid] as CorpusSegment).base <= d) lo = mid;
      else hi = mid - 1;
    }
    const segment = segments[lo];
    if (!segment || d < segment.base || d >= segment.base + segment.index.size) throw new RangeError(`no document ${d}`);
    return { segment, local: d - segment.base };
  }

  /** Corpus document `d`'s repository and profile. */
  doc(d: number): IndexedDoc {
    const { segment, local } = this.locate(d);
    const file = segment.files ? segment.files[local] : segment.loaded.packed?.profile(local);
    if (!file) throw new RangeError(`no document ${d}`);
    return { repo: segment.repo, file };
  }

  /** Whether corpus document `d` holds a token in any field, without reading its profile. */
  holds(d: number, token: string): boolean {
    const { segment, local } = this.locate(d);
    return segment.index.holds(token, local);
  }

  /** Corpus document `d`'s repository-relative path, without reading its profile. */
  path(d: number): string {
    const { segment, local } = this.locate(d);
    return segment.index.paths.at(local);
  }

  /** The corpus number of a repository's file, if it is profiled. */
  docNumber(repo: string, filePath: string): number | undefined {
    if (!this.docNumbers) {
      this.docNumbers = new Map();
      for (const segment of this.segments) {
        segment.index.paths.all().forEach((p, d) => this.docNumbers?.set(`${segment.repo}\0${p}`, segment.base + d));
      }
    }
    return this.docNumbers.get(`${repo}\0${filePath}`);
  }

  /** Tokenises requests the way the field indexes tokenised profiles. */
  get tokenizer(): Tokenizer {
    this.tokenizerCache ??= new Tokenizer();
    return this.tokenizerCache;
  }
}
