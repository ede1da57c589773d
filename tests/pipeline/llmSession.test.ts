import { describe, expect, it } from 'vitest';
import type { FileSummary } from '../../src/index/types.js';
import { applyAnswer } from '../../src/pipeline/llmSession.js';
import { skippedSummary } from '../../src/pipeline/profile.js';
import { targetFiles } from '../../src/llm/targetPaths.js';

function parsed(): FileSummary {
  const summary: FileSummary = { ...skippedSummary({ path: 'src/retry.ts', absolute: '/r/src/retry.ts', size: 1, mtimeMs: 0 }, 'binary', 'x'), status: 'ok' };
  summary.main_functions = ['retry'];
  summary.dependencies = ['p-retry'];
  summary.symbols = [
    { kind: 'function', name: 'retry', ast_path: 'retry', start_line: 1, end_line: 5 },
    { kind: 'method', name: 'wait', ast_path: 'Backoff-wait', start_line: 7, end_line: 9 },
  ];
  return summary;
}

describe("a model's answer applied to a file's static profile", () => {
  it('replaces the meaning and keeps the facts the parser found', () => {
    const summary = parsed();
    applyAnswer(summary, { file_type: 'Retry helper', summary: 'Retries calls.', key_concepts: ['retry'], descriptions: [], relationships: [], rejected_relationships: 0 });
    expect(summary).toMatchObject({ file_type: 'Retry helper', summary: 'Retries calls.', key_concepts: ['retry'], profile_source: 'llm', main_functions: ['retry'], dependencies: ['p-retry'] });
  });

  it('describes symbols by scope path or name, and names the file as the source of its relationships', () => {
    const summary = parsed();
    const { relationships } = applyAnswer(summary, {
      file_type: 't',
      summary: 's',
      key_concepts: [],
      descriptions: [
        { name: 'retry', description: 'Calls again.' },
        { name: 'Backoff-wait', description: 'Sleeps.' },
      ],
      relationships: [{ target_file_path: 'lib/retry.py', relationship_type: 'reference', confidence_score: 0.8, helpful_aspects: [], potential_contributions: [], usage_suggestions: '' }],
      rejected_relationships: 0,
    });
    expect(summary.symbols.map((s) => s.description)).toEqual(['Calls again.', 'Sleeps.']);
    expect(relationships).toEqual([expect.objectContaining({ repo_file_path: 'src/retry.ts', target_file_path: 'lib/retry.py' })]);
  });

  it('matches symbol names written in another form, and keeps only relationships into the target structure', () => {
    const summary = parsed();
    const rel = (target_file_path: string) => ({ target_file_path, relationship_type: 'reference', confidence_score: 0.8, helpful_aspects: [], potential_contributions: [], usage_suggestions: '' });
    const applied = applyAnswer(
      summary,
      {
        file_type: 't',
        summary: 's',
        key_concepts: [],
        descriptions: [{ name: 'Backoff::wait()', description: 'Sleeps.' }, { name: 'RETRY', description: 'Calls again.' }],
        relationships: [rel('./lib/retry.py'), rel('Node.js'), rel('svc/lib/retry.PY')],
        rejected_relationships: 0,
      },
      targetFiles('svc/\n└── lib/retry.py\n'),
    );
    expect(summary.symbols.map((s) => s.description)).toEqual(['Calls again.', 'Sleeps.']);
    expect(applied.relationships.map((r) => r.target_file_path)).toEqual(['lib/retry.py', 'lib/retry.py']);
    expect(applied.outside).toBe(1);
  });
});
