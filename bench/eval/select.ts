/**
 * Pure case-selection rules used by mine.ts. Kept separate so they can be unit-tested and read in one place.
 */
import { posix } from 'node:path';

/** Git trailers and separator lines that are never part of the query text. */
const TRAILER = /^(co-authored-by|signed-off-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|cc|change-id|fixes|closes|resolves|refs?|see also)\s*:/i;

/** Body lines that only reference issues/PRs ("Closes #12", "Fixes owner/repo#3", "Relates to https://..."). */
const REFERENCE_LINE = /^(?:[-*]\s+)?(close[sd]?|fix(e[sd])?|resolve[sd]?|relates? to|refs?|see|part of|related)\b[\s:]*((#|gh-)\d+|https?:\/\/\S+|[\w.-]+\/[\w.-]+#\d+)[\s.,]*$/i;

/**
 * Lines that carry no prose: trailers, issue references, `---` separators, markdown headings and PR-template
 * checklist paragraphs ("- [x] I have ...").
 */
const CHECKLIST = /^[-*]\s*\[[ xX]\]/;

function isNoiseLine(l: string): boolean {
  return (
    TRAILER.test(l) ||
    REFERENCE_LINE.test(l) ||
    /^-{3,}$/.test(l) ||
    /^#{1,6}\s/.test(l) ||
    // pasted `git log` output inside squash messages
    /^(commit [0-9a-f]{7,40}|author:|date:|merge:)/i.test(l)
  );
}

/**
 * Subject + first paragraph of the body. HTML comments are removed first; trailer lines, issue-reference lines,
 * `---` separators and markdown headings are dropped, and a paragraph left empty by that does not count as the
 * first paragraph (so "## Summary\n\nText" yields "Text").
 */
export function extractMessage(raw: string): string {
  const text = raw.replace(/<!--[\s\S]*?-->/g, '').replace(/\r\n?/g, '\n');
  const lines = text.split('\n');
  const subject = (lines[0] ?? '').trim();
  // Split the body into raw paragraphs; a paragraph holding a PR-template checklist item is template text as a
  // whole (its items wrap onto continuation lines), otherwise only its noise lines are dropped.
  const paras: string[][] = [[]];
  for (const line of lines.slice(1)) {
    const l = line.trim();
    if (l === '') {
      if ((paras[paras.length - 1] ?? []).length) paras.push([]);
    } else paras[paras.length - 1]?.push(l);
  }
  const para = paras
    .filter((p) => !p.some((l) => CHECKLIST.test(l)))
    .map((p) => p.filter((l) => !isNoiseLine(l)))
    .find((p) => p.length > 0);
  return para ? `${subject}\n\n${para.join('\n')}` : subject;
}

/**
 * Message text as a query: URLs and PR/issue references removed, and a conventional-commit prefix reduced to its
 * scope ("fix(types): x" -> "types x", "feat: x" -> "x").
 */
export function cleanMessage(message: string): string {
  return message
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/\(\s*#\d+\s*\)/g, ' ')
    .replace(/(^|\s)(gh-|#)\d+\b/gi, ' ')
    .replace(/^[a-z]+(?:\(([^)]*)\))?!?:\s*/i, (_m, scope: string | undefined) => (scope ? `${scope} ` : ''))
    .replace(/[ \t]+/g, ' ')
    .trim();
}

export function wordCount(message: string): number {
  return (cleanMessage(message).match(/[A-Za-z][A-Za-z0-9_'.-]*/g) ?? []).length;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Names a path can be referred to by: the basename, the stem before the last dot, and the stem before the first dot. */
export function fileNames(path: string): string[] {
  const base = posix.basename(path);
  const out = new Set<string>([base]);
  const lastDot = base.lastIndexOf('.');
  if (lastDot > 0) out.add(base.slice(0, lastDot));
  const firstDot = base.indexOf('.');
  if (firstDot > 0) out.add(base.slice(0, firstDot));
  return [...out].filter((n) => n.length > 0);
}

/** The file of `paths` the message names (basename or stem, case-insensitive, whole word), if any. */
export function namedFile(message: string, paths: readonly string[]): string | undefined {
  for (const p of paths) {
    for (const n of fileNames(p)) {
      const re = new RegExp(`(?<![A-Za-z0-9_])${escapeRe(n)}(?![A-Za-z0-9_])`, 'i');
      if (re.test(message)) return p;
    }
  }
  return undefined;
}

/** Message-only skip rules, checked in this order. Returns the reason or undefined. */
const MESSAGE_RULES: ReadonlyArray<readonly [string, RegExp]> = [
  ['merge', /^merge\b/i],
  ['revert', /^(revert\b|[a-z]+(\([^)]*\))?!?:\s*revert\b)/i],
  ['version', /^(v?\d+\.\d+(\.\d+)?\S*|(chore|build)\(release\).*|release\b.*|releasing\b.*|prepare (for )?(the )?(next )?release.*|(bump|update|set) (the )?version.*|version \d.*)$/i],
  ['version', /\brelease v?\d+\.\d+/i],
  ['dependency', /^(build|chore|fix|ci)\(deps(-dev)?\)/i],
  ['dependency', /\b(bump(s|ed)?|dependabot|renovate)\b/i],
  ['dependency', /^(:arrow_up:|⬆️?)/],
  ['dependency', /^[^\n]*\b(update|upgrade|use|to)\s+[@\w./-]+@v?\d+(\.\d+)*\b/i],
  ['dependency', /^:arrow_up:|^\S*[\w-]+@\^?v?\d+\.\d+(\.\d+)?\s*(\(#\d+\))?$/],
  ['dependency', /\b(update|upgrade|updated|upgraded)\s+(all\s+)?(the\s+)?(dependenc(y|ies)|deps|dev-?deps|requirements|pinned)\b/i],
  ['typo', /\b(typos?|misspell(ing|ed|ings)?|spelling|grammar)\b/i],
  ['format', /^(style|lint)(\([^)]*\))?!?:/i],
  ['format', /\b(lint(s|ing|er)?|prettier|gofmt|goimports|ruff|isort|flake8|golangci(-lint)?|eslint|pre-commit|whitespace|reformat(ted|ting)?)\b/i],
  ['format', /\b(run|ran|apply|applied)\s+black\b/i],
  ['format', /\bformat(ted|ting)?\s+(the\s+)?(code|codebase|files?|sources?)\b/i],
  ['format', /\bcode\s+(style|formatting)\b/i],
];

export interface SelectionInput {
  /** Output of extractMessage. */
  message: string;
  changedSource: readonly string[];
  addedSource: readonly string[];
}

export const MAX_SOURCE_FILES = 8;
export const MIN_WORDS = 4;

/** Why a commit is not a case, or undefined when it is one. */
export function skipReason(c: SelectionInput): string | undefined {
  const subject = c.message.split('\n')[0] ?? '';
  for (const [reason, re] of MESSAGE_RULES) {
    if (reason === 'merge' || reason === 'revert' || reason === 'version') {
      if (re.test(subject.trim())) return reason;
    } else if (re.test(c.message)) return reason;
  }
  if (c.changedSource.length === 0) return 'no-source';
  if (c.changedSource.length + c.addedSource.length > MAX_SOURCE_FILES) return 'too-many-files';
  if (wordCount(c.message) < MIN_WORDS) return 'short-message';
  if (namedFile(c.message, [...c.changedSource, ...c.addedSource])) return 'names-file';
  return undefined;
}
