/**
 * RepoIndex (de)serialisation. Writing is atomic (a temp file in the same folder, then rename), so a reader,
 * or a crash, never sees half an index. Reading validates the shape DeepCode's readers depend on, so a corrupt
 * file is named and skipped instead of breaking every query.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RepoIndex } from './types.js';

export interface JsonStyle {
  indent: number;
  ensureAscii: boolean;
}

export function toJson(value: unknown, style: JsonStyle): string {
  const text = JSON.stringify(value, null, style.indent);
  return style.ensureAscii ? escapeNonAscii(text) : text;
}

/** `output.ensure_ascii`: every character past ASCII as a \u escape, as Python's json.dumps writes it. */
export function escapeNonAscii(json: string): string {
  return json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export async function writeFileAtomic(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, content, 'utf8');
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Why a parsed JSON value is not a RepoIndex, or null when it is one. */
export function repoIndexProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const index = value as Record<string, unknown>;
  if (!Array.isArray(index.file_summaries)) return 'no file_summaries array';
  if (index.relationships !== undefined && !Array.isArray(index.relationships)) return 'relationships is not an array';
  for (const summary of index.file_summaries) {
    if (typeof summary !== 'object' || summary === null || typeof (summary as { file_path?: unknown }).file_path !== 'string') {
      return 'a file summary has no file_path';
    }
  }
  return null;
}

/** Fills the fields older or foreign (DeepCode-written) indexes lack, so search code can rely on them. */
export function normalizeRepoIndex(raw: Record<string, unknown>, fallbackName: string): RepoIndex {
  const index = raw as unknown as RepoIndex;
  const summaries = index.file_summaries.map((s) => ({
    ...s,
    file_type: typeof s.file_type === 'string' ? s.file_type : '',
    main_functions: stringList(s.main_functions),
    key_concepts: stringList(s.key_concepts),
    dependencies: stringList(s.dependencies),
    summary: typeof s.summary === 'string' ? s.summary : '',
    lines_of_code: typeof s.lines_of_code === 'number' ? s.lines_of_code : 0,
    symbols: Array.isArray(s.symbols) ? s.symbols : [],
    local_imports: stringList(s.local_imports),
    status: s.status ?? 'ok',
  }));
  return {
    ...index,
    repo_name: typeof index.repo_name === 'string' && index.repo_name ? index.repo_name : fallbackName,
    total_files: typeof index.total_files === 'number' ? index.total_files : summaries.length,
    file_summaries: summaries,
    relationships: Array.isArray(index.relationships) ? index.relationships : [],
  };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
