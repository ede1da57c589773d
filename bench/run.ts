/**
 * `npm run bench [-- --quick] [-- --only llm,offline,growth,nightly,search,serve]`: every benchmark in turn, one table on
 * stdout, and bench/results/latest.json with the machine, the date, the commit and every figure with its unit
 * (a run with --only writes bench/results/only-<sections>.json instead, which git ignores).
 * Progress goes to stderr. Never part of `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import path from 'node:path';
import { GROWTH_FULL, GROWTH_QUICK, benchGrowth } from './growth.js';
import { REPO_ROOT } from './lib/child.js';
import { BENCH_ROOT } from './lib/corpus.js';
import { renderTable, type Figure, type SectionResult } from './lib/figures.js';
import { round } from './lib/stats.js';
import { LLM_FULL, LLM_QUICK, benchLlm } from './llm.js';
import { NIGHTLY_FULL, NIGHTLY_QUICK, benchNightly } from './nightly.js';
import { OFFLINE_FULL, OFFLINE_QUICK, benchOffline } from './offline.js';
import { benchSearch, type SearchBenchResult } from './search.js';
import { SERVE_FULL, SERVE_QUICK, benchServe } from './serve.js';

const SECTIONS = ['offline', 'growth', 'nightly', 'llm', 'search', 'serve'] as const;
type Section = (typeof SECTIONS)[number];

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyArg = args.find((a) => a.startsWith('--only'))?.split('=')[1] ?? (args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined);
const only = new Set<Section>(onlyArg ? (onlyArg.split(',') as Section[]) : SECTIONS);
for (const s of only) {
  if (!SECTIONS.includes(s)) {
    process.stderr.write(`unknown section ${s}; sections: ${SECTIONS.join(', ')}\n`);
    process.exit(2);
  }
}
const variant = quick ? 'quick' : 'full';
const command = `npm run bench${quick ? ' -- --quick' : ''}`;
const log = (line: string) => process.stderr.write(`${line}\n`);
const gc = (globalThis as { gc?: () => void }).gc;

const started = performance.now();
const sections: Partial<Record<Section, SectionResult & { command: string }>> = {};
const notes: string[] = [];

const failed: string[] = [];
/** A section that throws is reported and the others still run; the run then exits 1. */
async function section<T>(name: Section, run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`${name}: failed: ${message}`);
    notes.push(`${name} failed: ${message.split('\n')[0]}`);
    failed.push(name);
    return null;
  } finally {
    gc?.();
  }
}

if (only.has('offline')) {
  const options = quick ? OFFLINE_QUICK : OFFLINE_FULL;
  log(`offline: ${options.files} files, ${options.pairs} parse/pipeline pairs after ${options.warmups} warm-up pair(s)`);
  const result = await section('offline', () => benchOffline({ ...options, log }));
  if (result) sections.offline = { ...result, command: `node --import tsx bench/offline.ts${quick ? ' --quick' : ''}` };
}
if (only.has('growth')) {
  const options = quick ? GROWTH_QUICK : GROWTH_FULL;
  log(`growth: ${options.sizes.map((s) => s.files).join(', ')} files`);
  const result = await section('growth', () => benchGrowth({ ...options, log }));
  if (result) sections.growth = { ...result, command: `node --import tsx bench/growth.ts${quick ? ' --quick' : ''}` };
}
if (only.has('nightly')) {
  const options = quick ? NIGHTLY_QUICK : NIGHTLY_FULL;
  log(`nightly: ${options.files} files in git, ${options.reps} run(s) of each case`);
  const result = await section('nightly', () => benchNightly({ ...options, log }));
  if (result) sections.nightly = { ...result, command: `node --import tsx bench/nightly.ts${quick ? ' --quick' : ''}` };
}
if (only.has('llm')) {
  const options = quick ? LLM_QUICK : LLM_FULL;
  log(`llm: ${options.files} files, ${options.latencyMs} ms latency, concurrency ${options.concurrency}`);
  const result = await section('llm', () => benchLlm({ ...options, log }));
  if (result) sections.llm = { ...result, command: `node --import tsx bench/llm.ts${quick ? ' --quick' : ''}` };
}
if (only.has('search')) {
  const result = await section('search', runSearch);
  if (result) sections.search = result;
}
if (only.has('serve')) {
  const options = quick ? SERVE_QUICK : SERVE_FULL;
  const result = await section('serve', () => benchServe({ ...options, log }));
  if (result) sections.serve = { ...result, command: `node --import tsx bench/serve.ts${quick ? ' --quick' : ''}` };
}

const seconds = round((performance.now() - started) / 1000, 1);
const figures: Figure[] = Object.values(sections).flatMap((s) => s.figures);
const findings = Object.values(sections).flatMap((s) => s.findings);

const report = {
  variant,
  command,
  date: new Date().toISOString(),
  duration_s: seconds,
  machine: {
    cpus: availableParallelism(),
    cpu_model: cpus()[0]?.model ?? 'unknown',
    memory_mb: Math.round(totalmem() / 1024 / 1024),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  },
  git: gitState(),
  failed_sections: failed,
  sections_s: Object.fromEntries(Object.entries(sections).map(([k, v]) => [k, v.seconds])),
  figures,
  findings: [...findings, ...notes],
  sections,
};

// A partial run (--only) never replaces the figures of a whole one.
const out = path.join(BENCH_ROOT, 'results', onlyArg ? `only-${[...only].join('-')}.json` : 'latest.json');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);

const head = `CodeRAG bench, ${variant} (${command}) — ${report.machine.cpus} CPUs, Node ${report.machine.node}, ${report.git.commit.slice(0, 12)}${report.git.dirty ? ' (dirty)' : ''}, ${report.date}`;
const timing = Object.entries(report.sections_s).map(([k, v]) => `${k} ${v} s`).join(', ');
process.stdout.write(
  [
    head,
    '',
    renderTable(figures),
    '',
    ...(report.findings.length ? ['Findings:', ...report.findings.map((f) => `- ${f}`), ''] : []),
    `Took ${seconds} s (${timing}). Wrote ${path.relative(REPO_ROOT, out)}.`,
    '',
  ].join('\n'),
);
if (failed.length > 0) process.exitCode = 1;

function gitState(): { commit: string; dirty: boolean } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim() !== '';
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}

/** Search latency and index size (bench/search.ts), as one section of the table. */
async function runSearch(): Promise<(SectionResult & { command: string }) | null> {
  const started = performance.now();
  const result = await benchSearch({ quick, log });
  return { ...asSection(result, (performance.now() - started) / 1000), command: 'node --import tsx bench/search.ts' };
}

/** The search figures, one per numeric field of its result. */
function asSection(result: SearchBenchResult, seconds: number): SectionResult {
  const figures: Figure[] = [];
  const unitOf = (key: string): string => (/_ms$|(^|_)ms$/.test(key) ? 'ms' : /bytes$/.test(key) ? 'bytes' : /_s$/.test(key) ? 's' : /files$/.test(key) ? 'files' : /runs$/.test(key) ? 'runs' : '');
  const walk = (value: unknown, name: string, unit: string) => {
    if (typeof value === 'number') figures.push({ section: 'search', name, value: round(value, 2), unit });
    else if (typeof value === 'string' && name) figures.push({ section: 'search', name, value, unit: '' });
    else if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, name ? `${name} ${k}` : k, unitOf(k) || unit);
    }
  };
  walk(result, '', '');
  return { setup: {}, figures, runs: result, findings: [], seconds: round(seconds, 1) };
}
