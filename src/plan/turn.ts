/**
 * One model turn of a planning conversation: a question for the author, or a proposed structure. The request
 * schema and the checker come from one zod shape; an answer that is neither a usable question nor a usable
 * structure is reported as a string, which askModel retries like a 503.
 */
import path from 'node:path';
import { z } from 'zod';
import type { JsonSchema } from '../llm/provider.js';

export interface PlannedFile {
  path: string;
  purpose: string;
  draws_on: string[];
}

export type ModelTurn =
  | { kind: 'question'; message: string }
  | { kind: 'proposal'; message: string; files: PlannedFile[] };

const plannedFile = z.strictObject({
  path: z.string(),
  purpose: z.string(),
  draws_on: z.array(z.string()).max(8),
});

const turnShape = z.strictObject({
  kind: z.enum(['question', 'proposal']),
  message: z.string(),
  files: z.array(plannedFile).max(200),
});

export function turnRequestSchema(): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(turnShape, { target: 'draft-7' }) as JsonSchema;
  return schema;
}

const looseTurn = z.object({
  kind: z.string(),
  message: z.string().optional(),
  files: z.array(z.unknown()).optional(),
});

/**
 * The checked turn, or a string saying why it is unusable. `proposalOnly` is set on a turn that must end the
 * conversation (the turn limit, or an approval before any proposal).
 */
export function parseTurn(value: unknown, proposalOnly: boolean): ModelTurn | string {
  const loose = looseTurn.safeParse(value);
  if (!loose.success) return 'neither a question nor a structure: no kind';
  const { kind } = loose.data;
  const message = loose.data.message?.trim() ?? '';
  if (kind === 'question') {
    if (proposalOnly) return 'a question where a final structure was required';
    if (!message) return 'a question with no text';
    return { kind, message };
  }
  if (kind !== 'proposal') return `neither a question nor a structure: kind "${kind}"`;
  const files = new Map<string, PlannedFile>();
  for (const [i, raw] of (loose.data.files ?? []).entries()) {
    const parsed = plannedFile.loose().safeParse(raw);
    if (!parsed.success) return `files[${i}]: expected path, purpose and draws_on`;
    const filePath = projectPath(parsed.data.path);
    if (!filePath) return `files[${i}].path: "${parsed.data.path}" is not a relative file path inside the project`;
    const purpose = parsed.data.purpose.replace(/\s+/g, ' ').trim();
    if (!purpose) return `files[${i}].purpose: empty`;
    const drawsOn = [...new Set(parsed.data.draws_on.map((p) => p.trim()).filter(Boolean))];
    files.set(filePath, { path: filePath, purpose, draws_on: drawsOn });
  }
  if (files.size === 0) return 'a proposal with no files';
  return { kind, message, files: [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
}

/** A repository-relative POSIX path, or null for an absolute path, one that leaves the project, or a folder. */
export function projectPath(raw: string): string | null {
  const trimmed = raw.trim().replace(/\\/g, '/').replace(/^\.\//, '');
  if (!trimmed || trimmed.endsWith('/') || /[\n\r\t]/.test(trimmed) || path.posix.isAbsolute(trimmed) || /^[A-Za-z]:/.test(trimmed)) return null;
  const normal = path.posix.normalize(trimmed);
  if (normal === '.' || normal.startsWith('../') || normal === '..') return null;
  return normal;
}
