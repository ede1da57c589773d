/**
 * Builds throwaway repositories for tests: a folder of files, optionally a git work tree with its own
 * identity (CI machines have no global one).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TempRepo {
  root: string;
  write(file: string, content: string | Buffer): void;
  git(...args: string[]): string;
  remove(): void;
}

const created: string[] = [];

/** A new empty folder under the system's temporary folder, removed after the test file (see cleanup.ts). */
export function makeTempDir(prefix = 'coderag-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Removes every folder `makeTempDir` made in this test file, unless CODERAG_KEEP_TEMP is set (to look into a failure). */
export function removeTempDirs(): void {
  if (process.env.CODERAG_KEEP_TEMP) return;
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Runs git in `cwd` with its own identity and default branch (CI machines have no global one); returns its output. */
export function gitIn(cwd: string): (...args: string[]) => string {
  return (...args) => execFileSync('git', ['-c', 'user.name=CodeRAG Test', '-c', 'user.email=test@coderag.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
}

export function makeTempRepo(files: Record<string, string | Buffer> = {}, options: { git?: boolean; name?: string } = {}): TempRepo {
  const parent = makeTempDir();
  const root = path.join(parent, options.name ?? 'repo');
  mkdirSync(root);
  const repo: TempRepo = {
    root,
    write(file, content) {
      const absolute = path.join(root, file);
      mkdirSync(path.dirname(absolute), { recursive: true });
      writeFileSync(absolute, content);
    },
    git: gitIn(root),
    remove() {
      rmSync(parent, { recursive: true, force: true });
    },
  };
  for (const [file, content] of Object.entries(files)) repo.write(file, content);
  if (options.git) {
    repo.git('init', '-q');
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'fixture', '--allow-empty');
  }
  return repo;
}
