/**
 * Where the profile stage puts finished entries. `MemoryEntries` keeps them as objects and builds a RepoIndex
 * (the library's `indexRepository`, which writes nothing); `StreamedEntries` (indexAssembly.ts) writes each to
 * a fragment file as it finishes, keeps only what repository-wide steps need, and assembles the index file.
 */
import type { TermList } from '../../extract/conceptTerms.js';
import type { RawImport } from '../../extract/imports.js';
import { candidateTermsOf, chooseConcepts } from '../../extract/staticProfile.js';
import { WordCache } from '../../extract/wordCache.js';
import type { FileRelationship, FileSummary, RepoIndex } from '../../index/types.js';
import { buildRepoIndex, type BuildIndexInput } from '../buildIndex.js';
import type { PreviousIndex } from './previousIndex.js';
import type { ReusedEntry } from './reuse.js';
import type { WalkedFile } from '../../extract/walkedFile.js';
import { compareCodeUnits } from '../../shared/text.js';

/** What the next run needs to recognise a file without reading it. */
export interface FreshRecord {
  /** The file as walked: its path, mtime and size. */
  file: WalkedFile;
  blob: string | null;
  /** The import specifiers as written, to resolve again when the repository's files change. */
  imports: RawImport[];
  /** A static profile's exported names, to compose its summary again when its imports resolve otherwise; else null. */
  exports: string[] | null;
}

export interface FreshEntry {
  summary: FileSummary;
  relationships: FileRelationship[];
  /** The summary's candidate concept terms when extraction worked them out (`candidateTermsOf`). */
  terms?: TermList | null;
  /** Null for entries the next run makes again without looking (symlinks out of the repository). */
  record: FreshRecord | null;
}

export interface EntrySink {
  /** The previous index reused entries are taken from (null for a run from scratch); the sink closes it. */
  takeFrom(previous: PreviousIndex | null): void;
  addFresh(entry: FreshEntry): Promise<void>;
  addReused(entry: ReusedEntry): Promise<void>;
  /** Each file's commit subjects, by path, given before the first entry: they become the entries' `history`. */
  useHistory(subjects: ReadonlyMap<string, string[]>): void;
  /** How many files are about to be extracted, told before the first of them is added. */
  extracting?(files: number): void;
  /** The relate stage without a model: run over every profile, as written, when the index is assembled. */
  relateWith(relate: Relate): void;
}

/** Static relationships from a repository's finished profiles (relate.ts), in path order. */
export type Relate = (summaries: readonly FileSummary[]) => FileRelationship[];

/** Everything the index needs besides its entries, known once every entry is in. */
export type IndexFacts = Omit<BuildIndexInput, 'summaries' | 'relationships' | 'finishedAt'>;

/** Entries kept as objects, for an index returned rather than written. Takes no previous entries. */
export class MemoryEntries implements EntrySink {
  private readonly summaries: FileSummary[] = [];
  /** Candidate concept terms extraction already worked out, by summary. */
  private readonly terms = new Map<FileSummary, TermList>();
  private readonly relationships: FileRelationship[] = [];
  private history: ReadonlyMap<string, string[]> = new Map();
  private relate: Relate | null = null;

  useHistory(subjects: ReadonlyMap<string, string[]>): void {
    this.history = subjects;
  }

  relateWith(relate: Relate): void {
    this.relate = relate;
  }

  takeFrom(previous: PreviousIndex | null): void {
    if (previous) throw new Error('an index built in memory reuses no previous entries');
  }

  async addFresh(entry: FreshEntry): Promise<void> {
    const summary = withHistory(entry.summary, this.history);
    this.summaries.push(summary);
    if (entry.terms) this.terms.set(summary, entry.terms);
    this.relationships.push(...entry.relationships);
  }

  async addReused(): Promise<void> {
    throw new Error('an index built in memory reuses no previous entries');
  }

  build(facts: IndexFacts, now: () => number): RepoIndex {
    const words = new WordCache();
    chooseConcepts(this.summaries, words, (summary) => this.terms.get(summary) ?? candidateTermsOf(summary, words));
    const inferred = this.relate ? this.relate([...this.summaries].sort((a, b) => compareCodeUnits(a.file_path, b.file_path))) : [];
    return buildRepoIndex({ ...facts, summaries: this.summaries, relationships: [...this.relationships, ...inferred], finishedAt: now() });
  }
}

/** The summary with its file's commit subjects, last (where a later run that adds them to a kept entry puts them). */
export function withHistory(summary: FileSummary, history: ReadonlyMap<string, string[]>): FileSummary {
  const { history: _none, ...rest } = summary;
  const subjects = history.get(summary.file_path);
  return subjects ? { ...rest, history: subjects } : rest;
}
