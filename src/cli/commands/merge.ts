/**
 * `coderag merge`: combine the partial indexes of `coderag index --shard i/n` (files, or folders holding them)
 * into the indexes a single run writes, plus the run reports and search packs.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../config/load.js';
import { mergeRepositories, readShard, writeMergedRepositories, type ShardPart } from '../../pipeline/modes/merge.js';
import type { IndexEvent } from '../../pipeline/events.js';
import { UsageError } from '../../shared/errors.js';
import { closingLine, EXIT_FILES_FAILED, reuseFigures, runFailures, runStatus, writeFailures } from '../report.js';

export interface MergeFlags {
  out?: string;
  config?: string;
  json: boolean;
  quiet: boolean;
}

const SHARD_FILE = /\.shard-\d+-of-\d+\.json$/;

/** Answers the exit code: 0, or EXIT_FILES_FAILED when the merged indexes hold failed files, named on stderr (as `index` does). */
export async function mergeCommand(inputs: string[], flags: MergeFlags): Promise<number> {
  const overrides: Record<string, Record<string, unknown>> = {};
  if (flags.out !== undefined) overrides.paths = { output_dir: flags.out };
  const { config, file } = await loadConfig({ configPath: flags.config, overrides });
  const files = await shardFiles(inputs);
  const parts: ShardPart[] = [];
  for (const shardFile of files) parts.push(await readShard(shardFile));
  const notes = (event: IndexEvent) => {
    if (!flags.quiet && (event.type === 'info' || event.type === 'warning')) process.stderr.write(`${event.type === 'warning' ? 'warning: ' : ''}${event.message}\n`);
  };
  const { written, reports } = await writeMergedRepositories(mergeRepositories(parts, config), config.paths.output_dir, config, file, notes);
  const failures = runFailures(written);
  const exitCode = failures.length ? EXIT_FILES_FAILED : 0;
  // Named as `index` names them: a nightly merge's log says which files tonight's shards could not profile.
  writeFailures(failures);
  if (!flags.quiet) {
    for (const { index } of written) process.stderr.write(`merged ${closingLine(index)}\n`);
  }
  if (flags.json) {
    const summary = {
      status: runStatus(exitCode),
      exit_code: exitCode,
      reports,
      shards: files,
      repositories: written.map(({ index, outputPath, reuse, unchanged }) => ({ repo_name: index.repo_name, output_path: outputPath, ...reuseFigures(reuse, unchanged), total_files: index.total_files, git_commit: index.analysis_metadata.git_commit })),
      failed_files: failures,
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  } else {
    for (const { outputPath } of written) process.stdout.write(`${outputPath}\n`);
  }
  return exitCode;
}

/** The files given, and every shard file directly inside the folders given. */
async function shardFiles(inputs: string[]): Promise<string[]> {
  if (inputs.length === 0) throw new UsageError('no shards given', { hint: 'coderag merge <shard files or folders...>' });
  const files: string[] = [];
  for (const input of inputs) {
    const info = await stat(input).catch(() => null);
    if (!info) throw new UsageError(`not found: ${input}`);
    if (!info.isDirectory()) {
      files.push(input);
      continue;
    }
    const found = (await readdir(input)).filter((name) => SHARD_FILE.test(name)).sort();
    if (found.length === 0) throw new UsageError(`no shard files (*.shard-i-of-n.json) in ${input}`);
    files.push(...found.map((name) => path.join(input, name)));
  }
  const seen = new Set<string>();
  return files.filter((f) => !seen.has(path.resolve(f)) && seen.add(path.resolve(f)));
}
