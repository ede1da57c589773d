/**
 * The `bm25f` ranker (the default): BM25F over a file's profile, then what only an index knows.
 *
 * 1. Text match (BM25F, Robertson & Zaragoza 2009). A query token's count in a file is summed over eight
 *    profile fields, each weighted and length-normalised on its own, then saturated once:
 *
 *      tf~(t, d) = sum_f  w_f * tf(t, f, d) / (1 - b_f + b_f * len(f, d) / avglen(f))
 *      text(d)   = sum_t  idf(t) * tf~ / (k1 + tf~)        idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))
 *
 *    Fields: the file's name, its folders, symbol names (and `main_functions`), key concepts, symbol doc
 *    comments, the summary (unless the static profiler composed it from symbols and imports), imports, and the
 *    file's vocabulary (every word of its code, comments and strings, with its count: what grep would see).
 *    Tokens are identifier parts (camelCase, snake_case) and the whole identifier, lightly stemmed (plurals and
 *    a final e), on both sides. Task words ("fix", "add", "remove"...) weigh `taskWords` unless the request has
 *    nothing else.
 * 2. Coverage: text(d) * (matched tokens / query tokens) ^ coverage, so a file that answers most of the
 *    request beats one that repeats one word. Not for build output (buildOutput.ts: `dist/`, `cjs/`, `umd/`...):
 *    a bundle holds every word of its package, so containing the request's words says nothing there.
 * 3. Import graph: a file gains liftImports * the best text score among the files it imports, liftImporters
 *    * the best among code that imports it, and liftTests * the best among tests that import it or are named
 *    after it (`flag_test.go` -> `flag.go`): a test that matches the request points at the file it exercises.
 * 4. Priors, multiplied in: role (tests, docs, config, examples and build files below source unless the
 *    request names the role: "test", "docs", "example", "ci"...), prose and data files (markdown, YAML,
 *    JSON) below code, centrality (1 + centrality * ln(1 + importers) / ln(1 + most importers in the
 *    repository)) and size (1 + size * ln(1 + lines) / ln(1 + most lines)): files many others import, and
 *    larger files, are the ones changes touch. Build output takes the middle of the size range (1 + size / 2)
 *    whatever its length: a bundle's length is the build's, a compiled module's the compiler's.
 * 5. Target mode (--target): the target's name tokens join the request, a file whose name shares tokens with
 *    the target gains targetName * overlap, files in the target's language family (JavaScript, TypeScript, TSX
 *    and Vue are one; C and C++ another: languages.ts's languageFamily) are multiplied by sameLanguage,
 *    files the index relates to the target gain relationship * confidence * type weight, and a target that is
 *    a test (docs, an example...) asks for its role, so the tests beside it are not pushed down.
 * 6. Files named for the request: a file whose name holds every term of the request's words (task words aside; in
 *    target mode the keywords', not the target's) gains nameMatch * (those terms' idf) * (their count / its name's
 *    tokens), so `-k cache` finds `cache.ts` and `profileCache.ts` before the largest file that merely uses a cache
 *    (one word saturates in every heavy user of it, and the size prior decides among them), and "profile cache"
 *    finds `profileCache.ts`. A name holding only some of the terms gains nothing here: in the commit set a
 *    message's words name neighbours of the files it changed far more often than the files themselves, and a lift
 *    for partial names cost R@1 there. A request that is one name (`echo`, `get_current_context`, or `Request
 *    class`: a kind word beside a name written as code) lifts the files that define it alike, by its definition
 *    token's idf, before the larger files that only call it. Neither lift reaches a test, doc or example the
 *    request does not ask for, nor a prose file: a test named `cache` is still a test. bench/eval/lookup.ts
 *    measures look-ups, which the commit and description sets cannot.
 *
 * How the weights were chosen: coordinate ascent on MRR (bench/eval/tune.ts) over bench/eval's two sets (480 commits of
 * 12 repositories in 6 languages, and 69 repositories looked up by their own description), on the tuning half of
 * each, coarse grids and a minimum gain per step; the other half is held out and reported. Of the first round's
 * steps, the ones kept are those that also held on the held-out half (docs 1, b.docs 0.5, imports 1, liftTests
 * 0.2); dropping the symbols and concepts fields gained on the tuning half only, so they stay. The body field's
 * weight (0.3) was not moved by the grid. Role and prose factors, the summary weight and the target-mode weights
 * are set by judgement, not tuned: the evaluation's answers are never tests or docs (tuning would drive those
 * factors to zero), its summaries are the static profiler's, and it has few target-mode cases.
 */
import type { FileRole } from '../index/types.js';
import { buildOutputDocs } from './buildOutput.js';
import { FIELD_BITS, FIELDS, ROLES, type FieldIndex, type FieldName } from './fieldIndex.js';
import { compareCodeUnits } from '../shared/text.js';
import { languageFamily } from '../extract/languages.js';

export interface Bm25fParams {
  k1: number;
  weights: Record<FieldName, number>;
  b: Record<FieldName, number>;
  coverage: number;
  /** Lift from the best-matching file this one imports / that imports this one. */
  liftImports: number;
  liftImporters: number;
  /** Lift from the best-matching test that imports this file or is named after it. */
  liftTests: number;
  centrality: number;
  size: number;
  /** Multipliers for roles the query does not ask for; roles not listed keep 1. */
  roles: Partial<Record<FileRole, number>>;
  /** Multiplier for prose and data files (markdown, YAML, JSON...) unless the query asks for docs or config. */
  nonCode: number;
  /** Weight of words that say what to do rather than what about (fix, add, remove...). */
  taskWords: number;
  targetName: number;
  sameLanguage: number;
  relationship: number;
  /** The lift of a file named for the request (step 6). */
  nameMatch: number;
}

/** Tuned on bench/eval's even half (bench/eval/tune.ts); roles, nonCode and the target-mode weights by judgement. */
export const DEFAULT_PARAMS: Bm25fParams = {
  k1: 1.2,
  weights: { name: 0.5, path: 1, symbols: 4, concepts: 1.5, docs: 1, summary: 1, imports: 1, body: 0.3, history: 0.5 },
  b: { name: 0.3, path: 0.3, symbols: 0.5, concepts: 0.3, docs: 0.5, summary: 0.75, imports: 0.25, body: 0.75, history: 0.5 },
  coverage: 0.5,
  liftImports: 0.1,
  liftImporters: 0,
  liftTests: 0.2,
  centrality: 0.2,
  size: 1.5,
  // Declarations below their implementation (semble weighs .d.ts 0.7); a lock file under any code that matches.
  roles: { test: 0.4, docs: 0.35, config: 0.35, example: 0.4, build: 0.4, data: 0.3, generated: 0.2, types: 0.6, benchmark: 0.4, lockfile: 0.01 },
  nonCode: 0.5,
  taskWords: 0,
  targetName: 2,
  sameLanguage: 1.2,
  relationship: 3,
  nameMatch: 2,
}

/**
 * Query words that ask for a role, so its files are not pushed down. Stemmed forms. Words that are also
 * everyday code topics (config, json, yaml, build) do not count: "fix config merging" is about code.
 */
const ROLE_WORDS: Partial<Record<FileRole, readonly string[]>> = {
  test: ['test', 'spec', 'unittest', 'pytest', 'jest', 'mocha', 'vitest', 'fixtur', 'e2e'],
  docs: ['doc', 'documentation', 'readm', 'changelog', 'markdown'],
  example: ['exampl', 'demo', 'sampl'],
  config: ['ci', 'workflow', 'lint', 'eslint', 'tsconfig', 'prettier', 'dependabot'],
  build: ['makefil', 'dockerfil', 'webpack', 'rollup', 'gulp', 'grunt'],
  // Not `typ`: "type" is an everyday code word (TypeError, the type of a value).
  types: ['typescript', 'declaration', 'dts', 'stub'],
  benchmark: ['bench', 'benchmark'],
  lockfile: ['lockfil'],
};

/**
 * Words a request uses to say what to do, not what it is about: "fix", "add", "remove support for". Code
 * rarely names things with them, so their idf is high in profiles and they would pull in whatever does.
 * Stemmed forms.
 */
export const TASK_WORDS: ReadonlySet<string> = new Set([
  'fix', 'add', 'remov', 'updat', 'chang', 'improv', 'support', 'allow', 'mak', 'issu', 'instead', 'bug',
  'implement', 'refactor', 'clean', 'correct', 'ensur', 'properly', 'new', 'replac', 'miss', 'work', 'prevent',
]);

export interface RankInput {
  /** Stemmed query tokens, distinct. */
  terms: readonly string[];
  /** Stemmed tokens of the target file's name (target mode), empty otherwise. */
  targetName: readonly string[];
  /** The target's language name (`TypeScript`), or '' when unknown. */
  targetLanguage: string;
  /** Extra evidence per document (corpus-wide numbers), already weighted: relationships to the target. */
  related?: ReadonlyMap<number, number>;
  /** A weight per term (1 when absent): how often a long request says it. */
  termWeights?: ReadonlyMap<string, number>;
  /** The tokens that may ask for a role (tests, docs...), when not all the terms: a task's title. */
  roleTerms?: readonly string[];
  /** The target's own role: a test (docs, example...) about to be written asks for its kind, a source file nothing. */
  targetRole?: FileRole;
  /** The request's own terms, whose every one a file's name must hold to be lifted (step 6); none for task texts. */
  nameTerms?: readonly string[];
  /** When the request is one name: the symbols-field token of its definition (`definedToken`), lifted (step 6). */
  defines?: string;
}

/**
 * A field index; its documents are numbered from `base` in the corpus. Most segments are one repository's
 * index; a folder's combined pack is one segment over several, each a `part`: the statistics a repository's
 * own index would give (mean field lengths, the structural priors' maxima) are kept per part, so a folder ranks
 * the same whether it is read index by index or combined.
 */
export interface Segment {
  index: FieldIndex;
  base: number;
  /** The repository indexes the segment joins, in document order; absent for one repository's index. */
  parts?: readonly SegmentPart[];
}

/** One repository index within a segment: documents `[start, start + size)`, and their mean field lengths. */
export interface SegmentPart {
  start: number;
  size: number;
  avgLength: Float64Array;
}

/** A segment's parts: the whole index when it is one repository's. */
function partsOf({ index, parts }: Segment): readonly SegmentPart[] {
  return parts ?? [{ start: 0, size: index.size, avgLength: index.avgLength }];
}

export interface Ranked {
  /** Corpus-wide document number: segment base + the document's number in its segment. */
  doc: number;
  score: number;
}

/** Roles the query asks for, from its stemmed tokens. */
export function askedRoles(terms: readonly string[]): Set<FileRole> {
  const asked = new Set<FileRole>();
  for (const [role, words] of Object.entries(ROLE_WORDS) as Array<[FileRole, readonly string[]]>) {
    if (terms.some((t) => words.includes(t))) asked.add(role);
  }
  return asked;
}

/**
 * The documents with a positive score, best first (ties by path), at most `limit` of them; the score of each
 * document `watched` has a key for is written into it, whether or not it makes the cut. Document
 * frequencies and mean field lengths are summed over the segments for the query's terms only, so segments
 * are built (or read from disk) independently and still rank as one corpus.
 */
export function rankBm25f(segments: readonly Segment[], input: RankInput, params: Bm25fParams = DEFAULT_PARAMS, limit = Infinity, watched?: Map<number, number>): Ranked[] {
  const stats = corpusStats(segments, input.terms, input.termWeights);
  const asked = askedRoles([...(input.roleTerms ?? input.terms), ...input.targetName]);
  if (input.targetRole && input.targetRole !== 'source') asked.add(input.targetRole);
  const own = input.nameTerms?.length ? ownTerms(stats, input.nameTerms) : [];
  const definition = input.defines ? corpusStats(segments, [input.defines]).terms.find((t) => t.idf > 0) : undefined;
  const best = new Best(limit, (doc) => {
    const segment = holderOf(segments, doc, (s) => s.base);
    return segment.index.paths.at(doc - segment.base);
  });
  for (const segment of segments) {
    const { index, base } = segment;
    const n = index.size;
    const score = textScores(index, stats, params);
    addLift(index, score, params);
    if (input.targetName.length) addTargetName(index, input.targetName, params.targetName, score);
    if (params.nameMatch > 0 && (own.length || definition)) {
      const liftable = liftableDocs(index, asked, params);
      if (own.length) addNameMatch(index, own, params.nameMatch, score, liftable);
      if (definition) addDefinitionMatch(index, definition, params.nameMatch, score, liftable);
    }
    if (input.related) {
      for (const [doc, weight] of input.related) {
        const d = doc - base;
        if (d >= 0 && d < n) score.add(d, params.relationship * weight);
      }
    }
    const prior = priorOf(index, partsOf(segment), input, asked, params);
    for (const d of score.docs) {
      const raw = score.value[d] as number;
      // NaN too: a damaged search pack must never put a document in the answer.
      if (raw > 0) best.offer(base + d, raw * prior(d));
    }
    // The watched few are looked up, rather than every scored document looked for among them.
    if (watched) {
      for (const doc of watched.keys()) {
        const d = doc - base;
        const raw = d >= 0 && d < n ? (score.value[d] as number) : 0;
        if (raw > 0) watched.set(doc, raw * prior(d));
      }
    }
  }
  return best.ranked();
}

/** The last of `items`, in order of where they start, that starts at or before `at`: the one holding it. */
export function holderOf<T>(items: readonly T[], at: number, startOf: (item: T) => number): T {
  let lo = 0;
  let hi = items.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (startOf(items[mid] as T) <= at) lo = mid;
    else hi = mid - 1;
  }
  return items[lo] as T;
}

/**
 * The `limit` best of the documents offered, by score, then path, then number: a heap whose root is the worst kept,
 * so a document that cannot make the cut costs one comparison, and paths are read only to break ties.
 */
class Best {
  private readonly docs: number[] = [];
  private readonly scores: number[] = [];

  constructor(
    private readonly limit: number,
    private readonly pathOf: (doc: number) => string,
  ) {}

  offer(doc: number, score: number): void {
    if (this.docs.length < this.limit) {
      this.docs.push(doc);
      this.scores.push(score);
      if (Number.isFinite(this.limit)) this.up(this.docs.length - 1);
    } else if (this.limit > 0 && this.better(doc, score, 0)) {
      this.docs[0] = doc;
      this.scores[0] = score;
      this.down(0);
    }
  }

  ranked(): Ranked[] {
    const out = this.docs.map((doc, i) => ({ doc, score: this.scores[i] as number }));
    return out.sort((a, b) => b.score - a.score || compareCodeUnits(this.pathOf(a.doc), this.pathOf(b.doc)) || a.doc - b.doc);
  }

  /** Whether (doc, score) ranks above the kept entry at heap position `i`. */
  private better(doc: number, score: number, i: number): boolean {
    const other = this.scores[i] as number;
    if (score !== other) return score > other;
    const byPath = compareCodeUnits(this.pathOf(doc), this.pathOf(this.docs[i] as number));
    return byPath < 0 || (byPath === 0 && doc < (this.docs[i] as number));
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.better(this.docs[parent] as number, this.scores[parent] as number, i)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.docs.length;
    for (;;) {
      let worst = i;
      for (const child of [2 * i + 1, 2 * i + 2]) {
        if (child < n && this.better(this.docs[worst] as number, this.scores[worst] as number, child)) worst = child;
      }
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  private swap(a: number, b: number): void {
    [this.docs[a], this.docs[b]] = [this.docs[b] as number, this.docs[a] as number];
    [this.scores[a], this.scores[b]] = [this.scores[b] as number, this.scores[a] as number];
  }
}

/** What BM25F needs beyond one segment: corpus size, mean field lengths, and each query term's idf. */
export interface CorpusStats {
  n: number;
  avgLength: Float64Array;
  /** Each distinct query term, its idf, its weight in the request, and whether it is a task word to weigh by `taskWords`. */
  terms: Array<{ term: string; idf: number; weight: number; task: boolean }>;
}

/** How many documents of the corpus hold `term` in any field. */
export function documentFrequency(segments: readonly Segment[], term: string): number {
  let df = 0;
  for (const { index } of segments) {
    const id = index.termId(term);
    if (id >= 0) df += index.docFrequency(id);
  }
  return df;
}

export function corpusStats(segments: readonly Segment[], terms: readonly string[], weights?: ReadonlyMap<string, number>): CorpusStats {
  let n = 0;
  const avgLength = new Float64Array(FIELDS.length);
  for (const part of segments.flatMap(partsOf)) {
    n += part.size;
    for (let f = 0; f < FIELDS.length; f++) avgLength[f] = (avgLength[f] as number) + (part.avgLength[f] as number) * part.size;
  }
  for (let f = 0; f < FIELDS.length; f++) avgLength[f] = n ? (avgLength[f] as number) / n : 0;
  const out: CorpusStats['terms'] = [];
  for (const term of new Set(terms)) {
    const df = documentFrequency(segments, term);
    out.push({ term, idf: df ? Math.log(1 + (n - df + 0.5) / (df + 0.5)) : 0, weight: weights?.get(term) ?? 1, task: TASK_WORDS.has(term) });
  }
  // A request made of task words alone ("fix the fix") is about them after all.
  if (out.every((t) => t.task || t.idf === 0)) for (const t of out) t.task = false;
  return { n, avgLength, terms: out };
}

/**
 * A segment's scores, and the documents that have one, in the order they got it: every later step visits
 * those alone, not the whole segment, since a query matches a small part of a large index.
 */
class Scores {
  readonly value: Float64Array;
  private readonly order: Int32Array;
  private count = 0;
  private readonly listed: Uint8Array;

  constructor(n: number) {
    this.value = new Float64Array(n);
    this.order = new Int32Array(n);
    this.listed = new Uint8Array(n);
  }

  /** The documents listed, in the order they were. */
  get docs(): Int32Array {
    return this.order.subarray(0, this.count);
  }

  add(d: number, amount: number): void {
    this.list(d);
    this.value[d] = (this.value[d] as number) + amount;
  }

  list(d: number): void {
    if (this.listed[d]) return;
    this.listed[d] = 1;
    this.order[this.count++] = d;
  }
}

/** BM25F text scores of one segment's documents, with the coverage factor applied. */
function textScores(index: FieldIndex, stats: CorpusStats, params: Bm25fParams): Scores {
  const n = index.size;
  const out = new Scores(n);
  const matched = new Uint16Array(n);
  const weights = FIELDS.map((f) => params.weights[f]);
  const bs = FIELDS.map((f) => params.b[f]);
  const inverseAvg = FIELDS.map((_, f) => {
    const avg = stats.avgLength[f] as number;
    return avg > 0 ? 1 / avg : 0;
  });
  const { k1 } = params;
  const fieldMask = (1 << FIELD_BITS) - 1;
  let used = 0;
  for (const { term, idf: rawIdf, weight, task } of stats.terms) {
    const idf = rawIdf * weight * (task ? params.taskWords : 1);
    if (idf <= 0) continue;
    used++;
    const id = index.termId(term);
    if (id < 0) continue;
    const postings = index.postingsOf(id);
    const end = postings.length;
    let i = 0;
    while (i < end) {
      const d = postings[i] as number;
      if (d >= n || d < 0) break;
      let t = 0;
      for (; i < end && postings[i] === d; i += 2) {
        const packed = postings[i + 1] as number;
        const f = packed & fieldMask;
        const w = weights[f] as number;
        if (w === 0) continue;
        const b = bs[f] as number;
        const len = index.lengths[f * n + d] as number;
        t += (w * (packed >>> FIELD_BITS)) / (1 - b + b * len * (inverseAvg[f] as number));
      }
      if (t > 0) {
        out.add(d, (idf * t) / (k1 + t));
        matched[d] = (matched[d] as number) + 1;
      }
    }
  }
  if (params.coverage > 0 && used > 1) {
    const built = buildOutputDocs(index);
    for (const d of out.docs) if (!built(d)) out.value[d] = (out.value[d] as number) * Math.pow((matched[d] as number) / used, params.coverage);
  }
  return out;
}

/**
 * Adds the import graph's lift to text scores, in place: each file gains from the best-matching file it imports
 * and the best-matching test that imports it (or is named after it). Only matching files spread lift, so this
 * visits their edges, not the whole graph; a lift weighed 0 is not spread at all.
 */
function addLift(index: FieldIndex, score: Scores, params: Bm25fParams): void {
  const { liftImports, liftImporters, liftTests } = params;
  const n = index.size;
  const imported = liftImports > 0 ? new Float64Array(n) : null;
  const fromCode = liftImporters > 0 ? new Float64Array(n) : null;
  const fromTests = liftTests > 0 ? new Float64Array(n) : null;
  if (!imported && !fromCode && !fromTests) return;
  const testRole = ROLES.indexOf('test');
  // The files with a text score: a view of the list as it is now; the files they reach are listed after them.
  const matched = score.docs;
  for (const s of matched) {
    const t = score.value[s] as number;
    if (!(t > 0)) continue;
    // s is imported by these files: each of them imports a match.
    if (imported) {
      for (let i = index.importerStart[s] as number, end = index.importerStart[s + 1] as number; i < end; i++) {
        const d = index.importerSources[i] as number;
        score.list(d);
        if (t > (imported[d] as number)) imported[d] = t;
      }
    }
    // s imports these files: each is imported by a matching test or by matching code.
    const into = index.roles[s] === testRole ? fromTests : fromCode;
    if (!into) continue;
    for (let i = index.importStart[s] as number, end = index.importStart[s + 1] as number; i < end; i++) {
      const d = index.importTargets[i] as number;
      score.list(d);
      if (t > (into[d] as number)) into[d] = t;
    }
  }
  for (const d of score.docs) {
    score.value[d] = (score.value[d] as number) + liftImports * (imported?.[d] ?? 0) + liftImporters * (fromCode?.[d] ?? 0) + liftTests * (fromTests?.[d] ?? 0);
  }
}

/**
 * The prior of a segment's document: role, prose, centrality, size and language multipliers. Centrality and
 * size do not depend on the query, so they are computed once per field index and weights.
 */
export function priorOf(index: FieldIndex, parts: readonly SegmentPart[], input: RankInput, asked: ReadonlySet<FileRole>, params: Bm25fParams): (d: number) => number {
  const structural = structuralPriors(index, parts, params.centrality, params.size);
  const proseAsked = asked.has('docs') || asked.has('config');
  const roleFactor = ROLES.map((role) => (asked.has(role) ? 1 : (params.roles[role] ?? 1)));
  // The target's language and those whose files serve it as well (a `.ts` helper for a `.js` target).
  const family = new Set(input.targetLanguage ? languageFamily(input.targetLanguage).map((name) => index.languages.indexOf(name)).filter((i) => i >= 0) : []);
  return (d) => {
    let p = structural(d) * (roleFactor[index.roles[d] as number] ?? 1);
    if (!index.isCode[d] && !proseAsked) p *= params.nonCode;
    if (family.has(index.languageOf[d] as number)) p *= params.sameLanguage;
    return p;
  };
}

/**
 * (1 + centrality * ln(1 + importers) / ln(1 + most importers in the repository)) * (1 + size * ln(1 + lines) /
 * ln(1 + most lines in the repository)), worked out for the documents asked about; the maxima, which need the
 * whole of each part, once per field index.
 */
function structuralPriors(index: FieldIndex, parts: readonly SegmentPart[], centrality: number, size: number): (d: number) => number {
  const maxima = index.memo('structural-maxima', () =>
    parts.map(({ start, size: count }) => {
      let maxImporters = 0;
      let maxLines = 0;
      for (let d = start; d < start + count; d++) {
        maxImporters = Math.max(maxImporters, (index.importerStart[d + 1] as number) - (index.importerStart[d] as number));
        maxLines = Math.max(maxLines, index.linesOfCode[d] as number);
      }
      return { start, logMaxImporters: Math.log1p(maxImporters) || 1, logMaxLines: Math.log1p(maxLines) || 1 };
    }),
  );
  const built = buildOutputDocs(index);
  // Kept per document as worked out (0: not yet), so a warm search over every file pays for each one once.
  const known = index.memo(`structural-priors:${centrality}:${size}`, () => new Float64Array(index.size));
  return (d) => {
    const kept = known[d] as number;
    if (kept) return kept;
    const { logMaxImporters, logMaxLines } = holderOf(maxima, d, (m) => m.start);
    const importers = (index.importerStart[d + 1] as number) - (index.importerStart[d] as number);
    const sizeShare = built(d) ? 0.5 : Math.log1p(Math.max(0, index.linesOfCode[d] as number)) / logMaxLines;
    return (known[d] = (1 + (centrality * Math.log1p(importers)) / logMaxImporters) * (1 + size * sizeShare));
  };
}

/** `terms` but task words, with their idf; none when one of them is in no file at all. */
function ownTerms(stats: CorpusStats, terms: readonly string[]): Array<{ term: string; idf: number }> {
  const wanted = new Set(terms);
  const own = stats.terms.filter((t) => wanted.has(t.term) && !t.task);
  return own.every((t) => t.idf > 0) ? own.map(({ term, idf }) => ({ term, idf })) : [];
}

/** Code files of roles the request does not push down: the ones a name or definition lift may reach. */
function liftableDocs(index: FieldIndex, asked: ReadonlySet<FileRole>, params: Bm25fParams): (d: number) => boolean {
  const byRole = ROLES.map((role) => asked.has(role) || (params.roles[role] ?? 1) >= 1);
  return (d) => index.isCode[d] === 1 && (byRole[index.roles[d] as number] ?? true);
}

/** Adds weight * idf to the files whose symbols field holds the request's definition token. */
function addDefinitionMatch(index: FieldIndex, { term, idf }: { term: string; idf: number }, weight: number, score: Scores, liftable: (d: number) => boolean): void {
  for (const d of index.docsWith(term, SYMBOLS_FIELD)) if (d >= 0 && d < index.size && liftable(d)) score.add(d, weight * idf);
}

/** Adds weight * (the terms' idf) * (their count / the name's tokens) to files whose name holds every one of `terms`. */
function addNameMatch(index: FieldIndex, terms: ReadonlyArray<{ term: string; idf: number }>, weight: number, score: Scores, liftable: (d: number) => boolean): void {
  const named = new Map<number, { idf: number; count: number }>();
  for (const { term, idf } of terms) {
    // Once per term, even where a damaged pack lists a posting twice.
    for (const d of new Set(index.docsWith(term, NAME_FIELD))) {
      const seen = named.get(d);
      if (!seen) named.set(d, { idf, count: 1 });
      else {
        seen.idf += idf;
        seen.count++;
      }
    }
  }
  for (const [d, { idf, count }] of named) {
    if (count < terms.length || !(d >= 0 && d < index.size) || !liftable(d)) continue;
    score.add(d, (weight * idf * count) / Math.max(count, index.lengths[NAME_FIELD * index.size + d] as number));
  }
}

const NAME_FIELD = FIELDS.indexOf('name');
const SYMBOLS_FIELD = FIELDS.indexOf('symbols');

/** Adds weight * (shared name tokens / the longer name's tokens) for files named like the target. */
function addTargetName(index: FieldIndex, targetName: readonly string[], weight: number, score: Scores): void {
  const wanted = new Set(targetName);
  const shared = new Map<number, number>();
  for (const term of wanted) for (const d of index.docsWith(term, NAME_FIELD)) shared.set(d, (shared.get(d) ?? 0) + 1);
  for (const [d, count] of shared) {
    const nameLength = index.lengths[d] as number;
    if (d >= 0 && d < index.size) score.add(d, (weight * count) / Math.max(wanted.size, nameLength, 1));
  }
}

