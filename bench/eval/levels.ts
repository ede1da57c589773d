/**
 * The issue set's file- and function-level table (issueLevelsTable) from one or more run.ts JSON outputs, their
 * `issues` rows merged (e.g. a Python run and a Multi-SWE-bench run), per language and half:
 *
 *   node --import tsx bench/eval/levels.ts /tmp/issues-python.json /tmp/issues-ml.json [--set heldout-issues] [--one-def]
 *
 * `--one-def`: only the cases whose fix touches exactly one gold definition (the function-level counterpart of
 * SWE-bench Lite's one-file fixes; Acc@k wants every gold definition, which a fix of 200 never reaches).
 *
 * A case met twice for one ranker (the same instance in two files) counts once, from the last file given.
 */
import { readFileSync } from 'node:fs';
import { issueLevelsTable, issueRows, type IssueCaseResult } from './issues.js';

const oneDef = process.argv.includes('--one-def');
const args = process.argv.slice(2).filter((a) => a !== '--one-def');
const setAt = args.indexOf('--set');
const set = setAt >= 0 ? args[setAt + 1] : 'issues';
const files = args.filter((_, i) => setAt < 0 || (i !== setAt && i !== setAt + 1));
if (!files.length) throw new Error('usage: levels.ts RUN.json [RUN.json …] [--set issues|heldout-issues]');
const byKey = new Map<string, IssueCaseResult>();
for (const file of files) {
  const run = JSON.parse(readFileSync(file, 'utf8')) as { per_case?: Array<IssueCaseResult | { set: string }> };
  for (const r of run.per_case ?? []) if (r.set === set) byKey.set(`${(r as IssueCaseResult).ranker}\0${(r as IssueCaseResult).commit}`, r as IssueCaseResult);
}
const results = [...byKey.values()].filter((r) => !oneDef || r.gold_functions.length === 1);
const rankers = [...new Set(results.map((r) => r.ranker))];
// every language's rows, even with one language in the input
const rows = issueRows(rankers, results);
console.log(issueLevelsTable(rows));
