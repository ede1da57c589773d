import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { findImports, importStyleOf, RepoFileSet, resolutionMayChange, resolveImports, type ResolutionMemo } from '../../src/extract/imports.js';
import { detectLanguage } from '../../src/extract/languages.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/polyglot');

describe('resolving imports again with a memo', () => {
  it('resolves every file of a repository as resolving it alone does, twice over', () => {
    const files = fg.sync('**/*', { cwd: FIXTURE }).sort();
    const repo = new RepoFileSet(files);
    repo.goModule = /^module\s+(\S+)/m.exec(readFileSync(path.join(FIXTURE, 'go.mod'), 'utf8'))?.[1] ?? null;
    // Every file also as if it sat in each folder, so imports resolve from folders they were not written in.
    const importers = files.flatMap((file) => [file, ...['src/cache', 'pkg/store', 'lib'].map((dir) => `${dir}/${path.posix.basename(file)}`)]);
    const memo: ResolutionMemo = new Map();
    for (const importer of [...importers, ...importers]) {
      const source = files.includes(importer) ? importer : (files.find((f) => path.posix.basename(f) === path.posix.basename(importer)) as string);
      const language = detectLanguage(importer);
      const style = importStyleOf(language.grammar ?? language.name);
      const imports = findImports(readFileSync(path.join(FIXTURE, source), 'utf8'), style);
      expect(resolveImports(importer, imports, style, repo, memo), importer).toEqual(resolveImports(importer, imports, style, repo));
    }
    expect(memo.size).toBeGreaterThan(10);
  });
});

describe('looking a candidate path up', () => {
  it('finds what normalising the path first finds, for paths that need it and paths that do not', () => {
    const files = ['a/b.ts', 'b.ts', 'a/index.ts', 'x/y/z.js', '...ts', 'a/..ts'];
    const repo = new RepoFileSet(files);
    const normalised = (candidate: string): string | null => {
      const normal = path.posix.normalize(candidate).replace(/^\.\//, '');
      return !normal.startsWith('../') && files.includes(normal) ? normal : null;
    };
    const candidates = ['a/b.ts', './a/b.ts', 'a/./b.ts', 'a//b.ts', 'a/c/../b.ts', '../a/b.ts', 'a/b.ts/', '', '.', 'x/y/../y/z.js', 'a/..ts', '...ts', 'a/.../b.ts', 'a/b/..', 'x//y/z.js'];
    for (const candidate of candidates) expect(repo.firstExisting([candidate]), candidate).toBe(normalised(candidate));
  });
});

describe('telling whether an import may resolve otherwise after files come and go', () => {
  it('answers no only for imports that resolve the same before and after', () => {
    const files = fg.sync('**/*', { cwd: FIXTURE }).sort();
    const changes: Array<{ removed: string[]; added: string[] }> = [
      { removed: ['src/cache/clock.ts'], added: [] },
      { removed: ['lib/router.js', 'lib/tax.rb'], added: ['lib/router/index.ts', 'src/cache/helper.ts'] },
      { removed: [], added: ['src/http/index.ts', 'app/Panel/index.tsx', 'pkg/store/internal/ticker.go'] },
    ];
    let unaffected = 0;
    for (const { removed, added } of changes) {
      const before = new RepoFileSet(files);
      const after = new RepoFileSet([...files.filter((f) => !removed.includes(f)), ...added]);
      const folders = new Set([...removed, ...added].map((f) => path.posix.dirname(f)));
      for (const importer of files.filter((f) => !removed.includes(f))) {
        const language = detectLanguage(importer);
        const style = importStyleOf(language.grammar ?? language.name);
        for (const raw of findImports(readFileSync(path.join(FIXTURE, importer), 'utf8'), style)) {
          if (resolutionMayChange(importer, raw, style, folders)) continue;
          unaffected++;
          expect(resolveImports(importer, [raw], style, after), `${importer}: ${raw.specifier}`).toEqual(resolveImports(importer, [raw], style, before));
        }
      }
    }
    expect(unaffected).toBeGreaterThan(5);
  });
});
