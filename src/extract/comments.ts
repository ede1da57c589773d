/**
 * What a file's comments say: the doc comment above a declaration, the file's leading doc, and, when it has
 * none, its main definition's doc (licence headers, tool directives, boilerplate and commented-out code are not).
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
  // `@author … */` closes a Javadoc: a tag inside a comment, not an annotation.
  if (trimmed.endsWith('*/')) return -1;
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

/** JSDoc's file-level tags, whose text is the file's doc: `@file Parses…`, `@fileoverview …`, `@module name …`. */
const FILE_TAG = /^@(?:file|fileoverview|overview)\b\s*|^@module(?:\s+[\w./@-]+)?\s*/i;
/** Where a doc's tag section begins (`@param`, `@returns`, `@private`): the prose ends there. */
const TAG_SECTION = /\s@[a-z]+\b[\s\S]*$/i;

/** Strips comment markers and returns the first paragraph, shortened. */
export function cleanDoc(raw: string): string | undefined {
  const text = raw
    .replace(/^\s*(\/\*\*?|\*\/|'''|"""|[rRuUbB]?"""|[rRuUbB]?''')/gm, '')
    .replace(/(\*\/|'''|""")\s*$/gm, '')
    .split('\n')
    .map((line) => line.replace(/^\s*(\/\/[/!]?|#+!?|\*|--|;+)\s?/, '').trimEnd())
    .join('\n')
    .replace(/<\/?(summary|remarks|para|c|code|see[^>]*|param[^>]*|returns)>/g, '')
    .trim()
    .replace(FILE_TAG, '');
  const paragraph = text.split(/\n\s*\n/)[0]?.replace(/\s+/g, ' ').replace(TAG_SECTION, '').trim();
  if (!paragraph || /^(@|eslint|prettier|tslint|istanbul|jshint|noqa|pylint|pragma|type:|-\*-)/i.test(paragraph) || NOT_PROSE.test(paragraph)) return undefined;
  return paragraph.length > DOC_MAX ? `${paragraph.slice(0, DOC_MAX - 1).trimEnd()}…` : paragraph;
}

/** Comments that speak to tools or lawyers, not readers. */
const NOT_PROSE = /copyright|licen[cs]e[ds]?\b|spdx|pragma\b|all rights reserved|@flow|@preserve|eslint|jshint|jscs:|tslint|prettier-ignore|istanbul|c8 ignore|@ts-|^\W*globals?\s+\w|sourceMappingURL|^\s*#!|-\*-|noqa|pylint:|type:\s*ignore|go:build|\+build|go:generate|#region|#endregion|nolint|rubocop|frozen_string_literal|phpcs|@codingStandards|webpackChunkName|webpackIgnore|@vite-ignore|^\W*(?:todo|fixme|xxx|hack)\b|\bgenerated (?:from|by)\b|auto-?generated|do not edit/i;

/**
 * Header comments several files share word for word because a template put them there, not because they say what
 * the file is: express's and koa's "Module dependencies." and "Expose `X`.", "Module exports."
 */
const BOILERPLATE = /^(?:module (?:dependencies|exports|variables)|expose\b|exports?\b|imports?\b|dependencies\b|constants?\b|helpers?\b|private\b|public\b|globals?\b|utils?\b|@private)\W*(?:\S+\W*)?$/i;

/** Statements a file may open with before its own doc: `'use strict'`, `<?php`, a shebang, Go's `//go:build`. */
const PREAMBLE_NODES = new Set(['php_tag', 'hash_bang_line', 'preproc_ifdef']);

/**
 * The file's own doc: its leading comment block or Python module docstring, after a shebang, an encoding line,
 * `'use strict'`, licence and generated banners and tool directives, which never are the doc; Rust's `//!`
 * inner docs, JSDoc's `@file` / `@module`. Go's package comment stands above `package`; elsewhere a comment
 * below `package` (Java, C#, PHP namespaces) still leads the file. Template boilerplate ("Module
 * dependencies.") and commented-out code are skipped.
 */
export function moduleDoc(tree: Tree, grammar: GrammarId): FileHeader {
  const root = tree.rootNode;
  const blocks: string[] = [];
  // Each line of a `//` licence is a node of its own: the bound is on what comes before the code, not on nodes.
  for (let i = 0; i < root.namedChildCount && i < 400; i++) {
    const node = root.namedChild(i);
    if (!node) break;
    if (node.type === 'expression_statement' && node.namedChild(0)?.type === 'string') {
      if (grammar === 'python') {
        if (blocks.length === 0 || blocks.every((b) => !isHeaderDoc(b))) {
          const docstring = node.namedChild(0)?.text ?? '';
          const doc = cleanHeader(docstring);
          return doc ? { doc } : { title: headerTitle(docstring) ?? titleOf(blocks) };
        }
        break;
      }
      if (/^['"]use (?:strict|client|server)['"]$/.test(node.namedChild(0)?.text ?? '')) continue;
    }
    if (node.type.includes('comment')) {
      blocks.push(node.text);
      continue;
    }
    if (PREAMBLE_NODES.has(node.type)) continue;
    if (grammar !== 'go' && ['package_clause', 'package_declaration', 'namespace_declaration'].includes(node.type) && blocks.every((b) => !isHeaderDoc(b))) continue;
    break;
  }
  // Consecutive line comments are one block; a blank line or a block comment starts the next.
  const split = splitBlocks(blocks, root.text);
  for (const block of split) {
    const doc = cleanHeader(block);
    if (doc) return { doc };
  }
  return { title: titleOf(split) };
}

/** What a file's leading comments say of it: its doc, or failing one, a title too short to be its summary. */
export interface FileHeader {
  doc?: string;
  /** `// Bulgarian [bg]`: a name under three words, which a composed summary opens with. */
  title?: string;
}

const TITLE_MAX = 60;

function titleOf(blocks: readonly string[]): string | undefined {
  for (const block of blocks) {
    const title = headerTitle(block);
    if (title) return title;
  }
  return undefined;
}

/** A header block that names the file in a word or two (`// Bulgarian [bg]`), or undefined. */
function headerTitle(block: string): string | undefined {
  const text = headerText(block);
  // A `key: value` or `key=value` line is a setting (`coding: utf-8`, `vim: ts=2`), not a name.
  if (!text || text.length > TITLE_MAX || isCode(text) || /[=;{}<>]|:\s*\S/.test(text)) return undefined;
  return /[A-Za-z]{3}/.test(text) ? text.replace(/[.:;,]+$/, '') : undefined;
}

function isHeaderDoc(block: string): boolean {
  return cleanHeader(block) !== undefined;
}

/** A header block's doc: its text when that reads as prose. */
function cleanHeader(block: string): string | undefined {
  const doc = headerText(block);
  return doc && doc.length > 12 && isProse(doc) ? doc : undefined;
}

/** A header block's text, or undefined when it is a licence, a banner, a directive or boilerplate. */
function headerText(block: string): string | undefined {
  if (DIRECTIVE.test(block)) return undefined;
  const firstParagraph = block.split(/\n\s*(?:\*|\/\/|#)?\s*\n/)[0] ?? block;
  if (NOT_PROSE.test(firstParagraph)) return undefined;
  const text = cleanDoc(block);
  return text && !BOILERPLATE.test(text) ? text : undefined;
}

/** Whether a comment's text is commented-out code. */
function isCode(text: string): boolean {
  return (
    /[;{}]$|^(if|for|while|var|let|const|return|import|export|function|def|class|public|private|static)\b|\w\(.*\)\s*;?$|=>|^[\w.]+\s*=\s*\S/.test(text) ||
    /\b(?:export|import)\s+(?:const|let|function|class|default|type|\{|\*)/.test(text)
  );
}

/** A line comment that speaks to a tool: `//go:build`, `# noqa`, `// eslint-disable`, `// @ts-check`. */
const DIRECTIVE = /^\s*(?:\/\/|#)\s*(?:go:|\+build|nolint|noqa|type:|pylint:|eslint|prettier|@ts-)/;

function lineMarker(text: string): string {
  return /^(?:\/\/[/!]?|#|--)/.exec(text)?.[0] ?? '';
}

/** The comment texts as blocks: line comments on consecutive lines join; anything else stands alone. */
function splitBlocks(comments: string[], source: string): string[] {
  const blocks: string[] = [];
  let searchFrom = 0;
  let lastEnd = -2;
  for (const text of comments) {
    const at = source.indexOf(text, searchFrom);
    const gap = at >= 0 ? source.slice(lastEnd, at) : '\n\n';
    // `//!` after a `//` licence line starts Rust's inner doc: only lines of one marker join.
    const marker = lineMarker(text);
    const joins = blocks.length > 0 && marker !== '' && marker === lineMarker(blocks[blocks.length - 1] ?? '') && lastEnd >= 0 && /^[ \t]*\n[ \t]*$/.test(gap);
    if (joins) blocks[blocks.length - 1] += `\n${text}`;
    else blocks.push(text);
    if (at >= 0) {
      searchFrom = at + text.length;
      lastEnd = searchFrom;
    }
  }
  return blocks;
}

/**
 * The doc comment of a file's main definition, for a file with no doc of its own: the top-level definition named
 * like the file (`request.js` and `Request`, `DataNode.java` and `DataNode`), else the file's only class-like
 * definition, else its only export. Never the doc of a helper that happens to come first, nor an inner comment.
 */
export function mainDefinitionDoc(filePath: string, symbols: ReadonlyArray<{ kind: string; name: string; ast_path: string; doc?: string }>, exports: readonly string[]): string | undefined {
  const topLevel = symbols.filter((s) => !s.ast_path.includes('-'));
  const base = (filePath.split('/').pop() ?? '').replace(/\..*$/, '');
  const key = (name: string): string => name.replace(/[-_.]/g, '').toLowerCase();
  const classLike = topLevel.filter((s) => ['class', 'struct', 'trait', 'interface', 'enum'].includes(s.kind));
  const exported = topLevel.filter((s) => exports.includes(s.name));
  const candidates = [
    topLevel.find((s) => key(s.name) === key(base) || `${key(s.name)}s` === key(base)),
    classLike.length === 1 ? classLike[0] : undefined,
    exported.length === 1 ? exported[0] : undefined,
  ];
  for (const symbol of candidates) {
    const doc = symbol?.doc;
    if (doc && !BOILERPLATE.test(doc) && isProse(doc)) return doc;
  }
  return undefined;
}

/** Whether a doc reads as prose: at least three words, not a rule of dashes, not commented-out code. */
function isProse(text: string): boolean {
  if (text.length < 16 || /^[-=*#~_/\\ ]+$/.test(text) || isCode(text)) return false;
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
