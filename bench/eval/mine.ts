/**
 * Mines evaluation cases from real git history into bench/eval/cases.json.
 *
 *   node --import tsx bench/eval/mine.ts [--mirrors DIR] [--repo NAME] [--max N] [--out FILE]
 *
 * For each repository in REPOS the bare mirror is located with findMirror() under `--mirrors DIR` or
 * $CODERAG_EVAL_MIRRORS (see mirrors.ts; the workspace `fetch` tool writes <DIR>/<owner>+<name>/repo). Non-merge commits reachable from
 * the mirror's HEAD are visited newest first (committer date, then sha), and a commit becomes a case unless a rule
 * in select.ts rejects it. Selection is deterministic: no sampling, no randomness.
 *
 * Window: commits from the PREFERRED_YEARS before the HEAD commit's date; if that yields fewer than MIN_CASES, the
 * scan continues into older history (never beyond MAX_YEARS) until MIN_CASES are found. At most MAX_CASES per repo.
 *
 * Target-mode top-up: cases that add a source file while modifying existing ones are rare (a handful per repo), so
 * once MAX_CASES is reached the scan goes on through the same window collecting only such cases (at most
 * MAX_TARGET_EXTRA per repo). They are stored with `target_only: true`; query mode leaves them out, so the
 * query-mode population stays "the newest N accepted commits".
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffTree, git } from './git.js';
import { findMirror, mirrorRoot } from './mirrors.js';
import { isSourceFile } from './paths.js';
import { extractMessage, skipReason } from './select.js';
import type { EvalCase, Language } from './types.js';

/**
 * Mid-sized, well-known repositories with descriptive commit messages, two per language (TypeScript, JavaScript,
 * Python, Go, Rust, Java). Never one of the held-out repositories (see HELD_OUT in describe.ts).
 */
export const REPOS: ReadonlyArray<{ repo: string; hint: string; language: Language }> = [
  { repo: 'koa', hint: 'koajs/koa', language: 'javascript' },
  { repo: 'axios', hint: 'axios/axios', language: 'javascript' },
  { repo: 'ky', hint: 'sindresorhus/ky', language: 'typescript' },
  { repo: 'got', hint: 'sindresorhus/got', language: 'typescript' },
  { repo: 'click', hint: 'pallets/click', language: 'python' },
  { repo: 'rich', hint: 'Textualize/rich', language: 'python' },
  { repo: 'urfave-cli', hint: 'urfave/cli', language: 'go' },
  { repo: 'cobra', hint: 'spf13/cobra', language: 'go' },
  { repo: 'fd', hint: 'sharkdp/fd', language: 'rust' },
  { repo: 'ripgrep', hint: 'BurntSushi/ripgrep', language: 'rust' },
  { repo: 'jsoup', hint: 'jhy/jsoup', language: 'java' },
  { repo: 'gson', hint: 'google/gson', language: 'java' },
];

const PREFERRED_YEARS = 4;
const MAX_YEARS = 10;
const MIN_CASES = 40;
/** 40 per repository: 480 cases at most, small enough that `npm run eval` re-indexes every parent tree in minutes. */
const MAX_CASES_DEFAULT = 40;
const MAX_TARGET_EXTRA = 20;
const YEAR = 365.25 * 24 * 3600;

interface LogEntry {
  sha: string;
  parents: string[];
  ct: number;
  body: string;
}

function readLog(gitDir: string): LogEntry[] {
  const out = git(gitDir, ['log', '--no-merges', '--format=%H%x00%P%x00%ct%x00%B%x1e', 'HEAD']);
  const entries: LogEntry[] = [];
  for (const rec of out.split('\x1e')) {
    const r = rec.replace(/^\n+/, '');
    if (!r) continue;
    const [sha = '', parents = '', ct = '0', ...rest] = r.split('\0');
    entries.push({ sha, parents: parents.split(' ').filter(Boolean), ct: Number(ct), body: rest.join('\0') });
  }
  entries.sort((a, b) => b.ct - a.ct || (a.sha < b.sha ? -1 : a.sha > b.sha ? 1 : 0));
  return entries;
}

export function mineRepo(repo: string, hint: string, language: Language, gitDir: string, maxCases: number) {
  const log = readLog(gitDir);
  const headCt = Number(git(gitDir, ['log', '-1', '--format=%ct', 'HEAD']).trim());
  const reasons: Record<string, number> = {};
  const cases: EvalCase[] = [];
  let visited = 0;
  let main = 0;
  let extra = 0;
  for (const e of log) {
    const ageYears = (headCt - e.ct) / YEAR;
    if (ageYears > MAX_YEARS) break;
    if (ageYears > PREFERRED_YEARS && main >= MIN_CASES) break;
    const topUp = main >= maxCases;
    if (topUp && extra >= MAX_TARGET_EXTRA) break;
    if (!topUp) visited++;
    const parent = e.parents[0];
    if (e.parents.length !== 1 || !parent) {
      reasons['root-or-merge'] = (reasons['root-or-merge'] ?? 0) + 1;
      continue;
    }
    const message = extractMessage(e.body);
    const changedSource = new Set<string>();
    const addedSource = new Set<string>();
    for (const ch of diffTree(gitDir, parent, e.sha)) {
      if (ch.oldPath && isSourceFile(ch.oldPath)) changedSource.add(ch.oldPath);
      if ((ch.status === 'A' || ch.status === 'C') && ch.newPath && isSourceFile(ch.newPath)) addedSource.add(ch.newPath);
    }
    const changed = [...changedSource].sort();
    const added = [...addedSource].sort();
    // Renamed-to paths count toward "names a changed file" but are not answers or additions.
    const reason = skipReason({ message, changedSource: changed, addedSource: added });
    if (topUp) {
      if (reason || added.length === 0) continue;
      extra++;
    } else if (reason) {
      reasons[reason] = (reasons[reason] ?? 0) + 1;
      continue;
    } else main++;
    cases.push({
      repo,
      mirror_hint: hint,
      language,
      commit: e.sha,
      parent,
      date: new Date(e.ct * 1000).toISOString(),
      message,
      changed_source_files: changed,
      added_files: added,
      ...(topUp ? { target_only: true } : {}),
    });
  }
  return { cases, reasons, visited, main, extra };
}

function main(): void {
  const args = process.argv.slice(2);
  const opt = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const here = dirname(fileURLToPath(import.meta.url));
  const out = opt('--out') ?? join(here, 'cases.json');
  const max = Number(opt('--max') ?? MAX_CASES_DEFAULT);
  const only = opt('--repo');
  const root = mirrorRoot(opt('--mirrors'));
  const all: EvalCase[] = [];
  for (const { repo, hint, language } of REPOS) {
    if (only && only !== repo && only !== hint) continue;
    const gitDir = findMirror(hint, root);
    if (!gitDir) {
      console.error(`[mine] no mirror for ${hint} under ${root}; skipped`);
      continue;
    }
    const { cases, reasons, visited, main: nMain, extra } = mineRepo(repo, hint, language, gitDir, max);
    const mainCases = cases.filter((c) => !c.target_only);
    const span = mainCases.length ? `${mainCases[mainCases.length - 1]?.date.slice(0, 10)}..${mainCases[0]?.date.slice(0, 10)}` : '-';
    const withAdded = cases.filter((c) => c.added_files.length > 0).length;
    console.error(
      `[mine] ${hint} (${gitDir}): ${nMain} cases from ${visited} commits, ${span}; ` +
        `+${extra} target-only; ${withAdded} target-eligible; skipped ${JSON.stringify(reasons)}`,
    );
    all.push(...cases);
  }
  writeFileSync(out, JSON.stringify(all, null, 2) + '\n');
  console.error(`[mine] wrote ${all.length} cases to ${out}`);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  try {
    main();
  } catch (err) {
    console.error(`[mine] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
