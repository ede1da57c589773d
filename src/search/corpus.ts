/**
 * A loaded set of indexes, ready to answer many queries: what each ranker needs is built on its first use and
 * kept (the MCP server keeps one corpus per indexes folder). BM25F sees one segment per repository index,
 * read from the index's search pack when it has one; DeepCode's scorer sees every profile with its token set.
 */
import type { FileRole, FileSummary } from '../index/types.js';
import { holderOf, type Segment, type SegmentPart } from './bm25f.js';
import { searchableTokens } from './deepcodeScore.js';
import { FieldIndex, type IndexedDoc } from './fieldIndex.js';
import type { LoadedIndex } from './types.js';
import { Tokenizer } from './profileTokens.js';
import type { RepositoryFileReader } from './sourceFiles.js';

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

/** One repository index's documents in a segment. */
interface CorpusPart extends SegmentPart {
  loaded: LoadedIndex;
  repo: string;
  /** Profiles in field-index order, when the index is in memory (not read from a pack). */
  files: readonly FileSummary[] | null;
}

interface CorpusSegment extends Segment {
  parts: CorpusPart[];
}

export class SearchCorpus {
  readonly indexes: readonly LoadedIndex[];
  private docsCache: SearchDoc[] | null = null;
  private segmentsCache: CorpusSegment[] | null = null;
  private docNumbers: Map<string, number> | null = null;
  private tokenizerCache: Tokenizer | null = null;
  private readonly readFile: RepositoryFileReader | undefined;

  /**
   * `readFile` reads a file of an index's repository (sourceFiles.ts's `readRepositoryFile`): given one, a task's
   * first files are reordered by their passages (passages.ts); without one, ranking reads only the indexes.
   */
  constructor(indexes: readonly LoadedIndex[], options: { readFile?: RepositoryFileReader } = {}) {
    this.indexes = indexes;
    this.readFile = options.readFile;
  }

  /** Whether ranking may read the repositories' files (a reader was given). */
  get readsSources(): boolean {
    return this.readFile !== undefined;
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
   * BM25F's statistics, one segment per field index: field postings, lengths, document frequencies, the import
   * graph. Read from the index's search pack when it has one, else built here once; the indexes of a folder's
   * combined pack share one segment, a part each. Skipped files are left out: a skipped file has nothing to
   * recommend it.
   */
  get segments(): readonly CorpusSegment[] {
    if (!this.segmentsCache) {
      const segments: CorpusSegment[] = [];
      const whole = coveredWhole(this.indexes);
      let base = 0;
      for (const loaded of this.indexes) {
        const { packed } = loaded;
        if (packed && whole.has(packed.fieldIndex)) {
          const part: CorpusPart = { loaded, repo: packed.repoName, start: packed.start, size: packed.size, avgLength: packed.avgLength, files: null };
          const last = segments[segments.length - 1];
          if (last?.index === packed.fieldIndex) {
            last.parts.push(part);
            continue;
          }
          segments.push({ index: packed.fieldIndex, base, parts: [part] });
          base += packed.fieldIndex.size;
        } else {
          const repo = loaded.index.repo_name;
          const files = loaded.index.file_summaries.filter(isSearchable);
          const index = FieldIndex.build(files.map((file) => ({ repo, file })));
          segments.push({ index, base, parts: [{ loaded, repo, start: 0, size: index.size, avgLength: index.avgLength, files }] });
          base += index.size;
        }
      }
      this.segmentsCache = segments;
    }
    return this.segmentsCache;
  }

  /** Profiled files across all indexes. */
  get size(): number {
    const last = this.segments[this.segments.length - 1];
    return last ? last.base + last.index.size : 0;
  }

  /** Whether some file of the corpus holds a token, in any field. */
  holds(token: string): boolean {
    return this.segments.some(({ index }) => index.termId(token) >= 0);
  }

  /**
   * Whether some profiled file passes `test`, read from the field indexes (its path and role) without decoding a
   * profile: a scope that no file is in is told before anything is ranked.
   */
  some(test: (repo: string, file: Pick<FileSummary, 'file_path' | 'role'>) => boolean): boolean {
    for (const { index, parts } of this.segments) {
      for (const part of parts) {
        for (let d = part.start, end = part.start + part.size; d < end; d++) if (test(part.repo, { file_path: index.paths.at(d), role: index.role(d) })) return true;
      }
    }
    return false;
  }

  /** The segment holding corpus document `d`, and `d`'s number in it. */
  private locate(d: number): { segment: CorpusSegment; local: number } {
    const segments = this.segments;
    const segment = segments.length ? holderOf(segments, d, (s) => s.base) : undefined;
    if (!segment || d < segment.base || d >= segment.base + segment.index.size) throw new RangeError(`no document ${d}`);
    return { segment, local: d - segment.base };
  }

  /** The corpus documents that document `d` imports, and the role of each, from the field index alone. */
  importsOf(d: number): Array<{ doc: number; role: FileRole }> {
    const { segment, local } = this.locate(d);
    const { index, base } = segment;
    const out: Array<{ doc: number; role: FileRole }> = [];
    for (let i = index.importStart[local] as number, end = index.importStart[local + 1] as number; i < end; i++) {
      const target = index.importTargets[i] as number;
      out.push({ doc: base + target, role: index.role(target) });
    }
    return out;
  }

  /** Corpus document `d`'s repository and profile. */
  doc(d: number): IndexedDoc {
    const { segment, local } = this.locate(d);
    const part = holderOf(segment.parts, local, (p) => p.start);
    const file = part.files ? part.files[local - part.start] : part.loaded.packed?.profile(local - part.start);
    if (!file) throw new RangeError(`no document ${d}`);
    return { repo: part.repo, file };
  }

  /**
   * Whether corpus document `d` holds a token in any field, without reading its profile; each token is looked
   * up once, however often it is asked about.
   */
  holderOf(d: number): (token: string) => boolean {
    const { segment, local } = this.locate(d);
    const known = new Map<string, boolean>();
    return (token) => {
      let held = known.get(token);
      if (held === undefined) known.set(token, (held = segment.index.holds(token, local)));
      return held;
    };
  }

  /** Corpus document `d`'s repository-relative path, without reading its profile. */
  path(d: number): string {
    const { segment, local } = this.locate(d);
    return segment.index.paths.at(local);
  }

  /**
   * Corpus document `d`'s current text, from the repository its index records; undefined without a reader, or
   * when the index records no repository or the file cannot be read.
   */
  sourceText(d: number): string | undefined {
    if (!this.readFile) return undefined;
    const { segment, local } = this.locate(d);
    const { loaded } = holderOf(segment.parts, local, (p) => p.start);
    // A packed index's metadata is in its pack: the index itself is not parsed for it.
    const root = loaded.packed ? loaded.packed.indexed?.repo_path : (loaded.index.analysis_metadata as { repo_path?: unknown } | undefined)?.repo_path;
    return typeof root === 'string' && root ? this.readFile(root, segment.index.paths.at(local)) : undefined;
  }

  /** The corpus number of a repository's file, if it is profiled. */
  docNumber(repo: string, filePath: string): number | undefined {
    if (!this.docNumbers) {
      this.docNumbers = new Map();
      for (const { index, base, parts } of this.segments) {
        const paths = index.paths.all();
        for (const { repo, start, size } of parts) {
          for (let d = start; d < start + size; d++) this.docNumbers.set(`${repo}\0${paths[d]}`, base + d);
        }
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

/**
 * The field indexes that `indexes` cover exactly, member after member from the first document to the last: only
 * these can be ranked as one segment. A caller that keeps some of a combined pack's members and not others gets
 * the kept ones built from their JSON, since the shared field index would rank, and count in its statistics,
 * documents of indexes the caller left out.
 */
function coveredWhole(indexes: readonly LoadedIndex[]): Set<FieldIndex> {
  const end = new Map<FieldIndex, number>();
  const broken = new Set<FieldIndex>();
  let previous: FieldIndex | null = null;
  for (const { packed } of indexes) {
    if (!packed) {
      previous = null;
      continue;
    }
    const index = packed.fieldIndex;
    const at = end.get(index);
    if ((at === undefined && packed.start !== 0) || (at !== undefined && (previous !== index || packed.start !== at))) broken.add(index);
    end.set(index, packed.start + packed.size);
    previous = index;
  }
  return new Set([...end].filter(([index, at]) => at === index.size && !broken.has(index)).map(([index]) => index));
}
