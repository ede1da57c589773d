/**
 * One vocabulary for how a run ended, wherever it is said: an unreadable file is `failed` in the index, in its
 * `file_done` event, on stderr, in the closing line and in the NDJSON summary, and the summary's `status`
 * matches the exit code (never `success` beside exit code 3). The events' fields are snake_case, and name things as
 * the index does (`repo_name`, `file_path`), without the old names beside them.
 */
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';
import { mergeCommand } from '../../src/cli/commands/merge.js';
import { closingLine, reportRun, runStatus } from '../../src/cli/report.js';
import { defaultConfig } from '../../src/config/schema.js';
import type { IndexEvent } from '../../src/pipeline/events.js';
import { runIndex } from '../../src/pipeline/runIndex.js';
import { parseShard } from '../../src/pipeline/shard.js';
import { readdirDenying } from '../support/deniedFs.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

/** Reads every file but `locked.ts`, which answers as a file without read permission does. */
const denyLocked = async (absolute: string): Promise<Buffer> => {
  if (absolute.endsWith('locked.ts')) throw Object.assign(new Error(`EACCES: permission denied, open '${absolute}'`), { code: 'EACCES' });
  return readFile(absolute);
};

function sinkStream(): { stream: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  return { stream, text: () => text };
}

const lockedRepo = () => makeTempRepo({ 'src/open.ts': 'export const open = 1;\n', 'src/locked.ts': 'export const locked = 1;\n' }, { name: 'repo' });

async function runWithLockedFile(onEvent: (event: IndexEvent) => void) {
  return runIndex([lockedRepo().root], { config: defaultConfig(), outDir: makeTempDir(), readFile: denyLocked, onEvent });
}

afterEach(() => vi.restoreAllMocks());

/** What the process writes on stderr and stdout from here on, kept instead of printed. */
function capturedOutput(): { stderr: string; stdout: string } {
  const output = { stderr: '', stdout: '' };
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((output.stderr += String(chunk)), true));
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((output.stdout += String(chunk)), true));
  return output;
}

describe('a file that cannot be read', () => {
  it('is failed in the index, its event, the NDJSON summary (files_failed, exit code 3), all alike', async () => {
    const { stream, text } = sinkStream();
    const progress = createProgress({ stream, quiet: false, format: 'json' });
    const result = await runWithLockedFile(progress.sink);
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const exitCode = reportRun(result, progress, { quiet: false, json: false }, Date.now());
    expect(stdout).toHaveBeenCalled();
    expect(exitCode).toBe(3);
    const events = text().trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toContainEqual({ type: 'file_done', repo_name: 'repo', file_path: 'src/locked.ts', status: 'failed', cached: false, reason: 'unreadable' });
    expect(events.find((e) => e.type === 'repo_done')).toEqual({ type: 'repo_done', repo_name: 'repo', output_path: result.written[0]?.outputPath });
    const summary = events.at(-1);
    expect(summary).toMatchObject({ type: 'summary', status: 'files_failed', exit_code: 3, failed_files: [{ repo_name: 'repo', file_path: 'src/locked.ts', reason: 'unreadable' }] });
    expect(summary?.repositories).toMatchObject([{ files_by_status: { ok: 1, skipped: 0, failed: 1 }, skipped_by_reason: { unreadable: 1 } }]);
  });

  it('is failed on stderr and in the closing line too', async () => {
    const progress = createProgress({ stream: sinkStream().stream, quiet: false, format: 'plain' });
    const result = await runWithLockedFile(progress.sink);
    const output = capturedOutput();
    expect(reportRun(result, progress, { quiet: false, json: true }, Date.now())).toBe(3);
    expect(output.stderr).toContain('warning: repo: src/locked.ts failed: unreadable');
    expect(output.stderr).toMatch(/repo: 1 file indexed, 0 skipped, 1 failed \(unreadable 1\)/);
    expect(output.stderr).not.toMatch(/skipped \(unreadable/);
    expect(JSON.parse(output.stdout)).toMatchObject({ status: 'files_failed', exit_code: 3 });
    expect(closingLine(result.written[0]!.index)).toContain('1 failed (unreadable 1)');
  });
});

describe('a folder that cannot be listed', () => {
  it('fails the run as a failed file does: named on stderr and in the closing line, exit code 3, kept in the index', async () => {
    const repo = makeTempRepo({ 'src/open.ts': 'export const open = 1;\n', 'locked/hidden.ts': 'export const hidden = 1;\n' }, { name: 'repo' });
    const progress = createProgress({ stream: sinkStream().stream, quiet: false, format: 'plain' });
    const result = await runIndex([repo.root], { config: defaultConfig(), outDir: makeTempDir(), walkFs: { readdir: readdirDenying(['locked']) }, onEvent: progress.sink });
    const output = capturedOutput();
    expect(reportRun(result, progress, { quiet: false, json: true }, Date.now())).toBe(3);
    expect(output.stderr).toContain('warning: repo: locked/ failed: unreadable folder (permission denied), its files are not indexed');
    expect(output.stderr).toMatch(/repo: 1 file indexed, 0 skipped, 1 unreadable folder not indexed, /);
    expect(JSON.parse(output.stdout)).toMatchObject({ status: 'files_failed', exit_code: 3, failed_files: [{ repo_name: 'repo', file_path: 'locked/' }] });
    const index = JSON.parse(await readFile(result.written[0]!.outputPath, 'utf8')) as { analysis_metadata: { unreadable_folders?: string[] } };
    expect(index.analysis_metadata.unreadable_folders).toEqual(['locked/']);
  });
});

describe('coderag merge of shards with a failed file', () => {
  it('names the failed file on stderr as index does, and says files_failed with exit code 3', async () => {
    const repo = lockedRepo();
    const shards = makeTempDir();
    for (const shard of ['1/2', '2/2']) await runIndex([repo.root], { config: defaultConfig(), outDir: shards, readFile: denyLocked, shard: parseShard(shard) });
    const output = capturedOutput();
    expect(await mergeCommand([shards], { out: makeTempDir(), json: true, quiet: false })).toBe(3);
    expect(output.stderr).toContain('warning: repo: src/locked.ts failed: unreadable');
    expect(output.stderr).toMatch(/merged repo: 1 file indexed, 0 skipped, 1 failed \(unreadable 1\)/);
    expect(JSON.parse(output.stdout)).toMatchObject({ status: 'files_failed', exit_code: 3, failed_files: [{ repo_name: 'repo', file_path: 'src/locked.ts', reason: 'unreadable' }] });
  });
});

describe('the status word of a finished run', () => {
  it.each([
    [0, 'success'],
    [3, 'files_failed'],
    [4, 'budget_stopped'],
  ])('is one per exit code: %i is %s', (code, word) => {
    expect(runStatus(code)).toBe(word);
  });
});
