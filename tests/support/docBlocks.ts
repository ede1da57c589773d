/**
 * The fenced code blocks of the project's docs (README.md and docs/*.md), for the tests that run them.
 *
 * Convention: a block whose info string is `sh`, `shell` or `console` is run; one whose info string also says
 * `norun` (```` ```sh norun ````) is not: installing CodeRAG, and what needs a model. In a `console` block only the
 * lines starting with `$ ` are commands, the rest is their sample output.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface DocBlock {
  file: string;
  line: number;
  lang: string;
  norun: boolean;
  body: string;
}

/** README.md first, then docs/*.md in name order. */
export function docFiles(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((n) => n.endsWith('.md')).sort().map((n) => path.join('docs', n));
  return ['README.md', ...docs];
}

export function blocksOf(file: string): DocBlock[] {
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i] as string);
    if (!open || !open[1]) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] as string).startsWith('```'); i++) body.push(lines[i] as string);
    blocks.push({ file, line: start + 1, lang: open[1], norun: /\bnorun\b/.test(open[2] ?? ''), body: body.join('\n') });
  }
  return blocks;
}

export const SHELL_LANGS = new Set(['sh', 'shell', 'console', 'bash']);

/** The commands of a shell block: its lines (a trailing `\` joins the next), or a console block's `$ ` lines. */
export function commandsOf(block: DocBlock): string[] {
  const joined = block.body.replace(/\\\n\s*/g, ' ').split('\n');
  if (block.lang === 'console') return joined.filter((l) => l.startsWith('$ ')).map((l) => l.slice(2).trim());
  return joined.map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
}
