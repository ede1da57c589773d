import { describe, expect, it } from 'vitest';
import { FIELDS, Tokenizer, fieldTokens } from '../../src/search/profileTokens.js';
import type { FileSummary } from '../../src/index/types.js';

const file = (patch: Partial<FileSummary>): FileSummary => ({
  file_path: 'lib/ip.js',
  file_type: 'JavaScript source',
  main_functions: [],
  key_concepts: [],
  dependencies: [],
  summary: 'Defines functions expandIPv6 and parseIPv4; uses net.',
  lines_of_code: 10,
  last_modified: '2026-01-01T00:00:00.000Z',
  language: 'JavaScript',
  role: 'source',
  status: 'ok',
  profile_source: 'static',
  content_hash: 'h',
  size_bytes: 100,
  symbols: [],
  local_imports: [],
  ...patch,
});

const summaryTokens = (summary: FileSummary): string[] => [...(fieldTokens(summary, new Tokenizer())[FIELDS.indexOf('summary')]?.keys() ?? [])];

describe('which summaries search reads', () => {
  it('leaves out a summary the static profiler composed, since symbols and imports already hold its words', () => {
    expect(summaryTokens(file({ summary_source: 'composed' }))).toEqual([]);
  });

  it("reads only the title of a composed summary, the words a file's short header gave it", () => {
    expect(summaryTokens(file({ summary_source: 'composed', title: 'Bulgarian [bg]', summary: 'Bulgarian [bg]: Defines and exports constant locale; uses dayjs.' }))).toEqual(['bulgarian', 'bg']);
  });

  it('reads a summary taken from a doc comment or the first prose comment', () => {
    expect(summaryTokens(file({ summary_source: 'comment', summary: 'Expands IPv6 addresses.' }))).toContain('address');
    expect(summaryTokens(file({ summary_source: 'doc', summary: 'Expands IPv6 addresses.' }))).toContain('address');
  });

  it('recognises the composed summaries of indexes written before summary_source by their file-type prefix', () => {
    expect(summaryTokens(file({ summary: 'JavaScript source defining functions a, b. Uses x.' }))).toEqual([]);
  });

  it("reads a model's summary whatever it starts with", () => {
    expect(summaryTokens(file({ profile_source: 'llm', summary: 'JavaScript source that expands addresses.' }))).toContain('address');
  });
});
