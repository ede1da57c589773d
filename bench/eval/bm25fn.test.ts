import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bm25QueryTerms, bm25Rank, buildBm25 } from './baselines.js';
import { bm25FnRanker } from './bm25fn.js';
import { defLanguageOf, definitions } from './defs.js';
import { functionMetrics, goldFunctions } from './issues.js';

// A toy tree: one Java class with three methods, a Go file, a README (no finder) and a JS file with no definition.
const FILES: Record<string, string> = {
  'src/Printer.java': [
    'class Printer {', //                                 1
    '  void header() {', //                               2
    '    writeTitle(title);', //                          3
    '  }', //                                             4
    '  void lineNumber(int n) {', //                      5
    '    if (n > maxMatches) { skipContext(n); }', //     6
    '  }', //                                             7
    '  void footer() { close(); }', //                    8
    '}', //                                               9
  ].join('\n'),
  'walk.go': ['package walk', '', 'func spawnSenders(maxMatches int) {', '\tsend()', '}', ''].join('\n'),
  'README.md': 'max matches skip context',
  'lib/conf.js': 'module.exports.maxMatches = 3',
};

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bm25fn-'));
  for (const [p, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bm25fn: BM25 over function source', () => {
  const query = 'Context lines are skipped after max matches';
  const rank = async () => {
    const prepared = await bm25FnRanker.prepare(dir, Object.keys(FILES).sort());
    return bm25FnRanker.rankWithSymbols(prepared, { query, keywords: [] }, 50);
  };

  it("ranks the method whose body holds the issue's words above its siblings, each definition one document", async () => {
    const { symbols } = await rank();
    expect(symbols.map((s) => `${s.file}:${s.ast_path}@${s.start_line}-${s.end_line}`)).toEqual([
      'src/Printer.java:Printer-lineNumber@5-7',
      'src/Printer.java:Printer@1-9', // the class's document holds its methods' text
      'walk.go:spawnSenders@3-5',
    ]);
  });

  it("scores exactly as the bm25 baseline would over each definition's lines as a document (same tokens, formula, idf)", async () => {
    const { symbols } = await rank();
    const docs = Object.entries(FILES).flatMap(([path, text]) => {
      const lang = defLanguageOf(path);
      const lines = text.split('\n');
      return lang ? definitions(text, lang).map((d) => ({ path: `${path}:${d.qualname.replace(/\./g, '-')}@${d.start}-${d.end}`, text: lines.slice(d.start - 1, d.end).join('\n') })) : [];
    });
    const expected = bm25Rank(buildBm25(docs), bm25QueryTerms(query));
    expect(symbols.map((s) => [`${s.file}:${s.ast_path}@${s.start_line}-${s.end_line}`, (s as { score?: number }).score?.toFixed(9)])).toEqual(expected.map((e) => [e.path, e.score.toFixed(9)]));
  });

  it('ranks files where their best definition ranks; files with no definition never come', async () => {
    const { files } = await rank();
    expect(files).toEqual(['src/Printer.java', 'walk.go']);
  });

  it("hits the gold method of a Java patch with issues.ts's rule", async () => {
    const patch = [
      'diff --git a/src/Printer.java b/src/Printer.java',
      '--- a/src/Printer.java',
      '+++ b/src/Printer.java',
      '@@ -6,1 +6,1 @@',
      '-    if (n > maxMatches) { skipContext(n); }',
      '+    if (n >= maxMatches) { skipContext(n); }',
      '',
    ].join('\n');
    const gold = goldFunctions(patch, (p) => FILES[p]);
    expect(gold.map((g) => `${g.qualname}@${g.line}`)).toEqual(['Printer.lineNumber@5']);
    const { symbols } = await rank();
    expect(functionMetrics(symbols, gold)).toMatchObject({ fnAcc1: 1, fnAcc5: 1, fnAcc10: 1 });
  });
});
