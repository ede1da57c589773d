/**
 * Ranking for a task text (an issue report, an agent's task): BM25F over its words with weights fitted for
 * long requests, then the anchors the text names (taskQuery.ts) resolved through the paths and the symbol
 * table and added on top.
 *
 * Why not BM25F as for a few keywords: a report of 300 words holds most words of the big central modules (the
 * linter's main class, the config package), and BM25F with its coverage factor and size prior puts those first.
 * Here coverage is off, size is a penalty and centrality weak, the vocabulary field weighs less, only the text's
 * most telling words are searched, a word counts by how often the text repeats it (saturated), tests, docs and
 * examples are demoted unless the title asks for them, and words the text runs apart that the code runs together
 * ("man page" -> `manpage`) are joined.
 *
 * Anchors never replace the text match: each adds `anchorBoost` times the best text score, times its strength
 * (1 for a file a frame names or a symbol defined once, less as more files could be meant), so a small module a
 * traceback names climbs to the top while the text still orders everything the anchors do not reach.
 */
import { DEFAULT_PARAMS, corpusStats, rankBm25f, type Ranked, type RankInput } from './bm25f.js';
import type { SearchCorpus } from './corpus.js';
import { FIELDS, type FieldIndex } from './fieldIndex.js';
import { inflectionBases } from './inflections.js';
import { SYMBOL_PARAMS } from './symbolRank.js';
import { lineTerms, rerankByPassages, type LineTerms } from './passages.js';
import { definitionToken, splitPath, type Tokenizer } from './profileTokens.js';
import { compareCodeUnits, fileStem, splitIdentifier } from '../shared/text.js';
import { titleOf, withoutPositions, type TaskText } from './taskQuery.js';
import type { Anchor, TaskParams } from './types.js';

export type { TaskParams } from './types.js';

/**
 * Chosen by bench/eval/tuneTask.ts on the issue set's tuning half (72 sympy and astropy reports), from a start set by
 * judgement: the body field weighs 0.2 (a hub's vocabulary holds every word of a report), size is a penalty (-0.5:
 * the largest file of a repository gets half the prior of a one-line file), only the 40 most telling words of a
 * text are searched, and names found only in pasted code weigh 0.3 (reproduction scripts call what they use, not
 * what is broken). Commit subjects (the history field) weigh 0.25, the best of 0 to 8 on the same half by MRR alone
 * (.677 against .674 at 0.5; no Acc@k moved below 8, where Acc@1 fell). The plain keyword ranking of the same text
 * is fused in at half weight (scores divided by each ranking's best): the plain ranking, with its coverage and size
 * prior, finds the file the task ranking misses often enough to lift Acc@5 (tuning half of 84 Python, Rust, Java,
 * JavaScript and Go reports: Acc@5 .631 -> .667, Acc@1 .262 -> .321; reciprocal-rank fusion did worse at every k tried).
 * Re-tuned on the larger tuning half of every Python instance (`--issues-cap 200`: 72 sympy and astropy reports, 124
 * with the other languages): a word said often saturates later (k3 5), the title's words weigh 1.5 times, and
 * snake_case or camelCase names written in the prose are anchors of weight 0.3 (objective .681 -> .694, Acc@5 .702 ->
 * .726; the title's weight moved the file-level objective by .002 alone, and was kept for function level, fn Acc@5
 * .310 -> .338). One hop along imports or folders from the best files lowered every figure there and was dropped.
 * The fused plain ranking searches the text's 40 rarest words, not all: the same tuning objective (.6943 -> .6942)
 * at two thirds of a warm search's time.
 * When the corpus may read the repositories' files, the first five files are reordered by their best 40-line
 * passage at equal weight with their own score (passages.ts), and the symbols of those five are weighed by their own
 * lines' score (up to 3 times): on the 124-case tuning half Acc@1 .371 -> .435, MRR .672 -> .717, Acc@5 .734 as it was
 * (it cannot move), fn Acc@5 / Acc@10 .352 / .451 -> .394 / .465; head, window, weight and the symbols' weight swept
 * there (3 / 10 files, 20 / 80 lines, weights 0.5 / 2, symbols 0.5 to 4: none better).
 */
export const TASK_PARAMS: TaskParams = {
  bm25f: {
    ...DEFAULT_PARAMS,
    weights: { ...DEFAULT_PARAMS.weights, body: 0.2, history: 0.25 },
    coverage: 0,
    centrality: 0.1,
    size: -0.5,
    roles: { ...DEFAULT_PARAMS.roles, test: 0.3, docs: 0.1, example: 0.3 },
  },
  k3: 5,
  maxTerms: 40,
  title: 0.5,
  anchorBoost: 1,
  sources: { frame: 1, backtick: 0.9, code: 0.3, dotted: 0.8, error: 0.7, prose: 0.9, identifier: 0.3 },
  unqualified: 0.6,
  basenameOnly: 0.5,
  fusion: { plain: 0.5, k: 0, maxTerms: 40 },
  passages: { head: 5, lines: 40, weight: 1, symbols: 2 },
  symbols: SYMBOL_PARAMS,
};

/** A symbol or option more files than this define or hold points nowhere in particular. */
const MAX_DEFINERS = 12;
const SYMBOLS_FIELD = FIELDS.indexOf('symbols');

export interface TaskRanking {
  ranked: Ranked[];
  /** The input BM25F saw: the text's terms with their weights. */
  input: RankInput;
  /**
   * With fusion, each ranked document's score in the task ranking alone (0 for one only the plain ranking has):
   * what its symbols are weighed by, on the scale symbolRank.ts was fitted to.
   */
  taskScores?: ReadonlyMap<number, number>;
  /** The texts of the first files, read for their passages and tokenised for the text's terms (none when the corpus may not read files). */
  sources?: ReadonlyMap<number, LineTerms>;
}

/**
 * `plain` is what BM25F would be asked for the same text as a few keywords (search.ts's bm25fInput); with
 * `params.fusion.plain` > 0 that ranking is fused in.
 */
export function rankTask(corpus: SearchCorpus, task: TaskText, limit: number, params: TaskParams = TASK_PARAMS, plain?: RankInput): TaskRanking {
  const fused = plain !== undefined && params.fusion.plain > 0;
  // Fusion reorders: both rankings are read deeper than the answer, so a file one of them ranks just below the cut can rise.
  const depth = fused ? Math.max(limit, FUSION_DEPTH) : limit;
  const input = taskInput(corpus, task, params.k3, params.maxTerms, params.title);
  const anchored = resolveAnchors(corpus, task.anchors, params);
  // Anchored documents below the cut still need their text scores: they are watched.
  const watched = new Map([...anchored.keys()].map((doc) => [doc, 0]));
  const textRanked = rankBm25f(corpus.segments, input, params.bm25f, depth, watched);
  const top = textRanked[0]?.score ?? 1;
  const scores = new Map<number, number>();
  for (const { doc, score } of textRanked) scores.set(doc, score);
  for (const [doc, strength] of anchored) scores.set(doc, (watched.get(doc) ?? 0) + params.anchorBoost * top * strength);
  const ranked = byScore(corpus, [...scores].map(([doc, score]) => ({ doc, score })));
  if (!fused) return { ...byPassages(corpus, declarationsBeside(corpus, ranked), input, params, limit), input };
  // Roles are asked for by the title alone in both rankings (taskInput): a report's body names tests and examples in passing.
  const plainInput = { ...rarestTerms(corpus, plain, params.fusion.maxTerms), roleTerms: input.roleTerms };
  const fusedRanked = fuseRankings(ranked, rankBm25f(corpus.segments, plainInput, { ...DEFAULT_PARAMS, roles: params.bm25f.roles }, depth), params.fusion);
  return { ...byPassages(corpus, declarationsBeside(corpus, byScore(corpus, fusedRanked)), input, params, limit), input, taskScores: scores };
}

/** How many of the first files bring the declaration files they import up beside them. */
const DECLARING_HEAD = 3;

/**
 * The ranking with each declaration file (role `types`) in the folder of one of its first files, imported by it
 * and matched by the text too, placed right after that file: `src/cards/top-languages-card.js` takes its options'
 * type from `import("./types").TopLangOptions`, so a report asking for a new option edits both. A declaration file
 * elsewhere (`typings/pluginapi.d.ts`, which every route imports) declares an API, not that file: the `types` role
 * keeps it, and the others, below the code.
 */
function declarationsBeside(corpus: SearchCorpus, ranked: Ranked[]): Ranked[] {
  // Looked up only once a first file imports a declaration file beside it: most searches have none.
  let byDoc: Map<number, Ranked> | null = null;
  let moved = false;
  for (const importer of ranked.slice(0, DECLARING_HEAD)) {
    const folder = splitPath(corpus.path(importer.doc)).dir;
    for (const { doc, role } of corpus.importsOf(importer.doc)) {
      if (role !== 'types' || splitPath(corpus.path(doc)).dir !== folder) continue;
      byDoc ??= new Map(ranked.map((entry) => [entry.doc, entry]));
      const entry = byDoc.get(doc);
      const beside = importer.score * (1 - 1e-9);
      if (entry && entry.score > 0 && entry.score < beside) {
        entry.score = beside;
        moved = true;
      }
    }
  }
  return moved ? byScore(corpus, ranked) : ranked;
}

/**
 * The ranking's first `limit` files, its head reordered by their passages when the corpus may read them (each term
 * weighs its idf times its weight in the text), and the head's texts as read, tokenised for those terms.
 */
function byPassages(corpus: SearchCorpus, ranked: Ranked[], input: RankInput, params: TaskParams, limit: number): Pick<TaskRanking, 'ranked' | 'sources'> {
  if (!corpus.readsSources || params.passages.head < 2) return { ranked: ranked.slice(0, limit) };
  const termWeights = new Map<string, number>();
  for (const { term, idf, weight } of corpusStats(corpus.segments, input.terms, input.termWeights).terms) if (idf > 0) termWeights.set(term, idf * weight);
  const texts = ranked.slice(0, params.passages.head).map(({ doc }) => {
    const text = corpus.sourceText(doc);
    return text === undefined ? undefined : lineTerms(text, termWeights, corpus.tokenizer);
  });
  const sources = new Map<number, LineTerms>();
  texts.forEach((text, i) => text !== undefined && sources.set((ranked[i] as Ranked).doc, text));
  if (!sources.size) return { ranked: ranked.slice(0, limit) };
  return { ranked: rerankByPassages(ranked, texts, termWeights, params.passages).slice(0, limit), sources };
}

/** The request with only its `max` rarest terms (all for 0): the common words of a long text cost most and decide least. */
export function rarestTerms(corpus: SearchCorpus, input: RankInput, max: number): RankInput {
  if (max <= 0 || input.terms.length <= max) return input;
  return { ...input, terms: strongestTerms(corpus, input.terms, max) };
}

/** The `max` terms of highest idf times weight (weight 1 where none is given), ties in code-unit order. */
function strongestTerms(corpus: SearchCorpus, terms: readonly string[], max: number, weights?: ReadonlyMap<string, number>): string[] {
  return corpusStats(corpus.segments, terms, weights)
    .terms.sort((a, b) => b.idf * b.weight - a.idf * a.weight || compareCodeUnits(a.term, b.term))
    .slice(0, max)
    .map((t) => t.term);
}

/** How deep each ranking is read for fusion. */
const FUSION_DEPTH = 100;

/**
 * Two rankings, each best first, made one: by reciprocal rank when `k` > 0, else by scores divided by each
 * ranking's best. A document one ranking lacks gets nothing from it. The scores are on a scale of their own (search
 * reports them relative to the first).
 */
export function fuseRankings(task: readonly Ranked[], plain: readonly Ranked[], { plain: weight, k }: Pick<TaskParams['fusion'], 'plain' | 'k'>): Ranked[] {
  const share = (ranking: readonly Ranked[]): Map<number, number> => {
    const best = ranking[0]?.score || 1;
    return new Map(ranking.map(({ doc, score }, i) => [doc, k > 0 ? 1 / (k + i + 1) : score / best]));
  };
  const fromTask = share(task);
  const fromPlain = share(plain);
  return [...new Set([...fromTask.keys(), ...fromPlain.keys()])].map((doc) => ({
    doc,
    score: (fromTask.get(doc) ?? 0) + weight * (fromPlain.get(doc) ?? 0),
  }));
}

function byScore(corpus: SearchCorpus, ranked: Ranked[]): Ranked[] {
  return ranked.sort((a, b) => b.score - a.score || compareCodeUnits(corpus.path(a.doc), corpus.path(b.doc)) || a.doc - b.doc);
}

/**
 * The text's tokens, each weighted by how often it is said (saturated by k3), plus the compounds the code
 * vocabulary knows: two adjacent words whose joined form is a token of some file (`man page` -> `manpage`).
 */
export function taskInput(corpus: SearchCorpus, task: TaskText, k3: number, maxTerms = 0, titleWeight = 0): RankInput {
  const tokenizer = corpus.tokenizer;
  // The title (the first line) says what the report is about; roles are asked for by it alone (a report about
  // library behaviour mentions its tests in passing).
  const title = tokenizer.text(titleOf(task.text));
  const titleTerms = new Set(titleWeight > 0 ? title : []);
  const counts = new Map<string, number>();
  for (const t of tokenizer.text(withoutPositions(task.text))) counts.set(t, (counts.get(t) ?? 0) + 1);
  for (const [compound, n] of compounds(task.text, tokenizer)) {
    if (!counts.has(compound) && corpus.holds(compound)) counts.set(compound, n);
  }
  for (const [base, from] of inflectionBases(counts.keys(), corpus.segments)) counts.set(base, counts.get(from) as number);
  const termWeights = new Map<string, number>();
  for (const [t, n] of counts) termWeights.set(t, (((k3 + 1) * n) / (k3 + n)) * (titleTerms.has(t) ? 1 + titleWeight : 1));
  if (maxTerms > 0 && counts.size > maxTerms) {
    const keep = new Set(strongestTerms(corpus, [...counts.keys()], maxTerms, termWeights));
    for (const t of counts.keys()) if (!keep.has(t)) termWeights.delete(t);
  }
  return { terms: [...termWeights.keys()], termWeights, roleTerms: title, targetName: [], targetLanguage: '' };
}

/** Adjacent plain words run together, stemmed as the tokenizer would stem the identifier `manpage`, with their counts. */
function compounds(text: string, tokenizer: Tokenizer): Map<string, number> {
  const out = new Map<string, number>();
  let previous = '';
  for (const [word] of text.matchAll(/[A-Za-z]+|[^A-Za-z\s]+/g)) {
    const plain = /^[a-z]{2,}$/i.test(word) ? word.toLowerCase() : '';
    if (previous && plain && previous.length + plain.length >= 6) {
      const joined = tokenizer.identifier(previous + plain);
      const only = joined.length === 1 ? joined[0] : undefined;
      if (only) out.set(only, (out.get(only) ?? 0) + 1);
    }
    previous = plain;
  }
  return out;
}

/**
 * Corpus documents the anchors point at, with a strength in (0, 1]: several anchors on one file combine as
 * independent evidence (1 - the product of their complements).
 */
export function resolveAnchors(corpus: SearchCorpus, anchors: readonly Anchor[], params: TaskParams = TASK_PARAMS): Map<number, number> {
  const out = new Map<number, number>();
  const add = (doc: number, strength: number) => {
    if (strength <= 0) return;
    out.set(doc, 1 - (1 - (out.get(doc) ?? 0)) * (1 - Math.min(1, strength)));
  };
  for (const anchor of anchors) {
    const weight = params.sources[anchor.source];
    if (anchor.kind === 'path') for (const [doc, s] of pathMatches(corpus, anchor.text, params)) add(doc, weight * s);
    else if (anchor.kind === 'symbol') for (const [doc, s] of symbolMatches(corpus, anchor.text, params)) add(doc, weight * s);
    else for (const [doc, s] of optionMatches(corpus, anchor.text)) add(doc, weight * s);
  }
  return out;
}

/**
 * Each segment's documents by lower-cased file stem (`manpage` for `builders/manpage.py`) and by the last part
 * of their module path (`models` for `db/models/__init__.py`, `query` for `db/models/query.py`), built once, in
 * one pass over the paths.
 */
function pathKeys(index: FieldIndex): { byStem: Map<string, number[]>; byModule: Map<string, number[]> } {
  return index.memo('task-path-keys', () => {
    const byStem = new Map<string, number[]>();
    const byModule = new Map<string, number[]>();
    const push = (map: Map<string, number[]>, key: string, d: number) => {
      const list = map.get(key);
      if (list) list.push(d);
      else map.set(key, [d]);
    };
    const paths = index.paths.all();
    for (let d = 0; d < paths.length; d++) {
      const filePath = paths[d] as string;
      const stem = fileStem(filePath);
      push(byStem, stem, d);
      // modulePath(filePath).pop(), without splitting every path: only a package file's key is its folder.
      push(byModule, PACKAGE_FILES.has(stem) ? (modulePath(filePath).pop() ?? '') : stem, d);
    }
    return { byStem, byModule };
  });
}

/** Path segments without the file's extension(s): `a/b/c.test.ts` -> [a, b, c]. */
function moduleSegments(filePath: string): string[] {
  const segments = filePath.toLowerCase().split('/').filter(Boolean);
  const last = segments.pop() ?? '';
  const dot = last.indexOf('.', 1);
  segments.push(dot > 0 ? last.slice(0, dot) : last);
  return segments;
}

/** How many trailing segments two segment lists share. */
function sharedTail(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

/**
 * Files a path anchor names: those whose path ends with it, or with its longest tail any file has (a frame's
 * `/home/me/proj/pkg/mod.py` is the repository's `pkg/mod.py`). A match on the file name alone is weaker, and
 * an ambiguous match is shared among the files it could mean.
 */
function pathMatches(corpus: SearchCorpus, anchorPath: string, params: TaskParams): Map<number, number> {
  const wanted = anchorPath.toLowerCase().split('/').filter(Boolean);
  const wantedModule = moduleSegments(anchorPath);
  const stem = wantedModule[wantedModule.length - 1] ?? '';
  let best = 0;
  let matches: number[] = [];
  const fileName = wanted[wanted.length - 1] ?? '';
  for (const { index, base } of corpus.segments) {
    for (const d of pathKeys(index).byStem.get(stem) ?? []) {
      const filePath = index.paths.at(d).toLowerCase();
      // The whole file name must agree (extension too) before folders count.
      if (!(filePath === fileName || filePath.endsWith(`/${fileName}`))) continue;
      const have = filePath.split('/');
      const shared = sharedTail(wanted, have);
      if (shared > best) {
        best = shared;
        matches = [];
      }
      if (shared === best) matches.push(base + d);
    }
  }
  const out = new Map<number, number>();
  if (!best) return out;
  const strength = (best >= 2 || best === wanted.length ? 1 : params.basenameOnly) / matches.length;
  for (const doc of matches) out.set(doc, strength);
  return out;
}

/**
 * Files that define a named symbol. `a.b.C.m` is looked up as the symbol `m` (qualified by `C`), and its
 * leading parts also as a module path (`a/b.py`, `a/b/__init__.py`, `a/b/C.java`): a dotted name in a report
 * is as often a module as a member. A symbol many files define is no pointer and is dropped.
 */
function symbolMatches(corpus: SearchCorpus, name: string, params: TaskParams): Map<number, number> {
  const parts = name.split('.').filter(Boolean);
  const out = new Map<number, number>();
  const last = parts[parts.length - 1];
  if (!last) return out;
  const definers = definersOf(corpus, last, parts.slice(0, -1));
  if (definers.length && definers.length <= MAX_DEFINERS) {
    for (const { doc, qualified } of definers) out.set(doc, (qualified ? 1 : params.unqualified) / Math.sqrt(definers.length));
  }
  // A module named like the symbol (`latex` -> printing/latex.py) is as likely meant; a lone name less surely.
  const moduleWeight = parts.length >= 2 ? 1 : params.basenameOnly;
  for (const [doc, s] of moduleMatches(corpus, parts)) out.set(doc, Math.max(out.get(doc) ?? 0, moduleWeight * s));
  return out;
}

/**
 * Documents defining a symbol named `name`, and whether one of them sits under its qualifier. A name of several
 * words (`_format_repr_exception`) is a token of its own in the symbols field; a one-word name (`saferepr`) has its
 * definition token there (profileTokens.ts). Either way the postings answer, no profile is read.
 */
function definersOf(corpus: SearchCorpus, name: string, qualifiers: readonly string[]): Array<{ doc: number; qualified: boolean }> {
  const tokens = corpus.tokenizer.identifier(name);
  const key = splitIdentifier(name).length === 1 ? definitionToken(name) : tokens[tokens.length - 1];
  if (!key) return [];
  const qualifier = qualifiers[qualifiers.length - 1];
  const qualifierTokens = qualifier ? corpus.tokenizer.identifier(qualifier) : [];
  const qualifierKey = qualifier && splitIdentifier(qualifier).length === 1 ? definitionToken(qualifier) : qualifierTokens[qualifierTokens.length - 1];
  const out: Array<{ doc: number; qualified: boolean }> = [];
  for (const { index, base } of corpus.segments) {
    const candidates = index.docsWith(key, SYMBOLS_FIELD);
    if (candidates.length > MAX_DEFINERS) return [];
    const underQualifier = qualifierKey ? new Set(index.docsWith(qualifierKey, SYMBOLS_FIELD)) : null;
    for (const d of candidates) {
      const qualified = !underQualifier || underQualifier.has(d) || index.paths.at(d).toLowerCase().includes((qualifier as string).toLowerCase());
      out.push({ doc: base + d, qualified });
    }
  }
  return out;
}

/**
 * The longest leading run of a dotted name that is a module path of some file: `django.db.models.query.Q` ->
 * `django/db/models/query.py`; a package's `__init__`, `index` or `mod` file answers for its folder.
 */
function moduleMatches(corpus: SearchCorpus, parts: readonly string[]): Map<number, number> {
  const out = new Map<number, number>();
  for (let k = parts.length; k >= 1; k--) {
    const wanted = parts.slice(0, k).map((p) => p.toLowerCase());
    const matches: number[] = [];
    for (const { index, base } of corpus.segments) {
      for (const d of pathKeys(index).byModule.get(wanted[wanted.length - 1] as string) ?? []) {
        const have = modulePath(index.paths.at(d));
        // All of the name's module part must be the path's end; one part alone only when the whole name is it.
        if (sharedTail(wanted, have) === wanted.length && (wanted.length >= 2 || k === parts.length)) matches.push(base + d);
      }
    }
    if (matches.length && matches.length <= MAX_DEFINERS) {
      for (const doc of matches) out.set(doc, 1 / Math.sqrt(matches.length));
    }
    if (matches.length) return out;
  }
  return out;
}

const PACKAGE_FILES = new Set(['__init__', 'index', 'mod']);

/** A file's module path: its segments without the extension, and without a package file's own name. */
function modulePath(filePath: string): string[] {
  const segments = moduleSegments(filePath);
  return PACKAGE_FILES.has(segments[segments.length - 1] as string) ? segments.slice(0, -1) : segments;
}

/** Files holding an option's name as one identifier (`--ignore-paths` -> `ignore_paths`, `ignorePaths`). */
function optionMatches(corpus: SearchCorpus, option: string): Map<number, number> {
  const tokens = corpus.tokenizer.identifier(option.replace(/-/g, '_'));
  const key = tokens.length > 1 ? tokens[tokens.length - 1] : undefined;
  const out = new Map<number, number>();
  if (!key) return out;
  const holders: number[] = [];
  for (const { index, base } of corpus.segments) {
    const id = index.termId(key);
    if (id < 0) continue;
    const postings = index.postingsOf(id);
    for (let i = 0; i < postings.length; i += 2) if (postings[i] !== postings[i - 2]) holders.push(base + (postings[i] as number));
  }
  if (!holders.length || holders.length > MAX_DEFINERS) return out;
  for (const doc of holders) out.set(doc, 1 / Math.sqrt(holders.length));
  return out;
}

