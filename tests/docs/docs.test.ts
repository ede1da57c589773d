/**
 * The docs cannot drift from the program: every `sh`, `shell` and `console` command in README.md and docs/*.md
 * runs here, in the order the docs give them, against one small fixture repository (`./repo`, the polyglot
 * fixture committed to git) in a temporary folder, with `coderag` on the PATH as `npm install -g` would put it.
 * Blocks marked `norun` are not run (tests/support/docBlocks.ts); `npm ci` and `npm run build` are what the suite
 * runs after, so a one-liner's other commands run without them.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv } from '../support/cli.js';
import { blocksOf, commandsOf, docFiles, ROOT, SHELL_LANGS, type DocBlock } from '../support/docBlocks.js';
import { committedFixture } from '../support/reuseRuns.js';
import { makeTempDir } from '../support/tempRepo.js';
import { renameSync } from 'node:fs';

const blocks = docFiles().flatMap(blocksOf);
const shellBlocks = blocks.filter((b) => SHELL_LANGS.has(b.lang));
const runnable = shellBlocks.filter((b) => !b.norun);

let work: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  work = makeTempDir('coderag-docs-');
  renameSync(committedFixture('the fixture'), path.join(work, 'repo'));
  const bin = makeTempDir('coderag-bin-');
  writeFileSync(path.join(bin, 'coderag'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  env = { ...cleanEnv(), PATH: `${bin}${path.delimiter}${process.env.PATH}` };
});

/** A documented command as it runs here: the build steps the suite has done left out, the built CLI where the docs name it by path. */
export function asRun(command: string): string {
  return command
    .split('&&')
    .map((part) => part.trim())
    .filter((part) => !/^npm (ci|run build)$/.test(part))
    .map((part) => part.replace(/^node dist\/bin\/coderag\.cjs\b/, `"${process.execPath}" "${CLI}"`))
    .join(' && ');
}

async function run(command: string): Promise<{ code: number; output: string }> {
  return promisify(execFile)('bash', ['-eo', 'pipefail', '-c', asRun(command)], { cwd: work, env, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => ({ code: 0, output: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, output: `${e.stdout}${e.stderr}` }),
  );
}

/** The sample output a console block shows after each command: its first line, which the real output must hold. */
function firstOutputLines(block: DocBlock): Array<string | null> {
  const lines = block.body.split('\n');
  return lines.flatMap((line, i) => (line.startsWith('$ ') ? [lines[i + 1] && !lines[i + 1]!.startsWith('$ ') ? lines[i + 1]! : null] : []));
}

describe('the docs', () => {
  it('README.md is a page a newcomer reads in five minutes: at most 150 lines', () => {
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(150);
  });

  it('never tell anyone to run npx coderag: the name is not ours on the registry', () => {
    for (const file of docFiles()) expect(readFileSync(path.join(ROOT, file), 'utf8'), file).not.toMatch(/npx\s+coderag|"npx"/);
  });

  it('show the index format of today\'s schema version', async () => {
    const { SCHEMA_VERSION } = await import('../../src/index/types.js');
    expect(readFileSync(path.join(ROOT, 'docs/index-format.md'), 'utf8')).toContain(`"schema_version": ${SCHEMA_VERSION}`);
  });

  it('show in the index format\'s example every field an offline index of the fixture writes, relationships too', async () => {
    const { indexRepo } = await import('../../src/lib.js');
    const index = await indexRepo(committedFixture('index format'), { targetStructure: 'src/cache/ttlCache.ts  # a cache whose entries expire after a time to live\n' });
    const example = /```jsonc\n([\s\S]*?)\n```/.exec(readFileSync(path.join(ROOT, 'docs/index-format.md'), 'utf8'))?.[1] ?? '';
    const keys = new Set<string>();
    for (const file of index.file_summaries) {
      for (const key of Object.keys(file)) keys.add(key);
      for (const symbol of file.symbols ?? []) for (const key of Object.keys(symbol)) keys.add(key);
    }
    expect(index.relationships.length).toBeGreaterThan(0);
    for (const relationship of index.relationships) for (const key of Object.keys(relationship)) keys.add(key);
    expect([...keys].filter((key) => !example.includes(`"${key}"`))).toEqual([]);
  });

  it('run nearly every shell example: only a few are marked norun', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(8);
    // Six of the other pages' (installing, npm test, what needs a model) and three of serve.md's: a server that runs
    // until stopped, a client's configuration and systemd (tests/serve starts the server itself).
    expect(shellBlocks.filter((b) => b.norun).length).toBeLessThanOrEqual(9);
  });
});

describe.each(runnable.map((b) => [`${b.file}:${b.line}`, b] as const))('the commands of %s', (_where, block) => {
  it('run and exit 0, printing what the sample output shows', async () => {
    const samples = block.lang === 'console' ? firstOutputLines(block) : [];
    for (const [i, command] of commandsOf(block).entries()) {
      const { code, output } = await run(command);
      expect(code, `${command}\n${output.slice(-2000)}`).toBe(0);
      const sample = samples[i];
      if (sample) expect(output, command).toContain(sample);
    }
  }, 120_000);
});
