/**
 * The written target structure: what `index --target-structure` reads as plain text. One line per planned
 * file, its full path first, so the relationships a model infers name the path exactly as written.
 */
import type { PlannedFile } from './turn.js';

export function renderTargetStructure(query: string, files: readonly PlannedFile[]): string {
  const request = query.replace(/\s+/g, ' ').trim();
  const width = Math.min(60, Math.max(...files.map((f) => f.path.length)));
  const lines = files.map((f) => {
    const drawsOn = f.draws_on.length ? ` (draws on: ${f.draws_on.join(', ')})` : '';
    return `${f.path.padEnd(width)}  # ${f.purpose}${drawsOn}`;
  });
  return [
    '# Target structure',
    '',
    `Request: ${request}`,
    '',
    'Files to write, one per line: path, then its purpose and the indexed code it draws on.',
    '',
    '```text',
    ...lines,
    '```',
    '',
  ].join('\n');
}
