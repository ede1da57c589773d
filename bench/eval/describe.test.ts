import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DESCRIBE_REPOS,
  composeDescription,
  isHeldOut,
  majorityLanguage,
  manifestNames,
  nameVariants,
  pickSourceFiles,
  readmeSentences,
  removeNames,
} from './describe.js';
import { REPOS } from './mine.js';
import { MIRRORS_ENV, mirrorFinder, mirrorRoot, treeHistory } from './mirrors.js';
import { describeRoot, reposByBestFile } from './run.js';
import { splitHalves } from './split.js';

describe('README description', () => {
  it('skips badges, logos and the title, and takes the tagline from a blockquote', () => {
    const readme = [
      '<h1 align="center"><img src="logo.svg" alt="Chalk"></h1>',
      '',
      '> Terminal string styling done right',
      '',
      '[![Coverage](https://codecov.io/badge.svg)](https://codecov.io/x)',
      '',
      '## Highlights',
      '',
      '- Expressive API',
    ].join('\n');
    expect(readmeSentences(readme)).toEqual(['Terminal string styling done right']);
  });

  it('passes over sponsor blocks, thanks and HTML tables before the description', () => {
    const readme = [
      '<table><tr><td><a href="https://sponsor.example">Buy followers fast and cheap today</a></td></tr></table>',
      '',
      "Sindre's open source work is supported by the community. Special thanks to:",
      '',
      '<a href="https://x.example"><b>Get the most out of every conversation.</b></a>',
      '',
      '<p align="center">Promise based HTTP client for the browser and node.js</p>',
    ].join('\n');
    expect(readmeSentences(readme)).toEqual(['Promise based HTTP client for the browser and node.js']);
  });

  it('drops a setext title, keeps link text, and stops at the end of the first descriptive paragraph', () => {
    const readme = [
      'regex',
      '=====',
      'This crate provides routines for searching strings for matches of a [regular',
      'expression] (aka "regex"). It has worst case `O(m * n)` time.',
      '',
      'Another paragraph that is not taken.',
    ].join('\n');
    expect(readmeSentences(readme)).toEqual([
      'This crate provides routines for searching strings for matches of a regular expression (aka "regex").',
      'It has worst case O(m * n) time.',
    ]);
  });

  it('treats reStructuredText badges, directives and quotations as markup, not prose', () => {
    const readme = [
      'Black',
      '=====',
      '',
      '|Build| |Coverage|',
      '',
      '.. image:: logo.png',
      '   :target: https://example.org',
      '',
      '> “Any color you like.”',
      '',
      '*Black* is the uncompromising Python code formatter.',
    ].join('\n');
    expect(readmeSentences(readme)).toEqual(['Black is the uncompromising Python code formatter.']);
  });

  it('keeps a long sentence that introduces a list, but not one that announces examples', () => {
    expect(readmeSentences('urfave/cli is a declarative, simple, fast, and fun package for building command line tools in Go featuring:\n- commands')).toEqual([
      'urfave/cli is a declarative, simple, fast, and fun package for building command line tools in Go featuring.',
    ]);
    expect(readmeSentences('Many Go projects are built using Viper including:\n\nGo configuration with fangs!')).toEqual(['Go configuration with fangs!']);
  });

  it('returns nothing when the README has no prose', () => {
    expect(readmeSentences('# Title\n\n- a list\n- only\n\n```js\ncode()\n```\n')).toEqual([]);
  });
});

describe('name removal', () => {
  it('knows a repository by its GitHub name, its package names and their forms without a language affix', () => {
    expect(nameVariants(['commander.js'])).toEqual(['commander js', 'commander.js', 'commanderjs', 'commander']);
    expect(nameVariants(['json', 'serde_json'])).toEqual(['serde json', 'serde_json', 'serdejson', 'json']);
    expect(nameVariants(['@scope/thing'])).toEqual(['thing']);
  });

  it('removes whole words only, case-insensitively, with plural and possessive endings', () => {
    expect(removeNames("Koa's middleware: Koa is expressive, unlike koala.", nameVariants(['koa']))).toBe('middleware: is expressive, unlike koala.');
    expect(removeNames('For the creation of RFC9562 UUIDs', nameVariants(['uuid']))).toBe('For the creation of RFC9562');
    expect(removeNames('The complete solution for node.js command-line interfaces (Commander.js)', nameVariants(['commander.js']))).toBe(
      'The complete solution for node.js command-line interfaces',
    );
    expect(removeNames('serde_json: Strongly typed JSON', nameVariants(['serde_json']))).toBe('Strongly typed JSON');
  });

  it('takes further sentences while the query is shorter than eight words', () => {
    const variants = nameVariants(['typer']);
    expect(composeDescription(['Typer, build great CLIs.', 'Easy to code.', 'Based on Python type hints.', 'Not needed.'], variants)).toEqual({
      description: 'Typer, build great CLIs. Easy to code. Based on Python type hints.',
      query: 'build great CLIs. Easy to code. Based on Python type hints.',
    });
  });

  it('reads package names from the manifests it is given', () => {
    expect(
      manifestNames({
        'Cargo.toml': '[workspace]\nmembers = []\n\n[package]\nname = "serde_json"\nversion = "1.0.0"\n',
        'pyproject.toml': '[build-system]\nrequires = []\n\n[project]\nname = "more-itertools"\n',
        'go.mod': 'module github.com/urfave/cli/v3\n\ngo 1.22\n',
        'pom.xml': '<project><parent><artifactId>oss-parent</artifactId></parent><artifactId>gson-parent</artifactId></project>',
        'package.json': '{"name": "ky", "description": "never used"}',
      }),
    ).toEqual(['serde_json', 'more-itertools', 'ky', 'cli', 'gson-parent']);
  });
});

describe('indexed files of a description case', () => {
  it('keeps non-test source files of the main language, the shallowest first, up to the cap', () => {
    const entries = [
      { path: 'src/deep/inner/z.rs', size: 10 },
      { path: 'src/lib.rs', size: 10 },
      { path: 'src/main.rs', size: 10 },
      { path: 'tests/it.rs', size: 10 },
      { path: 'build.py', size: 10 },
      { path: 'src/huge.rs', size: 10_000_000 },
      { path: 'README.md', size: 10 },
    ];
    expect(pickSourceFiles(entries, 2)).toEqual(['src/lib.rs', 'src/main.rs']);
    expect(pickSourceFiles(entries)).toEqual(['src/lib.rs', 'src/main.rs', 'src/deep/inner/z.rs']);
    expect(majorityLanguage(['a.ts', 'b.ts', 'c.js'])).toBe('typescript');
  });

  it('names a case folder by owner, name and commit, and ranks repositories by their best file', () => {
    expect(describeRoot({ repo: 'sharkdp/fd', commit: '0123456789abcdef0123' })).toBe('sharkdp+fd@0123456789ab');
    expect(reposByBestFile(['b@1/x.rs', 'a@2/y.go', 'b@1/z.rs', 'c@3/w.py'])).toEqual(['b@1', 'a@2', 'c@3']);
  });
});

describe('repositories', () => {
  it('never uses a held-out repository, in either set', () => {
    expect(isHeldOut('pallets/flask')).toBe(true);
    expect(isHeldOut('pallets/click')).toBe(false);
    expect([...REPOS.map((r) => r.hint), ...DESCRIBE_REPOS].filter(isHeldOut)).toEqual([]);
  });

  it('has commit repositories in at least five languages, with Rust and Java', () => {
    const languages = new Set(REPOS.map((r) => r.language));
    expect(languages.size).toBeGreaterThanOrEqual(5);
    expect(languages).toContain('rust');
    expect(languages).toContain('java');
    expect(DESCRIBE_REPOS.length).toBeGreaterThanOrEqual(50);
  });
});

describe('tuning and held-out halves', () => {
  const ids = Array.from({ length: 11 }, (_, i) => `case-${i}`);

  it('are balanced, independent of the order cases are listed in, and swapped by --tune-on odd', () => {
    const even = splitHalves(ids);
    const tune = ids.filter((id) => even.get(id) === 'tune');
    expect(tune.length).toBe(6);
    expect(splitHalves([...ids].reverse())).toEqual(even);
    const odd = splitHalves(ids, 'odd');
    expect(ids.every((id) => odd.get(id) !== even.get(id))).toBe(true);
  });
});

describe('mirror root', () => {
  it('is required: the error names the flag and the environment variable', () => {
    expect(() => mirrorRoot(undefined, {})).toThrow(/--mirrors DIR or set CODERAG_EVAL_MIRRORS=DIR/);
  });

  it('prefers the flag over the environment variable, and rejects a missing directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coderag-eval-mirrors-'));
    try {
      expect(mirrorRoot(dir, { [MIRRORS_ENV]: '/nonexistent' })).toBe(dir);
      expect(mirrorRoot(undefined, { [MIRRORS_ENV]: dir })).toBe(dir);
      expect(() => mirrorRoot(join(dir, 'absent'), {})).toThrow(/is not a directory/);
      expect(mirrorFinder(dir, {})('owner/name')).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is resolved lazily, so runs over cached trees need none', () => {
    const find = mirrorFinder(undefined, {});
    expect(() => find('owner/name')).toThrow(/CODERAG_EVAL_MIRRORS/);
  });

  it('leaves a tree without a mirror without history, and says so once per repository', () => {
    const said: string[] = [];
    const find = mirrorFinder(undefined, {});
    expect(treeHistory(find, 'owner/lost', 'abc', (l) => said.push(l))).toBeUndefined();
    expect(treeHistory(find, 'owner/lost', 'def', (l) => said.push(l))).toBeUndefined();
    expect(treeHistory(() => '/mirrors/owner+found', 'owner/found', 'abc', (l) => said.push(l))).toEqual({ gitDir: '/mirrors/owner+found', rev: 'abc' });
    expect(said).toEqual(['[eval] owner/lost: no mirror, so its trees are indexed without commit history (cached under the no-history key)']);
  });
});
