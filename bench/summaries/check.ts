/**
 * The labelled sample of offline summaries (README.md): indexes each sample repository's tree offline, judges
 * every sampled file's summary by the rule in judge.ts, and prints the share judged right beside the recorded
 * figure from before the summaries were changed. Over every source file of the trees it counts directive
 * summaries and summaries three or more files share.
 *
 *   node --import tsx bench/summaries/check.ts                   # after: judge today's summaries
 *   node --import tsx bench/summaries/check.ts --record before   # write before.json (done once, before the change)
 *   node --import tsx bench/summaries/check.ts --select          # re-draw sample.json from the pinned trees
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { indexRepo } from '../../src/lib.js';
import type { FileSummary, RepoIndex } from '../../src/index/types.js';
import { findMirror, mirrorRoot } from '../eval/mirrors.js';
import { judge, type Verdict } from './judge.js';

const HERE = import.meta.dirname;
const WORK = path.join(HERE, '..', '.work', 'summaries');
const CODE_LANGUAGES = new Set(['JavaScript', 'TypeScript', 'Python', 'Java', 'Go', 'Rust']);
const PER_REPO = 16;

interface Sample {
  repos: Array<{ name: string; commit: string }>;
  files: Array<{ repo: string; path: string }>;
}

interface Judged {
  repo: string;
  path: string;
  language: string;
  summary: string;
  summary_source: string;
  verdict: Verdict;
}

function argValue(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function treeOf(name: string, commit: string): string {
  const dir = path.join(WORK, 'trees', `${name.replace('/', '+')}@${commit.slice(0, 12)}`);
  if (fs.existsSync(path.join(dir, '.done'))) return dir;
  const mirror = findMirror(name, mirrorRoot(argValue('--mirrors')));
  if (!mirror) throw new Error(`no mirror of ${name}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git --git-dir="${mirror}" archive ${commit} | tar -x -C "${dir}"`]);
  fs.writeFileSync(path.join(dir, '.done'), '');
  return dir;
}

async function indexOf(name: string, commit: string): Promise<{ tree: string; index: RepoIndex }> {
  const tree = treeOf(name, commit);
  const index = await indexRepo(tree, { config: { history: { enabled: false } } }).catch(() => indexRepo(tree));
  return { tree, index };
}

const isSampled = (file: FileSummary): boolean =>
  file.status === 'ok' && (file.role === 'source' || file.role === 'entry_point') && CODE_LANGUAGES.has(file.language ?? '');

const rank = (repo: string, filePath: string): string => createHash('sha1').update(`${repo}:${filePath}`).digest('hex');

function judgeIndex(repo: string, tree: string, index: RepoIndex, only: ReadonlySet<string> | null): { judged: Judged[]; all: Judged[] } {
  // The sample is fixed by path: a file whose role changed since it was drawn (a benchmark now) is still judged.
  const files = index.file_summaries.filter((file) => isSampled(file) || (only?.has(file.file_path) && file.status === 'ok'));
  const counts = new Map<string, number>();
  for (const file of files) if (file.summary_source !== 'composed') counts.set(file.summary, (counts.get(file.summary) ?? 0) + 1);
  const all = files.map((file): Judged => {
    const content = fs.readFileSync(path.join(tree, file.file_path), 'utf8');
    const topLevel = (file.symbols ?? []).filter((s) => !s.ast_path.includes('-') && !s.ast_path.includes('.')).map((s) => ({ name: s.name, start_line: s.start_line }));
    const verdict = judge({ file_path: file.file_path, summary: file.summary, summary_source: file.summary_source ?? '', topLevel }, content, file.language ?? '', counts.get(file.summary) ?? 0);
    return { repo, path: file.file_path, language: file.language ?? '', summary: file.summary, summary_source: file.summary_source ?? '', verdict };
  });
  const sourceFiles = new Set(index.file_summaries.filter(isSampled).map((f) => f.file_path));
  return { judged: only ? all.filter((j) => only.has(j.path)) : all, all: all.filter((j) => sourceFiles.has(j.path)) };
}

const share = (n: number, d: number): string => (d ? (n / d).toFixed(3) : '-');

async function main(): Promise<void> {
  const samplePath = path.join(HERE, 'sample.json');
  const sample = JSON.parse(fs.readFileSync(samplePath, 'utf8')) as Sample;
  const select = process.argv.includes('--select');
  const judged: Judged[] = [];
  const everyFile: Judged[] = [];
  const chosen: Sample['files'] = [];
  for (const { name, commit } of sample.repos) {
    const { tree, index } = await indexOf(name, commit);
    const wanted = select ? null : new Set(sample.files.filter((f) => f.repo === name).map((f) => f.path));
    const { judged: mine, all } = judgeIndex(name, tree, index, wanted);
    everyFile.push(...all);
    if (select) {
      const picked = [...all].sort((a, b) => (rank(name, a.path) < rank(name, b.path) ? -1 : 1)).slice(0, PER_REPO);
      chosen.push(...picked.map((j) => ({ repo: name, path: j.path })).sort((a, b) => (a.path < b.path ? -1 : 1)));
      judged.push(...picked);
    } else {
      judged.push(...mine);
    }
    process.stderr.write(`${name}: ${all.length} source files\n`);
  }
  if (select) fs.writeFileSync(samplePath, `${JSON.stringify({ repos: sample.repos, files: chosen }, null, 1)}\n`);

  const right = judged.filter((j) => j.verdict === 'right').length;
  const byVerdict = new Map<string, number>();
  for (const j of judged) byVerdict.set(j.verdict, (byVerdict.get(j.verdict) ?? 0) + 1);
  const languages = new Set(judged.map((j) => j.language));
  const directive = everyFile.filter((j) => j.verdict === 'directive').length;
  const counts = new Map<string, number>();
  for (const j of everyFile) if (j.summary_source !== 'composed') counts.set(`${j.repo}\0${j.summary}`, (counts.get(`${j.repo}\0${j.summary}`) ?? 0) + 1);
  const sharedFiles = everyFile.filter((j) => j.summary_source !== 'composed' && (counts.get(`${j.repo}\0${j.summary}`) ?? 0) >= 3).length;

  const record = argValue('--record');
  if (record) fs.writeFileSync(path.join(HERE, `${record}.json`), `${JSON.stringify({ right, files: judged.length, judged }, null, 1)}\n`);
  const beforePath = path.join(HERE, 'before.json');
  const before = fs.existsSync(beforePath) ? (JSON.parse(fs.readFileSync(beforePath, 'utf8')) as { right: number; files: number }) : null;

  const lines = [
    `sample: ${judged.length} files of ${sample.repos.length} repositories in ${languages.size} languages`,
    `right: ${right} (${share(right, judged.length)})${before ? `; before: ${before.right} of ${before.files} (${share(before.right, before.files)})` : ''}`,
    `wrong by kind: ${[...byVerdict].filter(([v]) => v !== 'right').map(([v, n]) => `${v} ${n}`).join(', ') || 'none'}`,
    `every source file of the trees: ${everyFile.length}; directive summaries ${directive}; shared by 3+ files ${sharedFiles} (${share(sharedFiles, everyFile.length)})`,
  ];
  if (process.argv.includes('--wrong')) {
    for (const j of judged.filter((j) => j.verdict !== 'right')) lines.push(`  ${j.verdict.padEnd(13)} ${j.repo}/${j.path} [${j.summary_source}] ${j.summary.slice(0, 110)}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
