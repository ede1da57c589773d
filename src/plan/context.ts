/**
 * What the model reads besides the conversation: the author's `.md` and `.txt` documents (bounded and
 * secret-screened like file excerpts) and, when indexes are given, a compact overview of the indexed
 * repositories, so a proposal can name the existing code each planned file should draw on. Files that cannot
 * be used (binary, not UTF-8, too large, credential files) are skipped with a note, never sent.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { redactSecrets } from '../shared/secrets.js';
import { classifyFile } from '../extract/classify.js';
import { loadIndexes } from '../search/load.js';
import { UsageError } from '../shared/errors.js';

export interface ContextLimits {
  /** Bytes; a larger document is skipped. */
  maxFileSize: number;
  /** Characters of all documents together. */
  maxChars: number;
}

export interface PlanContext {
  text: string;
  /** Skipped, cut or empty inputs, for the author. */
  notes: string[];
  secretsRedacted: number;
}

export async function readInputDocuments(dir: string, limits: ContextLimits): Promise<PlanContext> {
  const info = await stat(dir).catch(() => null);
  if (!info) throw new UsageError(`inputs folder not found: ${dir}`);
  if (!info.isDirectory()) throw new UsageError(`--inputs is not a folder: ${dir}`);
  const names = await fg(['**/*.md', '**/*.txt'], { cwd: dir, dot: false, onlyFiles: true, followSymbolicLinks: false, caseSensitiveMatch: false, ignore: ['**/node_modules/**'] });
  names.sort();
  const notes: string[] = [];
  if (names.length === 0) {
    notes.push(`no .md or .txt files in ${dir}: planning from the query alone`);
    return { text: '', notes, secretsRedacted: 0 };
  }
  const parts: string[] = [];
  let budget = limits.maxChars;
  let secretsRedacted = 0;
  for (const name of names) {
    const absolute = path.join(dir, name);
    const size = (await stat(absolute)).size;
    const classified = await classifyFile({ path: name, absolute, size, mtimeMs: 0 }, { maxFileSize: limits.maxFileSize, skipGenerated: false });
    if (!classified.ok) {
      notes.push(`input ${name} skipped (${classified.reason.replace(/_/g, ' ')}: ${classified.detail})`);
      continue;
    }
    const content = classified.content.trim();
    if (!content) {
      notes.push(`input ${name} skipped (empty)`);
      continue;
    }
    if (budget <= 0) {
      notes.push(`input ${name} skipped (plan.max_input_chars of ${limits.maxChars} characters already used)`);
      continue;
    }
    const kept = content.length > budget ? content.slice(0, budget) : content;
    if (kept.length < content.length) notes.push(`input ${name} cut to its first ${kept.length} of ${content.length} characters (plan.max_input_chars)`);
    budget -= kept.length;
    const screened = redactSecrets(kept);
    secretsRedacted += screened.count;
    parts.push(`--- ${name} ---\n${screened.text}`);
  }
  const text = parts.length ? `\nThe author's documents:\n${parts.join('\n\n')}\n` : '';
  if (!parts.length) notes.push(`no usable .md or .txt files in ${dir}: planning from the query alone`);
  return { text, notes, secretsRedacted };
}

const OVERVIEW_FILES_PER_REPO = 80;
const OVERVIEW_SUMMARY_CHARS = 140;

/** Each indexed repository in a few lines, then its profiled files with one line of summary each, bounded. */
export async function indexesOverview(dir: string): Promise<PlanContext> {
  const { indexes, warnings } = await loadIndexes(dir);
  if (indexes.length === 0) throw new UsageError(`no index files found in ${dir}`, { hint: 'run `coderag index <repo>` first, or drop --indexes' });
  const notes = warnings.map((w) => `indexes: ${w}`);
  const blocks: string[] = [];
  for (const { index } of indexes) {
    const files = index.file_summaries.filter((f) => f.status === 'ok' && f.role !== 'test' && f.role !== 'generated');
    const lines = files.slice(0, OVERVIEW_FILES_PER_REPO).map((f) => {
      const summary = f.summary.replace(/\s+/g, ' ').trim();
      return `- ${index.repo_name}/${f.file_path}: ${summary.length > OVERVIEW_SUMMARY_CHARS ? `${summary.slice(0, OVERVIEW_SUMMARY_CHARS)}…` : summary || f.file_type}`;
    });
    if (files.length > OVERVIEW_FILES_PER_REPO) lines.push(`- … and ${files.length - OVERVIEW_FILES_PER_REPO} more files`);
    blocks.push(`Repository ${index.repo_name} (${index.total_files} files):\n${lines.join('\n')}`);
  }
  const screened = redactSecrets(blocks.join('\n\n'));
  return { text: `\nIndexed repositories (existing code to draw on; refer to files as repository/path):\n${screened.text}\n`, notes, secretsRedacted: screened.count };
}
