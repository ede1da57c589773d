/**
 * What a file's comments say: the doc comment above a declaration, the file's leading doc, and, when it has
 * none, its first comment written as prose (licence headers, tool pragmas and commented-out code are not).
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { GrammarId } from './languages.js';

const DOC_MAX = 240;

/** What may stand between a line's indentation and a definition: `export default`, `const`, `pub(crate)`… */
const DECLARATION_PREFIX = /^\s*(?:[A-Za-z_]+(?:\([^)]*\))?\s+)*$/;
/** Lines between a doc comment and its definition: decorators, annotations, attributes, templates. */
const ATTRIBUTE_LINE = /^(?:@|#\[|\[|template\b)/;
const LINE_COMMENT: Partial<Record<GrammarId, RegExp>> = { python: /^\s*#/, ruby: /^\s*#/, php: /^\s*(?:\/\/|#)/ };
const C_STYLE_LINE_COMMENT = /^\s*\/\//;

/** Blank lines a doc comment may stand from its definition (commander's JSDoc leaves one). */
const MAX_BLANK_LINES = 2;
/** A comment that is a doc by its marker, so it keeps its definition across blank lines: `/**`, `/*!`, `///`, `//!`. */
const DOC_BLOCK_OPEN = /^\/\*[*!](?!\/)/;
const DOC_LINE_COMMENT = /^\s*\/\/[/!]/;
/** How far back a multi-line attribute's opening line is looked for. */
const ATTRIBUTE_MAX_CHARS = 4000;

/**
 * The comment block right above a definition (past its decorators, annotations and attributes, one line or
 * several), or a Python docstring. A doc-marked comment (`/** … *\/`, `///`) keeps its definition across up to
 * two blank lines, as commander's JSDoc has it; a plain comment must touch it. Read from the text rather than
 * the tree: a definition's neighbours cost a tree walk each, and there is one per symbol.
 */
export function docFor(node: Node, grammar: GrammarId, source: string, startIndex: number = node.startIndex): string | undefined {
  if (grammar === 'python') {
    const body = node.childForFieldName('body');
    const first = body?.namedChild(0);
    if (first?.type === 'expression_statement' && first.namedChild(0)?.type === 'string') {
      return cleanDoc(first.namedChild(0)?.text ?? '');
    }
  }
  const lineStart = source.lastIndexOf('\n', startIndex - 1) + 1;
  if (!DECLARATION_PREFIX.test(source.slice(lineStart, startIndex))) return undefined;
  const lineComment = LINE_COMMENT[grammar] ?? C_STYLE_LINE_COMMENT;
  const lines: string[] = [];
  let blanks = 0;
  let end = lineStart - 1;
  while (end > 0) {
    const start = source.lastIndexOf('\n', end - 1) + 1;
    const line = source.slice(start, end);
    const trimmed = line.trim();
    const attribute = lines.length ? -1 : attributeStart(source, start, trimmed);
    if (attribute >= 0) {
      end = attribute - 1;
    } else if (!lines.length && trimmed === '') {
      if (++blanks > MAX_BLANK_LINES) break;
      end = start - 1;
    } else if (trimmed.endsWith('*/')) {
      const open = source.lastIndexOf('/*', start + line.lastIndexOf('*/'));
      const openLineStart = source.lastIndexOf('\n', open - 1) + 1;
      if (open < 0 || source.slice(openLineStart, open).trim() !== '') break;
      // Across a blank line only a doc-marked block, and not the file's own leading doc.
      if (blanks && (!DOC_BLOCK_OPEN.test(source.slice(open, open + 3)) || isFileStart(source, openLineStart))) break;
      lines.unshift(source.slice(open, end));
      end = openLineStart - 1;
    } else if (lineComment.test(line) && (!blanks || DOC_LINE_COMMENT.test(line))) {
      lines.unshift(line);
      end = start - 1;
    } else {
      break;
    }
  }
  return lines.length ? cleanDoc(lines.join('\n')) : undefined;
}

/**
 * Where the attribute ending on this line starts (`@decorator`, `#[derive(…)]`, `[Attr]`, `template <…>`,
 * across lines when its brackets are), or -1 when the line ends no attribute.
 */
function attributeStart(source: string, lineStart: number, trimmed: string): number {
  if (ATTRIBUTE_LINE.test(trimmed)) return lineStart;
  if (!/[)\]}]$/.test(trimmed)) return -1;
  let depth = 0;
  const stop = Math.max(0, lineStart - ATTRIBUTE_MAX_CHARS);
  for (let at = lineStart + source.slice(lineStart).search(/[)\]}]\s*(?:\n|$)/); at >= stop; at--) {
    const char = source[at];
    if (char === ')' || char === ']' || char === '}') depth++;
    else if (char === '(' || char === '[' || char === '{') depth--;
    if (depth > 0) continue;
    const openLine = source.lastIndexOf('\n', at - 1) + 1;
    return openLine < lineStart && ATTRIBUTE_LINE.test(source.slice(openLine, at + 1).trim()) ? openLine : -1;
  }
  return -1;
}

/** Whether only a shebang line and blank space come before this offset: the file's leading comment. */
function isFileStart(source: string, offset: number): boolean {
  return source.slice(0, offset).replace(/^#!.*/, '').trim() === '';
}

/** Strips comment markers and returns the first paragraph, shortened. */
export function cleanDoc(raw: string): string | undefined {
  const text = raw
    .replace(/^\s*(\/\*\*?|\*\/|'''|"""|[rRuUbB]?"""|[rRuUbB]?''')/gm, '')
    .replace(/(\*\/|'''|""")\s*$/gm, '')
    .split('\n')
    .map((line) => line.replace(/^\s*(\/\/[/!]?|#+!?|\*|--|;+)\s?/, '').trimEnd())
    .join('\n')
    .replace(/<\/?(summary|remarks|para|c|code|see[^>]*|param[^>]*|returns)>/g, '')
    .trim();
  const paragraph = text.split(/\n\s*\n/)[0]?.replace(/\s+/g, ' ').trim();
  if (!paragraph || /^(@|eslint|prettier|tslint|istanbul|jshint|noqa|pylint|type:|-\*-)/i.test(paragraph)) return undefined;
  return paragraph.length > DOC_MAX ? `${paragraph.slice(0, DOC_MAX - 1).trimEnd()}…` : paragraph;
}

/** Comments that speak to tools or lawyers, not readers. */
const NOT_PROSE = /copyright|licen[cs]e|spdx|all rights reserved|@flow|@preserve|eslint|jshint|jscs:|tslint|prettier-ignore|istanbul|c8 ignore|@ts-|^\W*globals?\s+\w|sourceMappingURL|^\s*#!|-\*-|noqa|pylint:|type:\s*ignore|go:build|\+build|go:generate|#region|#endregion|nolint|rubocop|frozen_string_literal|phpcs|@codingStandards|webpackChunkName|webpackIgnore|@vite-ignore|^\W*(?:todo|fixme|xxx|hack)\b|\bgenerated (?:from|by)\b|auto-?generated|do not edit/i;

/**
 * The file's own doc: a leading comment block (licence headers and shebangs skipped), a Python module
 * docstring, or Rust's `//!` inner docs.
 */
export function moduleDoc(tree: Tree, grammar: GrammarId): string | undefined {
  const root = tree.rootNode;
  const blocks: string[] = [];
  for (let i = 0; i < root.namedChildCount && i < 8; i++) {
    const node = root.namedChild(i);
    if (!node) break;
    if (grammar === 'python' && node.type === 'expression_statement' && node.namedChild(0)?.type === 'string') {
      return cleanDoc(node.namedChild(0)?.text ?? '');
    }
    if (node.type.includes('comment')) {
      blocks.push(node.text);
      continue;
    }
    if (['package_clause', 'package_declaration', 'namespace_declaration', 'php_tag', 'hash_bang_line', 'preproc_ifdef'].includes(node.type) && blocks.length === 0) {
      continue;
    }
    break;
  }
  const grouped = blocks.join('\n').split(/\n(?=\s*\/\*)/);
  for (const block of grouped) {
    if (NOT_PROSE.test(block)) continue;
    const doc = cleanDoc(block);
    if (doc && doc.length > 12) return doc;
  }
  return undefined;
}

/** How a comment starts, by grammar: `#` in Python and Ruby (and PHP), `//` and `/*` elsewhere. */
const COMMENT_START: Partial<Record<GrammarId, RegExp>> = { python: /#/g, ruby: /#/g, php: /\/\/|\/\*|#/g };
const C_STYLE_COMMENT = /\/\/|\/\*/g;
/** Comment markers looked up before giving up; most are inside strings (URLs) when they are not comments. */
const MAX_LOOKUPS = 60;

/**
 * The file's first comment that reads as prose: at least three words, not a licence or a tool's pragma, not
 * commented-out code, not the doc of a member (rows in `memberRows`: a method's doc speaks for the method,
 * not the file). Comments on consecutive lines form one block. Comment markers are found in the text and
 * checked against the tree (a `//` in a URL string is not a comment), which costs far less than walking
 * every node for the comments.
 */
export function firstProseComment(tree: Tree, grammar: GrammarId, source: string, memberRows: ReadonlySet<number> = new Set()): string | undefined {
  const pattern = new RegExp((COMMENT_START[grammar] ?? C_STYLE_COMMENT).source, 'g');
  const root = tree.rootNode;
  let lookups = 0;
  for (let match = pattern.exec(source); match && lookups < MAX_LOOKUPS; match = pattern.exec(source)) {
    lookups++;
    const first = root.descendantForIndex(match.index, match.index + match[0].length);
    if (!first || !first.type.includes('comment') || first.startIndex !== match.index) continue;
    const block = [first.text];
    let last = first;
    for (let next = first.nextNamedSibling; next?.type.includes('comment') && next.startPosition.row === last.endPosition.row + 1; next = next.nextNamedSibling) {
      block.push(next.text);
      last = next;
    }
    pattern.lastIndex = Math.max(pattern.lastIndex, last.endIndex);
    const text = block.join('\n');
    if (NOT_PROSE.test(text) || memberRows.has(last.endPosition.row + 1)) continue;
    const doc = cleanDoc(text);
    if (doc && isProse(doc)) return doc;
  }
  return undefined;
}

function isProse(text: string): boolean {
  if (text.length < 16 || /^[-=*#~_/\\ ]+$/.test(text)) return false;
  if (/[;{}]$|^(if|for|while|var|let|const|return|import|export|function|def|class|public|private|static)\b|\w\(.*\)\s*;?$|=>|^[\w.]+\s*=\s*\S/.test(text)) return false;
  if (/\b(?:export|import)\s+(?:const|let|function|class|default|type|\{|\*)/.test(text)) return false;
  return text.split(/\s+/).filter((word) => /[A-Za-z]{2,}/.test(word)).length >= 3;
}

/**
 * Whether the text at `index` is code: not in a comment and not in a string literal. The smallest node there is
 * then the comment, or the string or its text (`string_fragment`, `string_content`), as the grammars here name
 * them; Ruby's heredoc bodies, JSX text and regular expressions are named otherwise and count as code. One
 * look-up: asking for the node's parent too doubled the cost and changed no answer.
 */
export function isCodeAt(tree: Tree, index: number): boolean {
  // A span of one character: a node ending where the word starts (`/* c */require(…)`) does not hold it.
  const type = tree.rootNode.descendantForIndex(index, index + 1)?.type ?? '';
  return !(type.includes('comment') || type.includes('string'));
}
