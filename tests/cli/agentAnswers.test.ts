/**
 * What a coding agent asks the CLI besides ranked files: outlines, symbol look-ups, snippets from the
 * repository on disk, and clear answers to requests that cannot find anything.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../support/tempRepo.js';

const RETRY = `/**
 * Retries a request with exponential backoff.
 */
export class RetryPolicy {
  constructor(private readonly attempts: number) {}

  /** Waits longer after each failure. */
  backoffDelay(attempt: number): number {
    return 100 * 2 ** attempt;
  }
}

export function retryRequest(send: () => Promise<void>, policy: RetryPolicy): Promise<void> {
  return send();
}
`;

describe('coderag outline, symbol and search --snippets on a freshly indexed repository', () => {
  let repo: TempRepo;
  let out: string;

  beforeAll(async () => {
    repo = makeTempRepo({ 'src/retry.ts': RETRY, 'src/clock.ts': 'export const now = () => Date.now();\n' }, { name: 'retrylib' });
    out = makeTempDir();
    const indexed = await runCli(['index', repo.root, '--out', out, '--quiet'], { timeoutMs: 30_000 });
    expect(indexed.code).toBe(0);
  }, 60_000);

  it('outlines a file with its class, nested method and function, and their lines', async () => {
    const text = await runCli(['outline', 'retrylib', 'src/retry.ts', '--indexes', out]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('class RetryPolicy  lines 4-11');
    expect(text.stdout).toContain('  method backoffDelay  lines 8-10  Waits longer after each failure.');
    const json = JSON.parse((await runCli(['outline', 'retrylib', 'retry.ts', '--indexes', out, '--json'])).stdout) as { file_path: string; symbols: { qualified_name: string; start_line: number }[] };
    expect(json.file_path).toBe('src/retry.ts');
    expect(json.symbols.map((s) => s.qualified_name)).toEqual(expect.arrayContaining(['RetryPolicy', 'RetryPolicy.backoffDelay', 'retryRequest']));
  });

  it('fails with a hint for a file that is not indexed', async () => {
    const result = await runCli(['outline', 'retrylib', 'lib/retry.ts', '--indexes', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: no file lib/retry.ts in retrylib\nhint: did you mean src/retry.ts?');
  });

  it('finds a method by its qualified name', async () => {
    const result = await runCli(['symbol', 'RetryPolicy.backoffDelay', '--indexes', out, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ total_matches: 1, matches: [{ repo_name: 'retrylib', file_path: 'src/retry.ts', start_line: 8, end_line: 10, match: 'qualified' }] });
    expect((await runCli(['symbol', 'retryRequest', '--indexes', out])).stdout).toContain('retrylib  src/retry.ts:13-15  function retryRequest');
  });

  it('lists each result\'s matching symbols with their lines, in markdown and in JSON', async () => {
    const markdown = (await runCli(['search', '--query', 'backoff delay', '--indexes', out])).stdout;
    expect(markdown).toMatch(/\*\*Matching Symbols\*\*: .*method RetryPolicy\.backoffDelay \(lines 8-10\)/);
    const json = JSON.parse((await runCli(['search', '--query', 'backoff delay', '--indexes', out, '--json'])).stdout) as { references: { file_path: string; symbols: unknown[] }[] };
    expect(json.references[0]?.file_path).toBe('src/retry.ts');
    expect(json.references[0]?.symbols).toContainEqual({ kind: 'method', name: 'backoffDelay', qualified_name: 'RetryPolicy.backoffDelay', start_line: 8, end_line: 10, description: 'Waits longer after each failure.' });
  });

  it('shows lines around each matching symbol while the file is unchanged, and says why not once it changed or moved', async () => {
    const search = async () => JSON.parse((await runCli(['search', '--query', 'retry backoff delay', '--snippets', '1', '--indexes', out, '--json'])).stdout) as { references: { file_path: string; snippets?: { qualified_name: string; from_line: number; to_line: number; text: string }[]; snippet_notice?: string }[] };
    const fresh = (await search()).references[0];
    expect(fresh?.file_path).toBe('src/retry.ts');
    expect(fresh?.snippets).toContainEqual({ kind: 'method', qualified_name: 'RetryPolicy.backoffDelay', start_line: 8, end_line: 10, from_line: 7, to_line: 9, text: '  /** Waits longer after each failure. */\n  backoffDelay(attempt: number): number {\n    return 100 * 2 ** attempt;' });
    const markdown = (await runCli(['search', '--query', 'retry backoff delay', '--snippets', '1', '--indexes', out])).stdout;
    expect(markdown).toContain('**Lines 7-9** (method RetryPolicy.backoffDelay):\n```typescript\n  /** Waits longer after each failure. */\n');

    writeFileSync(path.join(repo.root, 'src/retry.ts'), `// edited\n${RETRY}`);
    const changed = (await search()).references[0];
    expect(changed?.snippets).toBeUndefined();
    expect(changed?.snippet_notice).toBe('no snippets: src/retry.ts changed since it was indexed (re-index for current lines)');

    rmSync(repo.root, { recursive: true, force: true });
    const moved = (await search()).references[0];
    expect(moved?.snippet_notice).toMatch(/^no snippets: .*retry\.ts is not on disk \(the repository moved, or was indexed elsewhere\)$/);
  });

  it('answers a query of only stopwords and punctuation with a notice, in markdown and JSON', async () => {
    const markdown = await runCli(['search', '--query', 'the of ???', '--indexes', out]);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain('> no results: "the of ???" has only stopwords, numbers, single letters or punctuation, so there is nothing to search for');
    const json = JSON.parse((await runCli(['search', '--query', 'the of ???', '--indexes', out, '--json'])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ status: 'success', total_references_found: 0 });
    expect(json.notice).toMatch(/has only stopwords, numbers, single letters or punctuation/);
  });
});

describe('an indexes folder with nothing to read', () => {
  it.each([
    ['empty', ['search', '--query', 'cache'], {}, 'the folder is empty'],
    ['holding no JSON', ['overview'], { 'notes.txt': 'x' }, 'it holds 1 entry but no .json file'],
    ['holding JSON that is not an index', ['symbol', 'get'], { 'a.json': '{"a": 1}' }, 'none of its 1 .json file(s) could be read as a repository index (see the warnings above)'],
  ])('is named as %s (coderag %j)', async (_, args, files: Record<string, string>, why) => {
    const dir = makeTempDir();
    for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
    const result = await runCli([...args, '--indexes', dir]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`error: no index files found in ${dir}: ${why}\nhint: run \`coderag index <repo> --out <dir>\` first`);
  });
});
