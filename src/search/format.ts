/**
 * Answers in DeepCode's shapes: the markdown of `format_reference_output` (same headings, so agents prompted
 * for DeepCode read it unchanged, plus the matched symbols' lines), the JSON of `search_code_references`
 * and `get_indexes_overview`, with our fields beside theirs.
 */
import type { LoadedIndex } from './load.js';
import type { SearchResponse } from './search.js';

const RULE = '='.repeat(80);

/** Python's `sorted()` on strings: code-point order. */
const codePointSort = (values: Iterable<string>): string[] => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

export function formatMarkdown(response: SearchResponse): string {
  const lines: string[] = [`# Code Reference Information - ${response.target_file}`, RULE, ''];
  if (response.relationships.length) {
    lines.push('## 🎯 Direct Relationships', '');
    response.relationships.slice(0, 5).forEach((rel, i) => {
      lines.push(
        `### ${i + 1}. ${rel.repo_file_path}`,
        `**Relationship Type**: ${rel.relationship_type}`,
        `**Confidence Score**: ${rel.confidence_score.toFixed(2)}`,
        `**Helpful Aspects**: ${rel.helpful_aspects.join(', ')}`,
        `**Potential Contributions**: ${rel.potential_contributions.join(', ')}`,
        `**Usage Suggestions**: ${rel.usage_suggestions}`,
        '',
      );
    });
  }
  const refs = response.references;
  if (refs.length) {
    lines.push('## 📚 Relevant Code References', '');
    refs.slice(0, 8).forEach((ref, i) => {
      lines.push(
        `### ${i + 1}. ${ref.file_path} (Relevance: ${ref.score.toFixed(2)})`,
        `**Repository**: ${ref.repo_name}`,
        `**File Type**: ${ref.file_type}`,
        `**Main Functions**: ${ref.main_functions.slice(0, 5).join(', ')}`,
        `**Key Concepts**: ${ref.key_concepts.slice(0, 8).join(', ')}`,
        `**Dependencies**: ${ref.dependencies.slice(0, 6).join(', ')}`,
        `**Lines of Code**: ${ref.lines_of_code}`,
        `**Summary**: ${ref.summary.slice(0, 300)}...`,
      );
      if (ref.symbols.length) {
        lines.push(`**Matching Symbols**: ${ref.symbols.map((s) => `${s.kind} ${s.ast_path} (lines ${s.start_line}-${s.end_line})${s.description ? `: ${s.description}` : ''}`).join('; ')}`);
      }
      lines.push('');
    });
  }
  lines.push('## 💡 Implementation Suggestions', '');
  if (refs.length) {
    const top = refs.slice(0, 5);
    const section = (title: string, values: Iterable<string>, n: number) => {
      lines.push(`**${title}**:`);
      for (const value of codePointSort(new Set(values)).slice(0, n)) lines.push(`- ${value}`);
      lines.push('');
    };
    section('Reference Function Name Patterns', top.flatMap((r) => r.main_functions), 10);
    section('Important Concepts and Patterns', top.flatMap((r) => r.key_concepts), 15);
    section('Potential Dependencies Needed', top.flatMap((r) => r.dependencies), 10);
  }
  lines.push(
    '## 🚀 Next Actions',
    '1. Analyze design patterns and architectural styles from the above reference code',
    '2. Determine core functionalities and interfaces to implement',
    '3. Choose appropriate dependency libraries and tools',
    '4. Design implementation solution consistent with existing code style',
    '5. Start writing specific code implementation',
  );
  return lines.join('\n');
}

/** `search_code_references`' result, DeepCode's keys first, then the structured references. */
export function searchResultJson(response: SearchResponse, indexesPath: string, loaded: readonly LoadedIndex[], warnings: readonly string[]) {
  return {
    status: 'success' as const,
    target_file: response.target_file,
    indexes_path: indexesPath,
    keywords_used: response.keywords_used,
    total_references_found: response.references.length,
    total_relationships_found: response.relationships.length,
    formatted_content: formatMarkdown(response),
    indexes_loaded: loaded.map((l) => l.key),
    total_indexes_loaded: loaded.length,
    scorer: response.scorer,
    references: response.references,
    relationships: response.relationships,
    warnings: [...warnings],
  };
}

const MAIN_CONCEPTS = 20;

/** `get_indexes_overview`'s result. Main concepts are the most frequent ones (DeepCode took the first 20 alphabetically). */
export function overviewJson(indexesPath: string, absolutePath: string, loaded: readonly LoadedIndex[], warnings: readonly string[]) {
  const repositories: Record<string, unknown> = {};
  for (const { key, index } of loaded) {
    const conceptCounts = new Map<string, number>();
    const languages: Record<string, number> = {};
    for (const file of index.file_summaries) {
      for (const concept of file.key_concepts) conceptCounts.set(concept, (conceptCounts.get(concept) ?? 0) + 1);
      if (file.status === 'ok' && file.language) languages[file.language] = (languages[file.language] ?? 0) + 1;
    }
    const meta = index.analysis_metadata as Partial<typeof index.analysis_metadata> | undefined;
    repositories[key] = {
      repo_name: index.repo_name,
      total_files: index.total_files,
      file_types: codePointSort(new Set(index.file_summaries.map((f) => f.file_type))),
      main_concepts: [...conceptCounts.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, MAIN_CONCEPTS)
        .map(([concept]) => concept),
      total_relationships: index.relationships.length,
      languages,
      files_by_status: meta?.files_by_status ?? null,
      provider: meta?.provider ?? null,
      analysis_date: meta?.analysis_date ?? null,
      git_commit: meta?.git_commit ?? null,
    };
  }
  return {
    status: 'success' as const,
    overview: { total_repos: loaded.length, repositories },
    indexes_directory: absolutePath,
    indexes_path: indexesPath,
    total_indexes_loaded: loaded.length,
    warnings: [...warnings],
  };
}

export function formatOverviewText(overview: ReturnType<typeof overviewJson>): string {
  const lines = [`${overview.total_indexes_loaded} index(es) in ${overview.indexes_directory}`, ''];
  for (const [key, value] of Object.entries(overview.overview.repositories)) {
    const repo = value as { repo_name: string; total_files: number; total_relationships: number; languages: Record<string, number>; main_concepts: string[]; files_by_status: Record<string, number> | null };
    const langs = Object.entries(repo.languages).sort((a, b) => b[1] - a[1]).map(([l, n]) => `${l} ${n}`).join(', ');
    lines.push(
      `## ${repo.repo_name} (${key})`,
      `files: ${repo.total_files}${repo.files_by_status ? ` (ok ${repo.files_by_status.ok ?? 0}, skipped ${repo.files_by_status.skipped ?? 0}, failed ${repo.files_by_status.failed ?? 0})` : ''}`,
      `languages: ${langs || '-'}`,
      `relationships: ${repo.total_relationships}`,
      `main concepts: ${repo.main_concepts.join(', ') || '-'}`,
      '',
    );
  }
  return lines.join('\n').trimEnd();
}
