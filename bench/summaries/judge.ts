/**
 * The rule a file's offline summary is judged by, stated before the summaries were changed (README.md). A pure
 * function of the file's text, its stored profile and the summaries of its repository's other files.
 */

export type Verdict = 'right' | 'directive' | 'licence' | 'code' | 'short' | 'shared' | 'inner' | 'missed-header';

export interface JudgedFile {
  file_path: string;
  summary: string;
  summary_source: string;
  /** The file's top-level definitions (no enclosing definition), in file order. */
  topLevel: Array<{ name: string; start_line: number }>;
}

const DIRECTIVE = /pragma|noqa|eslint|type:\s*ignore|istanbul|@ts-|nolint|prettier-ignore|pylint:|c8 ignore|go:build|\+build|go:generate|jshint|tslint|rubocop|#region/i;
const LICENCE = /copyright|\blicen[cs]ed?\b|spdx|all rights reserved|generated (?:by|from)|do not edit/i;
const WORD = /[A-Za-z]{2,}/;

function looksLikeCode(text: string): boolean {
  if (/[;{}]$|=>|\w\([^)]*\)\s*[;,]?$|^\s*[\w.]+\s*=\s*\S|^\s*[\w.]+\s*:\s*[\w.]+\(|^(if|for|while|var|let|const|return|import|export|function|def|class|public|private|static|from)\b/.test(text)) return true;
  return /\b(?:export|import)\s+(?:const|let|function|class|default|type|\{|\*)/.test(text);
}

const words = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/** Whether `summary` starts with the words that open `doc` (comment markers and spacing aside). */
export function comesFrom(summary: string, doc: string): boolean {
  const a = words(summary).slice(0, 4);
  const b = words(doc).slice(0, 4);
  return a.length > 0 && a.length <= b.length && a.every((w, i) => w === b[i]);
}

/** Lines a file may open with before its header doc or first code: shebang, encoding, `'use strict'`, `<?php`. */
const PREAMBLE = /^(?:#!.*|#.*coding[:=].*|['"]use strict['"];?|<\?php|\s*)$/;
const LINE_COMMENT = /^\s*(?:\/\/[/!]?|#)\s?/;

/**
 * The file's header doc as a reader sees it: the first comment block or docstring before any code that is not a
 * licence, a tool directive or commented-out code, with at least three words; undefined when the file has none.
 */
export function headerDoc(content: string, language: string): string | undefined {
  const lines = content.split('\n');
  let at = 0;
  const blocks: string[] = [];
  while (at < lines.length) {
    const line = lines[at] ?? '';
    const trimmed = line.trim();
    if (PREAMBLE.test(trimmed) && !trimmed.startsWith('#') ) {
      at++;
      continue;
    }
    if (/^#!|^#.*coding[:=]/.test(trimmed)) {
      at++;
      continue;
    }
    if (trimmed.startsWith('/*')) {
      const block: string[] = [];
      while (at < lines.length) {
        const l = lines[at] ?? '';
        block.push(l);
        at++;
        if (l.includes('*/')) break;
      }
      blocks.push(block.join('\n').replace(/^\s*\/\*+!?|\*+\/\s*$|^\s*\*\s?/gm, ''));
      continue;
    }
    if ((language === 'Python' ? /^#/ : /^\/\//).test(trimmed)) {
      const block: string[] = [];
      while (at < lines.length && LINE_COMMENT.test(lines[at] ?? '') && (lines[at] ?? '').trim() !== '') {
        block.push((lines[at] ?? '').replace(LINE_COMMENT, ''));
        at++;
      }
      blocks.push(block.join('\n'));
      continue;
    }
    if (language === 'Python' && /^[rRuUbB]?("|')/.test(trimmed)) {
      const docstring = /^\s*[rRuUbB]?("""|'''|"|')([\s\S]*?)\1/.exec(lines.slice(at).join('\n'));
      if (docstring) blocks.push(docstring[2] ?? '');
      break;
    }
    break;
  }
  for (const block of blocks) {
    // JSDoc's `@file` / `@module name` tag opens the file's doc; the text after it is the doc.
    const paragraph = (block.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim()).find((p) => p !== '') ?? '').replace(/^@(?:file|fileoverview|overview)\b\s*|^@module(?:\s+[\w./@-]+)?\s*/i, '');
    if (!paragraph || DIRECTIVE.test(paragraph) || LICENCE.test(paragraph) || looksLikeCode(paragraph)) continue;
    if (paragraph.split(/\s+/).filter((w) => WORD.test(w)).length < 3) continue;
    return paragraph;
  }
  return undefined;
}

const stemOf = (filePath: string): string => (filePath.split('/').pop() ?? '').replace(/\..*$/, '').replace(/[-_]/g, '').toLowerCase();

/**
 * Right unless: a tool directive; a licence or generated banner; code; under three words; a non-composed summary
 * three or more files of the repository share; a comment that is neither the file's header nor the doc of its
 * main definition (the first top-level one, or the one named like the file); or anything but the header when
 * the file has a header doc.
 */
export function judge(file: JudgedFile, content: string, language: string, sharedCount: number): Verdict {
  const { summary } = file;
  const composed = file.summary_source === 'composed';
  if (!composed) {
    if (DIRECTIVE.test(summary)) return 'directive';
    if (LICENCE.test(summary)) return 'licence';
    if (looksLikeCode(summary)) return 'code';
    if (summary.split(/\s+/).filter((w) => WORD.test(w)).length < 3) return 'short';
    if (sharedCount >= 3) return 'shared';
  }
  const header = headerDoc(content, language);
  if (header) return comesFrom(summary, header) ? 'right' : 'missed-header';
  if (composed) return 'right';
  const stem = stemOf(file.file_path);
  const main = file.topLevel.filter((s, i) => i === 0 || s.name.replace(/_/g, '').toLowerCase() === stem);
  return main.some((s) => { const doc = docOf(content, s.start_line, language); return doc !== undefined && comesFrom(summary, doc); }) ? 'right' : 'inner';
}

/**
 * The doc comment of the definition starting on `line` (1-based), read from the text: a Python docstring under
 * it, or the comment block right above it past annotations, attributes and up to two blank lines.
 */
export function docOf(content: string, line: number, language: string): string | undefined {
  const lines = content.split('\n');
  if (language === 'Python') {
    let at = line - 1;
    while (at < lines.length && !/:\s*(#.*)?$/.test(lines[at] ?? '')) at++;
    const rest = lines.slice(at + 1).join('\n');
    return /^\s*[rRuUbB]?("""|'''|"|')([\s\S]*?)\1/.exec(rest)?.[2];
  }
  let at = line - 2;
  let blanks = 0;
  while (at >= 0) {
    const trimmed = (lines[at] ?? '').trim();
    if (trimmed === '' && ++blanks <= 2) at--;
    else if (/^(@|#\[)/.test(trimmed) && !trimmed.endsWith('*/')) at--;
    else break;
  }
  const block: string[] = [];
  const last = (lines[at] ?? '').trim();
  if (last.endsWith('*/')) {
    while (at >= 0) {
      block.unshift(lines[at] ?? '');
      if ((lines[at] ?? '').includes('/*')) break;
      at--;
    }
  } else {
    while (at >= 0 && /^\s*\/\//.test(lines[at] ?? '')) block.unshift(lines[at--] ?? '');
  }
  const text = block.join('\n').replace(/^\s*\/\*+!?|\*+\/\s*$|^\s*\*\s?|^\s*\/\/[/!]?/gm, '').trim();
  return text || undefined;
}
