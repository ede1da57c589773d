/**
 * Static relationships (src/pipeline/relate.ts) measured on the look-up set: each request is read as the purpose
 * of a target file about to be written, and its answer as the right relationship. For each case it prints whether
 * the target's top static relationship is the gold file, beside how often BM25 over raw contents ranks the gold
 * file first (baselines.ts, as lookup.ts runs it), and the calibration table of confidence against precision.
 *
 *   CODERAG_EVAL_MIRRORS=/work/.mirror node --import tsx bench/eval/relate.ts [--no-bm25] [--bins] [--misses]
 *
 * The target: a `--target <path> --keywords a,b` case is that path with its keywords as the purpose; a free-text
 * case is a file named `x` with the extension most of the repository's source files have (the structure of a
 * project in the repository's language), the request as its purpose: `x.js  # cookies`. The indexes are those
 * run.ts / lookup.ts cached under bench/.work/indexes (the newest for each tree: relationships are made from the
 * profiles, which a change to the relate stage does not alter).
 *
 *   node --import tsx bench/eval/relate.ts --set deps [--misses]
 *
 * `--set deps`: the same measurement on the dependency-folder set (deps.ts): each package's query (its README
 * sentence less its names) is the purpose of `x.js`, and a relationship is right when its file lies in the
 * package. The reference corpus is what a user gets by indexing a node_modules folder: the set's folder
 * (bench/.work/deps, every package's candidate files) indexed as one repository with depsIndexConfig(), and
 * relateStatically over its profiles, as `coderag index` relates one repository. Beside it, the 72 packages'
 * own indexes searched together as run.ts's CodeRAG ranker searches them (one corpus of every index), with
 * relateStatically's thresholds; and BM25 over raw contents, R@1 on the same cases (run.ts's rankDeps, the set's
 * baseline). Indexes are built on first use and cached as run.ts caches them (coderagRanker.ts).
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import type { FileSummary } from '../../src/index/types.js';
import { confidenceOf, evidenceOf, heldWords, MAX_STATIC_PER_TARGET, profileCorpus, relateStatically, targetQuery, type Evidence } from '../../src/pipeline/relate.js';
import { defaultConfig } from '../../src/config/schema.js';
import { search, SearchCorpus } from '../../src/search/search.js';
import { bm25Ranker } from './baselines.js';
import { treeDirFor } from './checkout.js';
import { createCodeRagRanker, IndexCache } from './coderagRanker.js';
import { DEPS_DIR, depsIndexConfig, prepareDeps, type DepsCase } from './deps.js';
import { lookupCases, runLookups, type LookupCase } from './lookup.js';
import { mirrorFinder } from './mirrors.js';
import { splitHalves } from './split.js';

/** One ranked candidate of one case: its evidence, its confidence and whether it is the gold file. */
export interface Scored {
  set: string;
  evidence: Evidence;
  confidence: number;
  gold: boolean;
}

/** The extension most of the profiled source files have, `.js` for a JavaScript repository. */
export function mainExtension(files: readonly FileSummary[]): string {
  const counts = new Map<string, number>();
  for (const f of files) {
    if (f.status !== 'ok' || f.role !== 'source') continue;
    const ext = /\.[A-Za-z0-9]+$/.exec(f.file_path)?.[0];
    if (ext) counts.set(ext, (counts.get(ext) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? '.txt';
}

/** The target file a look-up case stands for. */
export function targetOf(c: LookupCase, ext: string): { path: string; purpose: string } {
  return c.request.target ? { path: c.request.target, purpose: (c.request.keywords ?? []).join(' ') } : { path: `x${ext}`, purpose: c.text };
}

/** The target file a dependency-folder case stands for: `x.js  # <the package's README sentence>`. */
export function depsTargetOf(c: Pick<DepsCase, 'query'>, ext: string): { path: string; purpose: string } {
  return { path: `x${ext}`, purpose: c.query };
}

export interface Row {
  set: string;
  cases: number;
  /** The top static relationship (kept above min_confidence_score) is the gold file. */
  top: number;
  /** Some static relationship of the target is the gold file. */
  any: number;
  /** Targets with no relationship kept. */
  none: number;
}

/** A kept relationship: its file and confidence. */
export interface Kept {
  path: string;
  confidence: number;
}

/**
 * Counts one target's kept relationships into the rows named by `keys`; its top relationship is the most
 * confident (the first ranked among equals). Returns the top, if any.
 */
export function countCase(rows: Map<string, Row>, keys: readonly string[], kept: readonly Kept[], gold: (path: string) => boolean): Kept | undefined {
  const best = [...kept].sort((a, b) => b.confidence - a.confidence)[0];
  for (const key of keys) {
    const row = rows.get(key) ?? { set: key, cases: 0, top: 0, any: 0, none: 0 };
    row.cases++;
    if (best && gold(best.path)) row.top++;
    if (kept.some((r) => gold(r.path))) row.any++;
    if (!best) row.none++;
    rows.set(key, row);
  }
  return best;
}

/**
 * The relationships relateStatically keeps of one target's ranked files (best first): those whose confidence is
 * above `min`, at most MAX_STATIC_PER_TARGET, in rank order. For a corpus of several indexes, which
 * relateStatically (one repository's profiles) does not take.
 */
export function keptOf<T extends { confidence: number }>(ranked: readonly T[], min: number): T[] {
  return ranked.filter((r) => r.confidence > min).slice(0, MAX_STATIC_PER_TARGET);
}

/** How often the first ranked file is the gold one before the thresholds: the search's own R@1. */
function firstGold(scored: readonly Scored[]): string {
  const first = scored.filter((s) => s.evidence.rank === 0);
  return `first ranked file gold, before min_confidence_score: ${first.filter((s) => s.gold).length} of ${first.length}`;
}

function rowsTable(rows: Iterable<Row>): string {
  const lines = ['set      cases  top=gold  any=gold  none kept'];
  for (const r of rows) lines.push(`${r.set.padEnd(8)} ${String(r.cases).padStart(5)}  ${(r.top / r.cases).toFixed(3).padStart(8)}  ${(r.any / r.cases).toFixed(3).padStart(8)}  ${String(r.none).padStart(9)}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const set = args.includes('--set') ? args[args.indexOf('--set') + 1] : 'lookup';
  if (set === 'deps') return mainDeps(args);
  if (set !== 'lookup') throw new Error(`--set must be lookup or deps, not ${set}`);
  const cases = lookupCases();
  const config = defaultConfig();
  const cache = new IndexCache();
  const scored: Scored[] = [];
  const rows = new Map<string, Row>();
  const misses: string[] = [];
  for (const tree of [...new Set(cases.map((c) => `${c.repo}@${c.sha}`))]) {
    const { index } = cache.read(tree);
    const corpus = profileCorpus(index.repo_name, index.file_summaries);
    const held = heldWords(corpus);
    const ext = mainExtension(index.file_summaries);
    for (const c of cases.filter((x) => `${x.repo}@${x.sha}` === tree)) {
      const target = targetOf(c, ext);
      const response = search(corpus, { ...targetQuery(target), maxResults: 10 });
      response.references.forEach((ref, rank) => {
        const evidence = evidenceOf(response, rank, held);
        scored.push({ set: c.set, evidence, confidence: confidenceOf(evidence), gold: c.answer.test(ref.file_path) });
      });
      // The relationships as an index gets them (the same search, then the thresholds).
      const kept = relateStatically(index.repo_name, index.file_summaries, [target], config.relationships);
      const best = countCase(rows, [c.set, 'all'], kept.map((r) => ({ path: r.repo_file_path, confidence: r.confidence_score })), (p) => c.answer.test(p));
      if (!best || !c.answer.test(best.path)) misses.push(`${c.repo}\t${target.path} # ${target.purpose}\t${c.answer.source} <- ${best ? `${best.path} (${best.confidence})` : '(none kept)'}`);
    }
    console.error(`${tree}: done`);
  }
  console.log(`static relationships over ${cases.length} look-ups (at most ${MAX_STATIC_PER_TARGET} a target, kept above min_confidence_score ${config.relationships.min_confidence_score})`);
  console.log('set     cases  top=gold  any=gold  none kept');
  for (const r of rows.values()) console.log(`${r.set.padEnd(7)} ${String(r.cases).padStart(5)}  ${(r.top / r.cases).toFixed(3).padStart(8)}  ${(r.any / r.cases).toFixed(3).padStart(8)}  ${String(r.none).padStart(9)}`);
  console.log('');
  console.log(calibrationTable(scored));
  if (args.includes('--bins')) {
    // The mapping was fitted on the `hand` cases and checked on the `blind` ones (relate.ts's CALIBRATION).
    for (const set of ['hand', 'blind']) console.log(`\n${set}:\n${featureBins(scored.filter((s) => s.set === set))}`);
  }
  if (args.includes('--misses')) console.log(`\n${misses.join('\n')}`);
  if (!args.includes('--no-bm25')) {
    const { listCandidates } = await import('./run.js');
    const find = mirrorFinder(undefined);
    const missing = cases.filter((c) => !existsSync(treeDirFor(c.repo, c.sha)));
    if (missing.length && !process.env.CODERAG_EVAL_MIRRORS) console.error('some trees are not cached: set CODERAG_EVAL_MIRRORS');
    const bm25 = await runLookups(cases, [bm25Ranker], find, (dir) => listCandidates(dir, false));
    const all = bm25.reduce((acc, r) => ({ cases: acc.cases + r.cases, r1: acc.r1 + r.r1 * r.cases }), { cases: 0, r1: 0 });
    console.log('\nBM25 over raw contents, R@1 (lookup.ts --rankers bm25):');
    for (const r of bm25) console.log(`${r.set.padEnd(7)} ${String(r.cases).padStart(5)}  ${r.r1.toFixed(3)}`);
    console.log(`${'all'.padEnd(7)} ${String(all.cases).padStart(5)}  ${(all.r1 / all.cases).toFixed(3)}`);
  }
}

/**
 * The dependency-folder set (see the header): the folder indexed as one repository and related statically, the
 * packages' own indexes searched together, BM25's R@1; per half (split.ts over name@version, as run.ts) and in all.
 */
async function mainDeps(args: readonly string[]): Promise<void> {
  const cases = prepareDeps();
  const halves = splitHalves(cases.map((c) => c.spec));
  const config = depsIndexConfig();
  const { relationships } = defaultConfig();
  // Built (or read from bench/.work/indexes) as run.ts builds them: each package's index, and the folder's.
  const ranker = createCodeRagRanker({ config });
  const files = cases.flatMap((c) => c.files.map((f) => `${c.root}/${f}`));
  await ranker.prepare(DEPS_DIR, files, cases.map((c) => c.root));
  await ranker.prepare(DEPS_DIR, files);
  const cache = new IndexCache(config);
  const folder = cache.read(basename(DEPS_DIR)).index;
  const roots = new Set(cases.map((c) => c.root));
  const stray = folder.file_summaries.filter((f) => !roots.has(f.file_path.split('/')[0] ?? ''));
  if (stray.length) throw new Error(`${DEPS_DIR} holds files of packages not in the list (${stray[0]?.file_path}): remove them and run again`);
  const packages = cases.map((c) => cache.read(c.root).index);
  if (cache.stale) console.error(`[relate] ${cache.stale} cached index(es) were built by other sources`);
  const together = new SearchCorpus(packages.map((index) => ({ key: index.repo_name, file: '', index })));
  const folderCorpus = profileCorpus(folder.repo_name, folder.file_summaries);
  const heldInFolder = heldWords(folderCorpus);
  const heldTogether = heldWords(together);
  const ext = mainExtension(folder.file_summaries);

  const scored: Scored[] = [];
  const scoredTogether: Scored[] = [];
  const rows = new Map<string, Row>();
  const rowsTogether = new Map<string, Row>();
  const misses: string[] = [];
  for (const c of cases) {
    const half = halves.get(c.spec) === 'tune' ? 'tune' : 'held out';
    const target = depsTargetOf(c, ext);
    const inPackage = (path: string): boolean => path.startsWith(`${c.root}/`);
    // The folder as one repository: every ranked file for the calibration, then relateStatically's own choice.
    const response = search(folderCorpus, { ...targetQuery(target), maxResults: 10 });
    response.references.forEach((ref, rank) => {
      const evidence = evidenceOf(response, rank, heldInFolder);
      scored.push({ set: half, evidence, confidence: confidenceOf(evidence), gold: inPackage(ref.file_path) });
    });
    const kept = relateStatically(folder.repo_name, folder.file_summaries, [target], relationships);
    const best = countCase(rows, [half, 'all'], kept.map((r) => ({ path: r.repo_file_path, confidence: r.confidence_score })), inPackage);
    if (!best || !inPackage(best.path)) misses.push(`${c.spec}\t${target.path} # ${target.purpose}\t<- ${best ? `${best.path} (${best.confidence})` : '(none kept)'}`);
    // The packages' own indexes searched together: a file is named by its index (the package's folder).
    const joint = search(together, { ...targetQuery(target), maxResults: 10 });
    const ranked = joint.references.map((ref, rank) => {
      const evidence = evidenceOf(joint, rank, heldTogether);
      const s = { set: half, evidence, confidence: confidenceOf(evidence), gold: ref.repo_name === c.root };
      scoredTogether.push(s);
      return { path: `${ref.repo_name}/${ref.file_path}`, confidence: s.confidence };
    });
    countCase(rowsTogether, [half, 'all'], keptOf(ranked, relationships.min_confidence_score), inPackage);
  }
  const order = (rs: Map<string, Row>): Row[] => ['tune', 'held out', 'all'].flatMap((k) => rs.get(k) ?? []);
  console.log(`static relationships over ${cases.length} packages' targets (x${ext}; at most ${MAX_STATIC_PER_TARGET} a target, kept above min_confidence_score ${relationships.min_confidence_score})`);
  console.log(`\nthe folder indexed as one repository (${folder.file_summaries.length} files), relateStatically:`);
  console.log(rowsTable(order(rows)));
  console.log(firstGold(scored));
  console.log(`\n${calibrationTable(scored)}`);
  console.log(`\nthe ${packages.length} packages' own indexes searched together (run.ts's CodeRAG ranker), relateStatically's thresholds:`);
  console.log(rowsTable(order(rowsTogether)));
  console.log(firstGold(scoredTogether));
  console.log(`\n${calibrationTable(scoredTogether)}`);
  if (args.includes('--misses')) console.log(`\n${misses.join('\n')}`);
  const { rankDeps } = await import('./run.js');
  const bm25 = await rankDeps(cases, halves, [bm25Ranker], new Map(), 50);
  console.log('\nBM25 over raw contents, R@1 (run.ts --set deps --rankers bm25):');
  for (const [name, list] of [['tune', bm25.filter((r) => r.half === 'tune')], ['held out', bm25.filter((r) => r.half === 'holdout')], ['all', bm25]] as const) {
    console.log(`${name.padEnd(8)} ${String(list.length).padStart(5)}  ${(list.reduce((n, r) => n + r.r1, 0) / list.length).toFixed(3)}`);
  }
}

/** Precision of every ranked candidate by confidence band: what a confidence above 0.7 is worth. */
export function calibrationTable(scored: readonly Scored[]): string {
  const bands = [0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01];
  const lines = ['confidence band   candidates  gold  precision'];
  for (let i = 0; i + 1 < bands.length; i++) {
    const lo = bands[i] as number;
    const hi = bands[i + 1] as number;
    const inBand = scored.filter((s) => s.confidence > lo && s.confidence <= hi);
    const gold = inBand.filter((s) => s.gold).length;
    lines.push(`(${lo.toFixed(1)}, ${Math.min(1, hi).toFixed(1)}]       ${String(inBand.length).padStart(10)}  ${String(gold).padStart(4)}  ${inBand.length ? (gold / inBand.length).toFixed(3) : '-'}`);
  }
  const above = scored.filter((s) => s.confidence > 0.7);
  for (const set of [...new Set(scored.map((s) => s.set))]) {
    const mine = above.filter((s) => s.set === set);
    lines.push(`above 0.7, ${set}: ${mine.filter((s) => s.gold).length} of ${mine.length} gold`);
  }
  lines.push(`above 0.7, all: ${above.filter((s) => s.gold).length} of ${above.length} gold (${above.length ? (above.filter((s) => s.gold).length / above.length).toFixed(3) : '-'})`);
  return lines.join('\n');
}

/** Precision by the raw evidence, for choosing the mapping: rank, lead and coverage in bins. */
function featureBins(scored: readonly Scored[]): string {
  const lines = ['rank  lead      coverage   n  gold  precision'];
  const leadBins = [0, 0.1, 0.2, 0.35, 0.5, 1.01];
  const coverBins = [0, 0.5, 0.99, 1.01];
  for (const rank of [0, 1, 2]) {
    for (let i = 0; i + 1 < leadBins.length; i++) {
      for (let j = 0; j + 1 < coverBins.length; j++) {
        const s = scored.filter((x) => x.evidence.rank === rank && x.evidence.lead >= (leadBins[i] as number) && x.evidence.lead < (leadBins[i + 1] as number) && x.evidence.coverage >= (coverBins[j] as number) && x.evidence.coverage < (coverBins[j + 1] as number));
        if (!s.length) continue;
        const g = s.filter((x) => x.gold).length;
        lines.push(`${rank}     [${leadBins[i]},${leadBins[i + 1]})  [${coverBins[j]},${coverBins[j + 1]})  ${String(s.length).padStart(3)}  ${String(g).padStart(4)}  ${(g / s.length).toFixed(3)}`);
      }
    }
  }
  const rest = scored.filter((x) => x.evidence.rank >= 1);
  for (const lo of [0, 0.5, 0.7, 0.8, 0.9]) {
    const s = rest.filter((x) => x.evidence.relative >= lo);
    lines.push(`rank>=1, relative>=${lo}: ${s.filter((x) => x.gold).length} of ${s.length} gold`);
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}
