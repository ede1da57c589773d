/**
 * Each definition's own words: the identifiers, string-literal and comment words of its lines, less the lines of
 * the definitions nested in it (a class keeps its fields and its own statements; each method keeps its body). This
 * is what lets search tell a file's methods apart by what they do (the names a method calls, the message it
 * raises) rather than by their names alone.
 *
 * Stored per symbol in the vocabulary format (src/index/vocabulary.ts), most frequent first and bounded, so a file
 * with thousands of definitions or a long function cannot bloat the index. Secrets are screened out first, as for
 * the file's vocabulary.
 */
import type { CodeSymbol } from '../index/types.js';
import { formatVocabulary } from '../index/vocabulary.js';
import { redactSecrets } from '../shared/secrets.js';
import { compareCodeUnits, SEARCH_STOPWORDS } from '../shared/text.js';
import { isIdentifierPart, isIdentifierStart } from './wordCache.js';

/**
 * Words kept per definition. A function's distinct words: median about 15, 90th percentile about 60 on the eval
 * trees; the bound keeps the telling tail of most and the commonest words of the longest.
 */
export const MAX_SYMBOL_TERMS = 64;
const MAX_WORD_LENGTH = 48;
const REDACTION_MARK = 'REDACTED';

/** The words of each symbol's own lines, in the vocabulary format; '' for one with no word of its own. */
export function symbolTerms(content: string, symbols: readonly CodeSymbol[], max = MAX_SYMBOL_TERMS): string[] {
  if (symbols.length === 0) return [];
  const text = redactSecrets(content).text;
  // A secret spanning lines shifts the lines after it: then no definition gets words rather than wrong ones.
  if (lineCount(text) !== lineCount(content)) return symbols.map(() => '');
  const owner = lineOwners(symbols, lineCount(text));
  const counts = symbols.map(() => new Map<string, number>());
  let line = 0;
  const n = text.length;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      line++;
      i++;
      continue;
    }
    if (!isIdentifierStart(c)) {
      i++;
      continue;
    }
    const start = i++;
    while (i < n && isIdentifierPart(text.charCodeAt(i))) i++;
    const s = owner[line] as number;
    if (s < 0 || i - start < 2 || i - start > MAX_WORD_LENGTH) continue;
    const word = text.slice(start, i);
    const map = counts[s] as Map<string, number>;
    map.set(word, (map.get(word) ?? 0) + 1);
  }
  return counts.map((map) => formatVocabulary(strongest(map, max)));
}

/** The words of one definition, merged without regard to case, most frequent first, at most `max`. */
function strongest(counts: ReadonlyMap<string, number>, max: number): Array<[string, number]> {
  const byKey = new Map<string, { form: string; count: number; formCount: number }>();
  for (const [word, n] of counts) {
    const key = word.toLowerCase();
    if (SEARCH_STOPWORDS.has(key) || word === REDACTION_MARK) continue;
    const entry = byKey.get(key);
    if (!entry) byKey.set(key, { form: word, count: n, formCount: n });
    else {
      entry.count += n;
      if (n > entry.formCount || (n === entry.formCount && word < entry.form)) {
        entry.form = word;
        entry.formCount = n;
      }
    }
  }
  return [...byKey.entries()]
    .sort(([ka, a], [kb, b]) => b.count - a.count || compareCodeUnits(ka, kb))
    .slice(0, max)
    .map(([, { form, count }]) => [form, count]);
}

/**
 * For each 0-based line, the innermost symbol whose lines hold it (-1 for none): the longest spans are laid first
 * and the nested ones over them.
 */
function lineOwners(symbols: readonly CodeSymbol[], lines: number): Int32Array {
  const owner = new Int32Array(lines).fill(-1);
  const order = symbols.map((_, i) => i).sort((a, b) => span(symbols[b] as CodeSymbol) - span(symbols[a] as CodeSymbol) || a - b);
  for (const i of order) {
    const { start_line, end_line } = symbols[i] as CodeSymbol;
    owner.fill(i, Math.max(0, start_line - 1), Math.min(lines, end_line));
  }
  return owner;
}

const span = (s: CodeSymbol): number => s.end_line - s.start_line;

function lineCount(text: string): number {
  let n = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n++;
  return n;
}
