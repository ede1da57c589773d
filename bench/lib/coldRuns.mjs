/**
 * Times cold processes from a small parent. Spawning from the benchmark's own process, which holds a loaded
 * 50,000-file index, costs a fork of its gigabyte of memory each time, and that cost landed in every figure
 * (Node's bare start measured ~170 ms there, ~115 ms from a shell). An agent or a shell calling the CLI is a
 * small process: this one is too.
 *
 *   node bench/lib/coldRuns.mjs <spec.json>
 * spec: { "runs": [[arg, ...], ...], "env": {...} } — each run is `node <args>` with `env` added to this process's
 * environment, and must print JSON holding `references`.
 * Each run is paired with a bare `node -e 0` just before it, so a busy machine slows both alike. Prints one JSON
 * line: { "pairs": [[nodeStartMs, runMs], ...] }.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [specFile] = process.argv.slice(2);
if (!specFile) {
  process.stderr.write('usage: coldRuns.mjs <spec.json>\n');
  process.exit(2);
}
const { runs, env = {} } = JSON.parse(readFileSync(specFile, 'utf8'));

function timed(args) {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } });
  return { ms: performance.now() - started, run };
}

const pairs = runs.map((args) => {
  const node = timed(['-e', '0']).ms;
  const { ms, run } = timed(args);
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed (${run.status}): ${run.stderr}`);
  const answer = JSON.parse(run.stdout);
  if (!Array.isArray(answer.references)) throw new Error(`${args.join(' ')} answered without references`);
  return [node, ms];
});
process.stdout.write(`${JSON.stringify({ pairs })}\n`);
