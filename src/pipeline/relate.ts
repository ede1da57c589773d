/**
 * The relate stage without a model: each file of the target structure is searched for among the repository's
 * profiles, with the search library's own ranker (search.ts), and the best files become its relationships,
 * `source: 'static'`. The query is what the structure says of the file: its name (search's `target`), its folders,
 * and the words of its line (`# LRU cache with a TTL`). A model, when configured, writes relationships instead
 * (llmSession.ts); this runs only without one.
 */
import type { Config } from '../config/schema.js';
import type { AnalysisMetadata, FileRelationship, FileSummary } from '../index/types.js';
import type { TargetFile } from '../llm/targetPaths.js';
import { qualifiedName } from '../index/qualifiedName.js';
import { moduleKey } from '../search/buildOutput.js';
import { splitPath } from '../search/profileTokens.js';
import { search, SearchCorpus } from '../search/search.js';
import type { Reference, SearchResponse } from '../search/types.js';
import { compareCodeUnits, fileStem } from '../shared/text.js';

/** Files ranked for each target: the relationships kept come from these. */
const CANDIDATES = 10;
/** At most this many relationships per target file (DeepCode's prompt asks a model for "the most relevant"). */
export const MAX_STATIC_PER_TARGET = 5;

/** Folder names that say nothing of what a file does: left out of a target's query. */
const PLAIN_FOLDERS = new Set(['src', 'lib', 'app', 'apps', 'pkg', 'internal', 'source', 'sources', 'main', 'core', 'packages', 'cmd', 'java', 'com', 'org', 'js', 'ts', 'py']);

/** File names that say nothing of what a file does: a bare tree's `index.ts` is not searched for by its name. */
const PLAIN_NAMES = new Set(['index', 'main', 'mod', 'lib', '__init__', '__main__', 'init', 'app', 'x']);

/**
 * What a target's references are searched for: its path as the target, and as free text its purpose, its telling
 * folders and its file name (so a bare tree's `ttl_cache.ts` still asks for `ttl_cache`).
 */
export function targetQuery(target: TargetFile): { target: string; query: string } {
  const folders = target.path.split('/').slice(0, -1).filter((s) => !PLAIN_FOLDERS.has(s.toLowerCase()));
  const { stem } = splitPath(target.path);
  const name = PLAIN_NAMES.has(stem.toLowerCase()) ? [] : [stem];
  return { target: target.path, query: [target.purpose, ...folders, ...name].filter(Boolean).join(' ') };
}

/** What a ranked reference offers as evidence that it helps write its target. */
export interface Evidence {
  /** 0 for the first file of the target's ranking. */
  rank: number;
  /** Its score relative to the first file's (1 for the first). */
  relative: number;
  /** The share of the query's words the file holds (in any field), of those some file of the corpus holds. */
  coverage: number;
  /** How far the first file stands above the second (1 - the second's relative score; 1 when alone). */
  lead: number;
}

/**
 * `held` says which of the query's words the corpus holds (heldWords): a word no file holds tells no file from
 * another ("blazing fast" in a package's description), so a file lacking it lacks nothing. A query none of whose
 * words is held gives coverage 0, as one with no words: nothing to judge a file by. Required, so that the eval's
 * calibration reads the confidences relateStatically writes.
 */
export function evidenceOf(response: SearchResponse, rank: number, held: (keyword: string) => boolean): Evidence {
  const ref = response.references[rank] as Reference;
  // A matched word is held by this file: only the query's side needs the test.
  const words = response.keywords_used.filter(held).length;
  return {
    rank,
    relative: ref.score,
    coverage: words ? ref.matched_keywords.length / words : 0,
    lead: 1 - (rivalOf(response.references)?.score ?? 0),
  };
}

/**
 * The reference the first one is measured against: the next that is not another form of the same module (a
 * package's other build, its declaration file), which is no rival to it.
 */
function rivalOf(references: readonly Reference[]): Reference | undefined {
  const [first, ...rest] = references;
  if (!first) return undefined;
  const key = moduleKey(first.file_path);
  return rest.find((ref) => ref.repo_name !== first.repo_name || moduleKey(ref.file_path) !== key);
}

/**
 * How likely a reference is the file a target's author wants, as a number from 0 to 1: the share of references
 * with such evidence that were the right file where this was measured. The first file's chance grows with its
 * lead over the second (the next file that is not another form of the same module: rivalOf); a later file's with
 * its score relative to the first; both fall when the file lacks some of the query's words.
 *
 * Calibration (bench/eval/relate.ts --bins): bench/eval's look-up set, each request read as the purpose of a target
 * file (`x.<the repository's main extension>  # <request>`, or a `--target` case's own path with its keywords) and
 * its answer as the right relationship; the 10 files ranked for each. Fitted on the 138 `hand` cases, checked on
 * the 90 `blind` ones (no held-out repository is in the set). The precision the knots follow, hand cases, files
 * holding every query word:
 *   first file, lead over the second [0, .1): 13 of 27 right; [.1, .2): 9 of 17; [.2, .35): 17 of 20;
 *   [.35, .5): 9 of 12; [.5, 1]: 49 of 51.
 *   later files, relative score >= .9: 13 of 37; [.8, .9): 10 of 41; [.7, .8): 8 of 52; [.5, .7): 16 of 175;
 *   below .5: 21 of 933.
 *   first files lacking some query words (all cases, too few to split): 10 of 21, against 3 in 4 overall.
 * Result over every ranked file (kept or not): confidence above 0.7, 76 of 83 right on the hand cases and 46 of 54 on
 * the blind ones (122 of 137, .891); (.3, .5], 49 of 115; .3 or less, 83 of 1,569. The first file's confidence stays
 * at .45 or more, so a target keeps its best file unless the query's words are missing from it.
 * Since, coverage counts only the words some file holds (heldWords; the knots were kept): above 0.7, 76 of 84 hand
 * and 48 of 57 blind (124 of 141, .879); (.3, .5], 50 of 117; .3 or less, 82 of 1,568; the top relationship's
 * accuracy unchanged on both halves. On the dependency-folder set (a package's description, "blazing fast" and
 * all, as the purpose of `x.js`), the top relationship is the gold package 28 times of 72 instead of 27.
 * Since, the lead is taken over the next file that is not another build of the first's module (rivalOf): the
 * dependency folder's top relationship 28 -> 29 of 72 (react-is, whose two builds ranked first and second); on the
 * look-up set the top relationship is the same (.737) and 128 of 148 ranked files above 0.7 are right, as before.
 */
export function confidenceOf(e: Evidence): number {
  const base = e.rank === 0 ? piecewise(e.lead, FIRST_BY_LEAD) : piecewise(e.relative, LATER_BY_RELATIVE);
  return round2(base * (0.4 + 0.6 * e.coverage));
}

/** (lead of the first file over the second, chance it is right) knots: see confidenceOf. */
const FIRST_BY_LEAD: ReadonlyArray<readonly [number, number]> = [[0, 0.45], [0.15, 0.5], [0.25, 0.8], [0.5, 0.9], [1, 0.95]];
/** (score relative to the first, chance it is right) knots for the second file on: see confidenceOf. */
const LATER_BY_RELATIVE: ReadonlyArray<readonly [number, number]> = [[0, 0], [0.5, 0.05], [0.7, 0.12], [0.8, 0.2], [0.9, 0.3], [1, 0.38]];

/** The value at `x` of the line through `knots` (sorted by x), flat beyond the ends. */
function piecewise(x: number, knots: ReadonlyArray<readonly [number, number]>): number {
  const first = knots[0] as readonly [number, number];
  if (x <= first[0]) return first[1];
  for (let i = 1; i < knots.length; i++) {
    const [x1, y1] = knots[i] as readonly [number, number];
    const [x0, y0] = knots[i - 1] as readonly [number, number];
    if (x <= x1) return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return (knots[knots.length - 1] as readonly [number, number])[1];
}

/**
 * DeepCode's relationship type of a reference: `direct_match` when its file name is the target's, `utility`
 * for a helper or a file that is not source (tests, docs, config, examples), `partial_match` when it holds every
 * word of the query, else `reference`. With a configuration whose types are others, the type whose weight is
 * nearest the confidence.
 */
function relationshipTypeOf(ref: Reference, target: string, evidence: Evidence, confidence: number, types: Readonly<Record<string, number>>): string {
  const wanted = staticType(ref, target, evidence);
  if (wanted in types) return wanted;
  const entries = Object.entries(types);
  entries.sort((a, b) => Math.abs(a[1] - confidence) - Math.abs(b[1] - confidence) || compareCodeUnits(a[0], b[0]));
  return entries[0]?.[0] ?? wanted;
}

function staticType(ref: Reference, target: string, evidence: Evidence): string {
  if (fileStem(ref.file_path) === fileStem(target)) return 'direct_match';
  if (ref.role !== 'source' && ref.role !== 'entry_point') return 'utility';
  if (/(?:^|[/_.-])(?:utils?|helpers?|common|shared|misc)(?:$|[/_.-])/i.test(ref.file_path)) return 'utility';
  return evidence.coverage >= 1 ? 'partial_match' : 'reference';
}


const round2 = (n: number): number => Math.round(n * 100) / 100;

/**
 * A corpus of one repository's profiles, as search reads an index: built once per run, queried once per target.
 */
export function profileCorpus(repoName: string, summaries: readonly FileSummary[]): SearchCorpus {
  const index = { repo_name: repoName, total_files: summaries.length, file_summaries: [...summaries], relationships: [], analysis_metadata: {} as AnalysisMetadata };
  return new SearchCorpus([{ key: repoName, file: '', index }]);
}

/**
 * The static relationships of a repository's profiled files to the target files: for each target, its best
 * references above `min_confidence_score`, at most MAX_STATIC_PER_TARGET, each naming the definitions that
 * matched as its helpful aspects.
 */
export function relateStatically(repoName: string, summaries: readonly FileSummary[], targets: readonly TargetFile[], settings: Config['relationships']): FileRelationship[] {
  if (targets.length === 0 || summaries.length === 0) return [];
  const corpus = profileCorpus(repoName, summaries);
  const held = heldWords(corpus);
  const out: FileRelationship[] = [];
  for (const target of targets) {
    const response = search(corpus, { ...targetQuery(target), maxResults: CANDIDATES });
    let kept = 0;
    for (let rank = 0; rank < response.references.length && kept < MAX_STATIC_PER_TARGET; rank++) {
      const ref = response.references[rank] as Reference;
      const evidence = evidenceOf(response, rank, held);
      const confidence = confidenceOf(evidence);
      if (confidence <= settings.min_confidence_score) continue;
      kept++;
      out.push(relationshipOf(ref, target, evidence, confidence, settings.relationship_types));
    }
  }
  return out;
}

/**
 * Whether the corpus holds a word: each of its tokens is in the vocabulary of some segment. The tokens of a word
 * of several (`parse_http`) may be held by different files; that is taken as held, a looser test than a match's
 * (search.ts: one file holding them all), and cheaper: no postings are read.
 */
export function heldWords(corpus: SearchCorpus): (keyword: string) => boolean {
  const known = new Map<string, boolean>();
  return (keyword) => {
    let held = known.get(keyword);
    if (held === undefined) {
      const tokens = corpus.tokenizer.text(keyword);
      held = tokens.length > 0 && tokens.every((token) => corpus.holds(token));
      known.set(keyword, held);
    }
    return held;
  };
}

function relationshipOf(ref: Reference, target: TargetFile, evidence: Evidence, confidence: number, types: Readonly<Record<string, number>>): FileRelationship {
  const aspects = [...new Set(ref.symbols.map((s) => qualifiedName(s.ast_path)))];
  const matched = ref.matched_keywords;
  const contributions = [
    ...(aspects.length ? [`definitions to read or reuse: ${aspects.slice(0, 5).join(', ')}`] : []),
    ...(matched.length ? [`covers ${matched.join(', ')}`] : []),
  ];
  const what = ref.summary ? `: ${ref.summary}` : '';
  return {
    repo_file_path: ref.file_path,
    target_file_path: target.path,
    relationship_type: relationshipTypeOf(ref, target.path, evidence, confidence, types),
    confidence_score: confidence,
    helpful_aspects: aspects,
    potential_contributions: contributions,
    usage_suggestions: `Read ${ref.file_path} (${ref.role}${ref.language ? `, ${ref.language}` : ''}) before writing ${target.path}${what}`,
    source: 'static',
  };
}
