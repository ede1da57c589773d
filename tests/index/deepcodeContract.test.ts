/**
 * The index is a public contract: DeepCode's `code_reference_indexer.py` reads every key below with
 * `.get(key, default)` and then joins, concatenates, formats and sorts the values, so a key that is present
 * but null, or of another type, breaks the whole call for every index in the folder. This pins the types
 * its reader needs, on an index CodeRAG writes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../support/cli.js';
import { makeTempDir } from '../support/tempRepo.js';

const strings = z.array(z.string());
const deepcodeFileSummary = z.object({
  file_path: z.string().min(1),
  file_type: z.string(),
  main_functions: strings,
  key_concepts: strings,
  dependencies: strings,
  summary: z.string(),
  lines_of_code: z.number().int().nonnegative(),
  last_modified: z.string(),
});
const deepcodeRelationship = z.object({
  repo_file_path: z.string(),
  target_file_path: z.string().min(1),
  relationship_type: z.string(),
  confidence_score: z.number(),
  helpful_aspects: strings,
  potential_contributions: strings,
  usage_suggestions: z.string(),
});
const deepcodeIndex = z.object({
  repo_name: z.string().min(1),
  total_files: z.number().int(),
  file_summaries: z.array(deepcodeFileSummary),
  relationships: z.array(deepcodeRelationship),
  analysis_metadata: z.object({
    analysis_date: z.string(),
    target_structure_analyzed: z.string(),
    total_relationships_found: z.number(),
    high_confidence_relationships: z.number(),
    analyzer_version: z.string(),
    pre_filtering_enabled: z.boolean(),
    files_before_filtering: z.number(),
    files_after_filtering: z.number(),
    filtering_efficiency: z.number(),
    config_file_used: z.string().nullable(),
    min_confidence_score: z.number(),
    high_confidence_threshold: z.number(),
    concurrent_analysis_used: z.boolean(),
    content_caching_enabled: z.boolean(),
    cache_hits: z.number(),
  }),
});

describe('an index CodeRAG writes, read as DeepCode reads it', () => {
  const out = makeTempDir();
  let raw: string;

  beforeAll(async () => {
    const result = await runCli(['index', path.resolve(import.meta.dirname, '../fixtures/polyglot'), '--out', out, '-q']);
    expect(result.code).toBe(0);
    raw = readFileSync(path.join(out, 'polyglot_index.json'), 'utf8');
  });

  it('has every key DeepCode reads, with the type it needs and never null', () => {
    const parsed = deepcodeIndex.safeParse(JSON.parse(raw));
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  });

  it('keeps DeepCode\'s key order at the top level', () => {
    expect(Object.keys(JSON.parse(raw))).toEqual(['repo_name', 'total_files', 'file_summaries', 'relationships', 'analysis_metadata']);
  });

  it('is named as DeepCode names indexes, beside reports its reader can also parse', () => {
    const summary = JSON.parse(readFileSync(path.join(out, 'indexing_summary.json'), 'utf8'));
    expect(summary).toMatchObject({ total_repositories_processed: 1, output_files: { polyglot: path.join(out, 'polyglot_index.json') } });
  });
});
