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
 */
import { existsSync } from 'node:fs';
import type { FileSummary } from '../../src/index/types.js';
import { confidenceOf, evidenceOf, MAX_STATIC_PER_TARGET, profileCorpus, relateStatically, targetQuery, type Evidence } from '../../src/pipeline/relate.js';
import { defaultConfig } from '../../src/config/schema.js';
import { search } from '../../src/search/search.js';
import { bm25Ranker } from './baselines.js';
import { treeDirFor } from './checkout.js';
import { IndexCache } from './coderagRanker.js';
import { lookupCases, runLookups, type LookupCase } from './lookup.js';
import { mirrorFinder } from './mirrors.js';

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

interface Row {
  set: string;
  cases: number;
  /** The top static relationship (kept above min_confidence_score) is the gold file. */
  top: number;
  /** Some static relationship of the target is the gold file. */
  any: number;
  /** Targets with no relationship kept. */
  none: number;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const cases = lookupCases();
  const config = defaultConfig();
  const cache = new IndexCache();
  const scored: Scored[] = [];
  const rows = new Map<string, Row>();
  const misses: string[] = [];
  for (const tree of [...new Set(cases.map((c) => `${c.repo}@${c.sha}`))]) {
    const { index } = cache.read(tree);
    const corpus = profileCorpus(index.repo_name, index.file_summaries);
    const ext = mainExtension(index.file_summaries);
    for (const c of cases.filter((x) => `${x.repo}@${x.sha}` === tree)) {
      const target = targetOf(c, ext);
      const response = search(corpus, { ...targetQuery(target), maxResults: 10 });
      response.references.forEach((ref, rank) => {
        const evidence = evidenceOf(response, rank);
        scored.push({ set: c.set, evidence, confidence: confidenceOf(evidence), gold: c.answer.test(ref.file_path) });
      });
      // The relationships as an index gets them (the same search, then the thresholds).
      const kept = relateStatically(index.repo_name, index.file_summaries, [target], config.relationships);
      for (const key of [c.set, 'all']) {
        const row = rows.get(key) ?? { set: key, cases: 0, top: 0, any: 0, none: 0 };
        row.cases++;
        const best = [...kept].sort((a, b) => b.confidence_score - a.confidence_score)[0];
        if (best && c.answer.test(best.repo_file_path)) row.top++;
        if (kept.some((r) => c.answer.test(r.repo_file_path))) row.any++;
        if (!best) row.none++;
        rows.set(key, row);
      }
      const best = [...kept].sort((a, b) => b.confidence_score - a.confidence_score)[0];
      if (!best || !c.answer.test(best.repo_file_path)) misses.push(`${c.repo}\t${target.path} # ${target.purpose}\t${c.answer.source} <- ${best ? `${best.repo_file_path} (${best.confidence_score})` : '(none kept)'}`);
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
