import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isHeldOut } from './describe.js';
import { parseLookupCases } from './lookup.js';
import { REPOS } from './mine.js';

describe('the look-up set', () => {
  const cases = parseLookupCases(readFileSync(join(import.meta.dirname, 'lookup-cases.tsv'), 'utf8'));

  it('reads free-text and target requests, skipping comments', () => {
    const [query, target] = parseLookupCases('# a comment\nblind\tkoa@abc\tcookies\t^lib/context\\.js$\nhand\tgot@def\t--target src/x.ts --keywords a,b\tsrc/x\n');
    expect(query).toMatchObject({ set: 'blind', repo: 'koa', sha: 'abc', request: { query: 'cookies' } });
    expect(query?.answer.test('lib/context.js')).toBe(true);
    expect(target?.request).toEqual({ target: 'src/x.ts', keywords: ['a', 'b'] });
    expect(() => parseLookupCases('blind\tkoa\tcookies\n')).toThrow(/bad line/);
  });

  it('holds only repositories of the commit set, none held out, a blind half and a hand-tried half', () => {
    const known = new Set(REPOS.map((r) => r.repo));
    expect(cases.every((c) => known.has(c.repo) && !isHeldOut(c.repo))).toBe(true);
    expect(cases.filter((c) => c.set === 'blind').length).toBe(90);
    expect(cases.filter((c) => c.set === 'hand').length).toBe(138);
  });
});
