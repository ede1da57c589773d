/**
 * The shipped GitHub Actions example must parse, have the shape the README promises, and name only commands
 * that exist: coderag subcommands and options of the built CLI, npm scripts of package.json.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI } from '../support/cli.js';

const root = path.resolve(import.meta.dirname, '../..');
const workflowFile = path.join(root, 'examples/github-actions/nightly.yml');

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  needs?: string | string[];
  strategy?: { matrix?: Record<string, unknown> };
  steps: Step[];
}
interface Workflow {
  on: { schedule?: Array<{ cron: string }> };
  env: Record<string, unknown>;
  jobs: Record<string, Job>;
}

const workflow = parse(readFileSync(workflowFile, 'utf8')) as Workflow;
const scripts = Object.keys((JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
const allSteps = Object.values(workflow.jobs).flatMap((job) => job.steps);

function help(...args: string[]): string {
  return execFileSync(process.execPath, [CLI, ...args, '--help'], { encoding: 'utf8', timeout: 20_000 });
}

/** The commands of a `run:` block: lines joined at trailing backslashes, split at `&&`, `||`, `;` and `|`. */
function commandsOf(run: string): string[][] {
  return run
    .replace(/\\\n/g, ' ')
    .split(/\n|&&|\|\||;|\|/)
    .map((command) => command.replace(/#.*$/, '').trim())
    .filter(Boolean)
    .map((command) => command.split(/\s+/));
}

describe('examples/github-actions/nightly.yml', () => {
  it('runs every night on a cron schedule', () => {
    expect(workflow.on.schedule?.[0]?.cron).toMatch(/^\S+ \S+ \* \* \*$/);
  });

  it('indexes a matrix of shards, one per SHARDS, and merges them in a job that waits for all', () => {
    const shards = workflow.jobs.index?.strategy?.matrix?.shard as number[];
    expect(shards).toEqual(Array.from({ length: Number(workflow.env.SHARDS) }, (_, i) => i + 1));
    const runs = allSteps.map((s) => s.run ?? '');
    expect(runs.some((r) => r.includes('coderag index') && r.includes('--shard ${{ matrix.shard }}/${{ env.SHARDS }}'))).toBe(true);
    expect(workflow.jobs.merge?.needs).toBe('index');
    expect(workflow.jobs.merge?.steps.some((s) => s.run?.includes('coderag merge'))).toBe(true);
  });

  it('restores the profile cache under keys that let a new night find the last one', () => {
    const cache = workflow.jobs.index?.steps.find((s) => s.uses?.startsWith('actions/cache@'));
    expect(cache).toBeDefined();
    const key = String(cache?.with?.key);
    const restoreKeys = String(cache?.with?.['restore-keys']).split('\n').map((k) => k.trim()).filter(Boolean);
    // A key unique to each run (so every night saves), and restore prefixes that match earlier runs' keys.
    expect(key).toContain('${{ github.run_id }}');
    expect(restoreKeys.length).toBeGreaterThan(0);
    for (const prefix of restoreKeys) expect(key.startsWith(prefix)).toBe(true);
    expect(String(cache?.with?.path)).toContain('.coderag-cache');
  });

  it('passes the shards to the merge job and uploads the merged indexes as an artifact', () => {
    const uploads = workflow.jobs.index?.steps.filter((s) => s.uses?.startsWith('actions/upload-artifact@')) ?? [];
    expect(uploads.map((s) => s.with?.path)).toEqual(['shards/*.shard-*.json']);
    const download = workflow.jobs.merge?.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'));
    expect(download?.with).toMatchObject({ pattern: 'coderag-shard-*', 'merge-multiple': true, path: 'shards' });
    const final = workflow.jobs.merge?.steps.filter((s) => s.uses?.startsWith('actions/upload-artifact@')) ?? [];
    expect(final.map((s) => s.with?.path)).toEqual(['indexes/']);
  });

  it('names only coderag subcommands and options of the built CLI, and npm scripts of package.json', () => {
    const subcommands = [...help().matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]);
    const runs = allSteps.flatMap((s) => (s.run ? commandsOf(s.run) : []));
    expect(runs.length).toBeGreaterThan(3);
    for (const words of runs) {
      const [program, ...args] = words;
      if (program === 'npx' && args[0] === 'coderag') {
        const [sub, ...rest] = args.slice(1);
        expect(subcommands, `coderag ${sub}`).toContain(sub);
        const options = help(sub as string);
        for (const flag of rest.filter((a) => a.startsWith('-'))) {
          expect(options, `coderag ${sub} ${flag}`).toMatch(new RegExp(`(^|[ ,])${flag}([ ,=]|$)`, 'm'));
        }
        const progress = rest.indexOf('--progress');
        if (progress >= 0) expect(options).toContain(`"${rest[progress + 1]}"`);
      } else if (program === 'npm') {
        const [command, script] = args;
        if (command === 'run') expect(scripts, `npm run ${script}`).toContain(script);
        else if (command === 'test') expect(scripts).toContain('test');
        else expect(['ci', 'install'], `npm ${command}`).toContain(command);
      } else {
        throw new Error(`unexpected command in the workflow: ${words.join(' ')}`);
      }
    }
  });
});
