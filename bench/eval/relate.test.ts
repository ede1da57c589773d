import { describe, expect, it } from 'vitest';
import { staticProfile } from '../../tests/support/fileSummary.js';
import { parseLookupCases } from './lookup.js';
import { calibrationTable, mainExtension, targetOf } from './relate.js';

describe('the look-up set read as target files', () => {
  it('names a free-text request x with the extension most source files have, and keeps a --target case as written', () => {
    const files = [staticProfile('lib/a.js'), staticProfile('lib/b.js'), staticProfile('index.d.ts'), staticProfile('test/a.ts', { role: 'test' }), staticProfile('test/b.ts', { role: 'test' })];
    expect(mainExtension(files)).toBe('.js');
    const [query, target] = parseLookupCases('blind\tkoa@abc\tcookies\t^lib/context\\.js$\nhand\tgot@def\t--target src/x.ts --keywords a,b c\tsrc/x\n');
    expect(targetOf(query!, '.js')).toEqual({ path: 'x.js', purpose: 'cookies' });
    expect(targetOf(target!, '.js')).toEqual({ path: 'src/x.ts', purpose: 'a b c' });
  });

  it('counts the ranked files above 0.7 that are the gold file, per set', () => {
    const e = { rank: 0, relative: 1, coverage: 1, lead: 1 };
    const table = calibrationTable([
      { set: 'blind', evidence: e, confidence: 0.9, gold: true },
      { set: 'blind', evidence: e, confidence: 0.75, gold: false },
      { set: 'hand', evidence: e, confidence: 0.4, gold: true },
    ]);
    expect(table).toContain('above 0.7, blind: 1 of 2 gold');
    expect(table).toContain('above 0.7, hand: 0 of 0 gold');
    expect(table).toContain('above 0.7, all: 1 of 2 gold (0.500)');
  });
});
