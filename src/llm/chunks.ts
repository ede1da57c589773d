/**
 * Long files (`file_analysis.long_files: chunks`): a file longer than `max_content_length` is split at the
 * start lines of its top-level symbols into chunks that each fit, up to `max_chunks_per_file`; each chunk is
 * profiled as its own part (packed like any file) and the answers are merged into one profile: summaries
 * joined, concepts, descriptions and relationships de-duplicated. A single symbol longer than the limit is
 * cut at a line boundary.
 */
import type { CodeSymbol } from '../index/types.js';
import type { ProfileAnswer } from './answers.js';
import { MAX_DESCRIBED_SYMBOLS } from './answers.js';

export interface Chunk {
  /** 1-based. */
  index: number;
  count: number;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  text: string;
  symbols: CodeSymbol[];
}

/** The chunks of `content`, each at most `limit` characters, at most `maxChunks` of them (the rest is left out). */
export function splitAtSymbols(content: string, symbols: readonly CodeSymbol[], limit: number, maxChunks: number): Chunk[] {
  const lines = content.split('\n');
  // Character offset where each line starts; offsets[lines.length] is the end.
  const offsets = [0];
  for (const line of lines) offsets.push((offsets[offsets.length - 1] as number) + line.length + 1);
  const boundaries = new Set<number>();
  for (const s of symbols) if (!s.ast_path.includes('-') && s.start_line > 1) boundaries.add(s.start_line - 1);
  const sorted = [...boundaries].sort((a, b) => a - b);
  const ranges: Array<[number, number]> = [];
  let start = 0;
  while (start < lines.length && ranges.length < maxChunks) {
    const fits = (end: number) => (offsets[end] as number) - (offsets[start] as number) <= limit;
    let end = lines.length;
    if (!fits(end)) {
      const symbolEnd = sorted.filter((b) => b > start && fits(b)).pop();
      if (symbolEnd !== undefined) end = symbolEnd;
      else {
        end = start + 1;
        while (end < lines.length && fits(end + 1)) end++;
      }
    }
    ranges.push([start, end]);
    start = end;
  }
  return ranges.map(([from, to], i) => ({
    index: i + 1,
    count: ranges.length,
    startLine: from + 1,
    endLine: to,
    text: lines.slice(from, to).join('\n').slice(0, limit),
    symbols: symbols.filter((s) => s.start_line >= from + 1 && s.start_line <= to),
  }));
}

/** One profile from the answers for a file's chunks, in chunk order. */
export function mergeChunkAnswers(answers: readonly ProfileAnswer[]): ProfileAnswer {
  const first = answers[0];
  if (!first) throw new Error('no chunk answers to merge');
  const relationships = new Map<string, ProfileAnswer['relationships'][number]>();
  for (const r of answers.flatMap((a) => a.relationships)) {
    const key = `${r.target_file_path}\0${r.relationship_type}`;
    const seen = relationships.get(key);
    if (!seen || r.confidence_score > seen.confidence_score) relationships.set(key, r);
  }
  const descriptions = new Map<string, string>();
  for (const d of answers.flatMap((a) => a.descriptions)) if (!descriptions.has(d.name)) descriptions.set(d.name, d.description);
  return {
    file_type: first.file_type,
    summary: answers.map((a) => a.summary.trim()).join(' '),
    key_concepts: [...new Set(answers.flatMap((a) => a.key_concepts))].slice(0, 12),
    descriptions: [...descriptions].slice(0, MAX_DESCRIBED_SYMBOLS * answers.length).map(([name, description]) => ({ name, description })),
    relationships: [...relationships.values()],
    rejected_relationships: answers.reduce((n, a) => n + a.rejected_relationships, 0),
  };
}
