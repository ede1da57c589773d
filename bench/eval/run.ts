/**
 * History-based retrieval evaluation.
 *
 *   node --import tsx bench/eval/run.ts [--repo NAME] [--limit N] [--mode query|target] [--json out.json]
 *                                       [--rankers keyword,bm25,coderag] [--scorer NAME] [--k N]
 *                                       [--include-generated] [--cases FILE]
 *
 * Loads bench/eval/cases.json (see mine.ts), materialises the tree at each case's parent (checkout.ts), offers
 * every ranker the same candidate files, and prints R@1/R@5/R@10/MRR per ranker x repository (+ overall).
 *
 * Modes
 *   query  (default) every case not marked target_only; q = { query: cleaned commit message, keywords: its words }.
 *   target cases that add a source file and modify existing ones; q = { query: '', target: first added source file
 *          (sorted), keywords: the message's words }; the answer is still changed_source_files.
 * Rankers ask for the top K (default 50) files; MRR is therefore MRR@K.
 */
import { readFileSync, readdirSync, openSync, readSync, closeSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bm25Ranker, keywordRanker, keywordTerms } from './baselines.js';
import { materialise } from './checkout.js';
import { caseMetrics, summarise, type CaseMetrics, type Summary } from './metrics.js';
import { findMirror } from './mirrors.js';
import { isCandidatePath } from './paths.js';
import { cleanMessage } from './select.js';
import type { EvalCase, RankQuery, Ranker } from './types.js';

export type { EvalCase, RankQuery, Ranker } from './types.js';

const HERE = dirname(fileURLToPath(import.meta.url));

interface Options {
  repo?: string;
  limit?: number;
  mode: 'query' | 'target';
  json?: string;
  rankers?: string[];
  scorer?: string;
  k: number;
  includeGenerated: boolean;
  cases: string;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { mode: 'query', k: 50, includeGenerated: false, cases: join(HERE, 'cases.json') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    switch (a) {
      case '--repo': o.repo = val(); break;
      case '--limit': o.limit = Number(val()); break;
      case '--mode': {
        const m = val();
        if (m !== 'query' && m !== 'target') throw new Error('--mode must be query or target');
        o.mode = m;
        break;
      }
      case '--json': o.json = val(); break;
      case '--rankers': o.rankers = val().split(',').map((s) => s.trim()).filter(Boolean); break;
      case '--scorer': o.scorer = val(); break;
      case '--k': o.k = Number(val()); break;
      case '--include-generated': o.includeGenerated = true; break;
      case '--cases': o.cases = resolve(val()); break;
      case '-h':
      case '--help':
        console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
        process.exit(0);
      default: throw new Error(`unknown argument ${a}`);
    }
  }
  if (o.limit !== undefined && !(o.limit > 0)) throw new Error('--limit must be a positive number');
  if (!(o.k >= 10)) throw new Error('--k must be >= 10');
  return o;
}

/** Candidate files of a tree: code-extension text files (no NUL in the first 8 KiB), repo-relative POSIX, sorted. */
export function listCandidates(treeDir: string, includeGenerated: boolean): string[] {
  const out: string[] = [];
  const buf = Buffer.alloc(8192);
  const walk = (rel: string): void => {
    for (const d of readdirSync(join(treeDir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        if (d.name === 'node_modules' || d.name === 'vendor' || d.name === '.git') continue;
        walk(p);
      } else if (d.isFile() && isCandidatePath(p, includeGenerated)) {
        const fd = openSync(join(treeDir, p), 'r');
        const n = readSync(fd, buf, 0, buf.length, 0);
        closeSync(fd);
        if (!buf.subarray(0, n).includes(0)) out.push(p);
      }
    }
  };
  walk('');
  return out.sort();
}

export function queryFor(c: EvalCase, mode: 'query' | 'target'): RankQuery {
  const text = cleanMessage(c.message).replace(/\s+/g, ' ').trim();
  const keywords = keywordTerms(text);
  if (mode === 'target') {
    const target = [...c.added_files].sort()[0];
    if (!target) throw new Error(`case ${c.commit} has no added file`);
    return { query: '', target, keywords };
  }
  return { query: text, keywords };
}

function selectCases(all: EvalCase[], o: Options): EvalCase[] {
  const perRepo = new Map<string, number>();
  const out: EvalCase[] = [];
  for (const c of all) {
    if (o.repo && o.repo !== c.repo && o.repo !== c.mirror_hint) continue;
    if (o.mode === 'query' && c.target_only) continue;
    if (o.mode === 'target' && c.added_files.length === 0) continue;
    const n = perRepo.get(c.repo) ?? 0;
    if (o.limit !== undefined && n >= o.limit) continue;
    perRepo.set(c.repo, n + 1);
    out.push(c);
  }
  return out;
}

async function loadRankers(o: Options): Promise<Ranker[]> {
  const want = (n: string): boolean => !o.rankers || o.rankers.includes(n);
  const rankers: Ranker[] = [];
  if (want('keyword')) rankers.push(keywordRanker);
  if (want('bm25')) rankers.push(bm25Ranker);
  if (want('coderag')) {
    // Lazy so the baselines run before CodeRAG's library API (src/index.ts) exists. The specifier is a variable
    // so this file type-checks on its own.
    const spec = './coderagRanker.js';
    try {
      const mod = (await import(spec)) as { createCodeRagRanker: (opts?: { scorer?: string }) => Ranker };
      rankers.push(mod.createCodeRagRanker(o.scorer ? { scorer: o.scorer } : {}));
    } catch (err) {
      const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
      console.error(`[eval] CodeRAG ranker skipped: could not load its library API (${msg})`);
    }
  }
  if (rankers.length === 0) throw new Error('no rankers selected');
  return rankers;
}

interface CaseResult extends CaseMetrics {
  ranker: string;
  repo: string;
  commit: string;
  answers: string[];
  target?: string;
  top10: string[];
}

function fmt(x: number): string {
  return x.toFixed(3);
}

function table(rows: Array<{ ranker: string; repo: string } & Summary>): string {
  const head = ['ranker', 'repo', 'cases', 'R@1', 'R@5', 'R@10', 'MRR'];
  const body = rows.map((r) => [r.ranker, r.repo, String(r.cases), fmt(r.r1), fmt(r.r5), fmt(r.r10), fmt(r.mrr)]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i < 2 ? c.padEnd(w[i] ?? 0) : c.padStart(w[i] ?? 0))).join('  ');
  return [line(head), w.map((n) => '-'.repeat(n)).join('  '), ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const all = JSON.parse(readFileSync(o.cases, 'utf8')) as EvalCase[];
  const cases = selectCases(all, o);
  const rankers = await loadRankers(o);
  const repos = [...new Set(cases.map((c) => c.repo))];
  console.error(`[eval] mode=${o.mode} cases=${cases.length} (${repos.map((r) => `${r}:${cases.filter((c) => c.repo === r).length}`).join(' ')}) rankers=${rankers.map((r) => r.name).join(',')}`);

  // Group by tree so each tree is materialised, listed and prepared once.
  const groups = new Map<string, EvalCase[]>();
  for (const c of cases) {
    const key = `${c.repo}@${c.parent}`;
    const g = groups.get(key);
    if (g) g.push(c);
    else groups.set(key, [c]);
  }
  const mirrors = new Map<string, string | undefined>();
  const timing = new Map<string, { prepareMs: number; rankMs: number }>(rankers.map((r) => [r.name, { prepareMs: 0, rankMs: 0 }]));
  const results: CaseResult[] = [];
  let checkoutMs = 0;
  let skipped = 0;
  let done = 0;

  for (const group of groups.values()) {
    const first = group[0];
    if (!first) continue;
    if (!mirrors.has(first.mirror_hint)) mirrors.set(first.mirror_hint, findMirror(first.mirror_hint));
    let treeDir: string;
    let files: string[];
    const tc = performance.now();
    try {
      treeDir = materialise(first.repo, first.parent, mirrors.get(first.mirror_hint));
      files = listCandidates(treeDir, o.includeGenerated);
    } catch (err) {
      console.error(`[eval] skipping ${group.length} case(s) of ${first.repo}@${first.parent.slice(0, 10)}: ${err instanceof Error ? err.message : String(err)}`);
      skipped += group.length;
      continue;
    }
    checkoutMs += performance.now() - tc;
    const fileSet = new Set(files);
    for (const c of group) {
      const missing = c.changed_source_files.filter((f) => !fileSet.has(f));
      if (missing.length) console.error(`[eval] ${c.repo} ${c.commit.slice(0, 10)}: answer file(s) not among candidates: ${missing.join(', ')}`);
    }
    for (const ranker of rankers) {
      const tm = timing.get(ranker.name);
      let t = performance.now();
      const prepared = await ranker.prepare(treeDir, files);
      if (tm) tm.prepareMs += performance.now() - t;
      for (const c of group) {
        const q = queryFor(c, o.mode);
        t = performance.now();
        const ranked = await ranker.rank(prepared, q, o.k);
        if (tm) tm.rankMs += performance.now() - t;
        results.push({
          ranker: ranker.name,
          repo: c.repo,
          commit: c.commit,
          answers: c.changed_source_files,
          ...(q.target ? { target: q.target } : {}),
          ...caseMetrics(ranked, c.changed_source_files),
          top10: ranked.slice(0, 10),
        });
      }
    }
    done += group.length;
    if (process.stderr.isTTY) process.stderr.write(`\r[eval] ${done}/${cases.length} cases`);
  }
  if (process.stderr.isTTY) process.stderr.write('\n');

  const rows: Array<{ ranker: string; repo: string } & Summary> = [];
  for (const r of rankers) {
    for (const repo of repos) rows.push({ ranker: r.name, repo, ...summarise(results.filter((x) => x.ranker === r.name && x.repo === repo)) });
    rows.push({ ranker: r.name, repo: 'overall', ...summarise(results.filter((x) => x.ranker === r.name)) });
  }
  const totalMs = performance.now() - t0;
  console.log(`\nmode: ${o.mode}   top-K requested: ${o.k}   cases evaluated: ${done}${skipped ? `   skipped: ${skipped}` : ''}   trees: ${groups.size}\n`);
  console.log(table(rows));
  console.log(
    `\ntime: total ${(totalMs / 1000).toFixed(1)}s, checkout+listing ${(checkoutMs / 1000).toFixed(1)}s, ` +
      [...timing].map(([n, t]) => `${n} prepare ${(t.prepareMs / 1000).toFixed(1)}s rank ${(t.rankMs / 1000).toFixed(1)}s`).join(', '),
  );

  if (o.json) {
    const out = {
      mode: o.mode,
      k: o.k,
      include_generated: o.includeGenerated,
      cases_file: o.cases,
      generated_at: new Date().toISOString(),
      summary: rows,
      timing_ms: { total: totalMs, checkout_and_listing: checkoutMs, ...Object.fromEntries(timing) },
      per_case: results,
    };
    writeFileSync(o.json, JSON.stringify(out, null, 2) + '\n');
    console.error(`[eval] wrote ${o.json}`);
  }
}

// Run only as a script, so tune.ts can import queryFor and listCandidates.
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.stack ?? err.message : String(err));
    process.exit(1);
  });
}
