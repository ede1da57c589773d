/**
 * Test code inside a source file. Rust keeps a module's unit tests in the module's own file, in a module compiled
 * only for tests (`#[cfg(test)] mod tests { ... }`, by convention at the end). That module is Rust's form of the
 * test file other languages keep beside the source (`walk_test.go`, `test_walk.py`), so the words it holds are
 * not the source file's own: test data, fixture strings and assertions.
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { GrammarId } from './languages.js';

/** A span of the source text, as string offsets: `[start, end)`. */
export interface TextRange {
  start: number;
  end: number;
}

/** `#[cfg(test)]`, also inside `all(...)`: `#[cfg(all(test, feature = "x"))]`. */
const CFG_TEST = /^#\[\s*cfg\s*\(\s*(?:all\s*\(\s*)?test\s*[,)]/;

/** The spans of a file's inline test modules, attributes included, in source order; none outside Rust. */
export function inlineTestModules(tree: Tree, grammar: GrammarId): TextRange[] {
  if (grammar !== 'rust') return [];
  const out: TextRange[] = [];
  collect(tree.rootNode, out);
  return out;
}

function collect(parent: Node, out: TextRange[]): void {
  const items = parent.namedChildren.filter((n): n is Node => n !== null);
  items.forEach((item, i) => {
    if (item.type !== 'mod_item') return;
    let first = i;
    while (first > 0 && items[first - 1]?.type === 'attribute_item') first--;
    const attributes = items.slice(first, i);
    if (attributes.some((a) => CFG_TEST.test(a.text))) {
      out.push({ start: (items[first] as Node).startIndex, end: item.endIndex });
      return;
    }
    const body = item.childForFieldName('body');
    if (body) collect(body, out);
  });
}

/** The text with the ranges left out (each replaced by a line break, so words on either side stay apart). */
export function withoutRanges(text: string, ranges: readonly TextRange[]): string {
  if (ranges.length === 0) return text;
  const parts: string[] = [];
  let at = 0;
  for (const { start, end } of ranges) {
    parts.push(text.slice(at, start));
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join('\n');
}
