/**
 * An agent hands `coderag search` a whole issue report: as --query, from a file or on standard input, and asks for
 * the functions to change. Bad input gets a clear message and exit code 2.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { makeTempDir, makeTempRepo } from '../support/tempRepo.js';

const FILES: Record<string, string> = {
  'pkg/__init__.py': 'from .core import Session\n',
  'pkg/core.py': [
    '"""The session: runs commands and prints their output."""',
    'class Session:',
    '    """Runs a command and formats its output."""',
    '    def run(self, command):',
    '        return self.format_output(command())',
    '',
    '    def format_output(self, value):',
    '        return str(value)',
    '',
  ].join('\n'),
  'pkg/_io/saferepr.py': [
    'def _format_repr_exception(exc, obj):',
    '    """Describes an exception raised by repr()."""',
    '    return "<[{} raised in repr()] {} object>".format(type(exc).__name__, type(obj).__name__)',
    '',
    'def saferepr(obj):',
    '    """repr() that never raises."""',
    '    try:',
    '        return repr(obj)',
    '    except Exception as exc:',
    '        return _format_repr_exception(exc, obj)',
    '',
  ].join('\n'),
  'tests/test_saferepr.py': 'from pkg._io.saferepr import saferepr\n\ndef test_broken_repr():\n    assert "raised in repr" in saferepr(object())\n',
};

const ISSUE = [
  'saferepr crashes when repr raises and the exception has no active context',
  '',
  'When an object whose __repr__ raises is printed in an assertion message, the whole run stops with an internal error',
  'instead of showing the fallback text. I expected the output to describe the exception, as it does for other objects.',
  'It happens every time with the small class below, and the output of the session is lost, so nothing is reported.',
  '',
  'Traceback (most recent call last):',
  '  File "/usr/lib/python3.11/site-packages/pkg/_io/saferepr.py", line 3, in _format_repr_exception',
  '    return "<[{} raised in repr()] {} object>".format(type(exc).__name__, type(obj).__name__)',
  'RuntimeError: No active exception to reraise',
].join('\n');

describe('coderag search with an issue report', () => {
  let out: string;
  let issueFile: string;

  beforeAll(async () => {
    const repo = makeTempRepo(FILES);
    out = makeTempDir();
    const indexed = await runCli(['index', repo.root, '--out', out, '--quiet'], { timeoutMs: 30_000 });
    expect(indexed.code).toBe(0);
    issueFile = path.join(makeTempDir(), 'issue.md');
    writeFileSync(issueFile, ISSUE);
  }, 40_000);

  const searchJson = async (args: string[], input?: string | Buffer) => {
    const result = await runCli(['search', '--indexes', out, '--json', ...args], input === undefined ? {} : { input });
    return { ...result, json: result.code === 0 ? (JSON.parse(result.stdout) as Record<string, any>) : null };
  };

  it('reads the issue from a file and puts the module its traceback names first, with the anchors it read', async () => {
    const { code, json } = await searchJson(['--query-file', issueFile]);
    expect(code).toBe(0);
    expect(json?.references[0].file_path).toBe('pkg/_io/saferepr.py');
    expect(json?.task.anchors).toContainEqual(expect.objectContaining({ kind: 'path', text: 'pkg/_io/saferepr.py', source: 'frame' }));
  });

  it('reads the issue from standard input with --query-file -, and answers as from the file', async () => {
    const fromFile = await searchJson(['--query-file', issueFile]);
    const fromStdin = await searchJson(['--query-file', '-'], ISSUE);
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.json?.references).toEqual(fromFile.json?.references);
  });

  it('ranks the functions to change with --granularity symbol, with file, kind and lines', async () => {
    const { json } = await searchJson(['--query-file', issueFile, '--granularity', 'symbol', '-n', '3']);
    expect(json?.symbols[0]).toMatchObject({ file_path: 'pkg/_io/saferepr.py', name: '_format_repr_exception', kind: 'function', start_line: 1 });
    expect(json?.symbols).toHaveLength(3);
    const markdown = await runCli(['search', '--indexes', out, '--query-file', issueFile, '--granularity', 'symbol']);
    expect(markdown.stdout).toContain('## 🔧 Most Likely Places to Change');
    expect(markdown.stdout).toMatch(/1\. pkg\/_io\/saferepr\.py:1-\d+ function _format_repr_exception/);
  });

  it('refuses binary data on standard input, an empty input, a missing file, and --query with --query-file', async () => {
    const binary = await runCli(['search', '--indexes', out, '--query-file', '-'], { input: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0xff]) });
    expect(binary.code).toBe(2);
    expect(binary.stderr).toMatch(/standard input holds binary data/);
    const empty = await runCli(['search', '--indexes', out, '--query-file', '-'], { input: '  \n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/standard input holds no query text/);
    const missing = await runCli(['search', '--indexes', out, '--query-file', path.join(out, 'nope.md')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the query file .*nope\.md: no such file$/m);
    const folder = await runCli(['search', '--indexes', out, '--query-file', out]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/cannot read the query file .*: it is a folder$/m);
    const both = await runCli(['search', '--indexes', out, '--query', 'x', '--query-file', issueFile]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--query or --query-file, not both/);
  });

  it('answers a megabyte of text, saying only its beginning was read', async () => {
    const huge = `${ISSUE}\n${'log line with nothing in it\n'.repeat(40_000)}`;
    const { code, json } = await searchJson(['--query-file', '-'], huge);
    expect(code).toBe(0);
    expect(json?.task.truncated).toBe(true);
    expect(json?.references[0].file_path).toBe('pkg/_io/saferepr.py');
  });

  it('answers a query of punctuation only with a notice, and a traceback alone by its frames', async () => {
    const punctuation = await searchJson(['--query-file', '-'], '!!! ??? ... ;;; '.repeat(40));
    expect(punctuation.code).toBe(0);
    expect(punctuation.json?.notice).toMatch(/only stopwords, numbers, single letters or punctuation/);
    const traceOnly = await searchJson(['--query-file', '-'], ISSUE.split('\n').slice(6).join('\n'));
    expect(traceOnly.json?.references[0].file_path).toBe('pkg/_io/saferepr.py');
  });
});
