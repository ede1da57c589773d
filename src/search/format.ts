/**
 * Answers in DeepCode's shapes: the markdown of `format_reference_output` (same headings, so agents prompted
 * for DeepCode read it unchanged, plus the matched symbols' lines), the JSON of `search_code_references`
 * and `get_indexes_overview`, with our fields beside theirs.
 */
import { qualifiedName, withQualifiedName } from '../index/qualifiedName.js';
import { fitResponse } from './budget.js';
import type { RepoFreshness } from './freshness.js';
import type { ScopeJson } from './scope.js';
import type { LoadedIndex, Reference, SearchResponse } from './types.js';
import type { FileOutline, SymbolSearch } from './symbols.js';
import { clipped, compareCodeUnits } from '../shared/text.js';

const RULE = '='.repeat(80);

/** Python's `sorted()` on strings: code-point order. */
const codePointSort = (values: Iterable<string>): string[] => [...values].sort(compareCodeUnits);

export function formatMarkdown(response: SearchResponse): string {
  // A query has no target file: its title is the heading alone, not a heading and a dangling dash.
  const title = response.target_file ? `# Code Reference Information - ${response.target_file}` : '# Code Reference Information';
  const lines: string[] = [title, RULE, ''];
  if (response.notice) lines.push(`> ${response.notice}`, '');
  if (response.task) lines.push(...taskLines(response.task), '');
  if (response.symbols?.length) {
    lines.push('## 🔧 Most Likely Places to Change', '');
    response.symbols.forEach((s, i) => lines.push(`${i + 1}. ${s.file_path}:${s.start_line}-${s.end_line} ${s.kind} ${qualifiedName(s.ast_path)} (Relevance: ${s.score.toFixed(2)})`));
    lines.push('');
  }
  if (response.relationships.length) {
    lines.push('## 🎯 Direct Relationships', '');
    response.relationships.slice(0, 5).forEach((rel, i) => {
      lines.push(
        `### ${i + 1}. ${rel.repo_file_path}`,
        `**Relationship Type**: ${rel.relationship_type}`,
        `**Confidence Score**: ${rel.confidence_score.toFixed(2)}${rel.source === 'static' ? ' (inferred statically, without a model)' : ''}`,
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
    // Every reference the answer holds: `-n` already chose how many.
    refs.forEach((ref, i) => {
      lines.push(
        `### ${i + 1}. ${ref.file_path} (Relevance: ${ref.score.toFixed(2)})`,
        `**Repository**: ${ref.repo_name}`,
        `**File Type**: ${ref.file_type}`,
        `**Main Functions**: ${listed(ref.main_functions, 5)}`,
        `**Key Concepts**: ${listed(ref.key_concepts, 8)}`,
        `**Dependencies**: ${listed(ref.dependencies, 6)}`,
        `**Lines of Code**: ${ref.lines_of_code}`,
        `**Summary**: ${clipped(ref.summary, SUMMARY_CHARS)}`,
      );
      if (ref.symbols.length) {
        lines.push(`**Matching Symbols**: ${ref.symbols.map((s) => `${s.kind} ${qualifiedName(s.ast_path)} (lines ${s.start_line}-${s.end_line})${s.description ? `: ${s.description}` : ''}`).join('; ')}`);
      }
      for (const snippet of ref.snippets ?? []) {
        const fence = '`'.repeat(Math.max(3, ...[...snippet.text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
        lines.push(`**Lines ${snippet.from_line}-${snippet.to_line}** (${snippet.kind} ${qualifiedName(snippet.ast_path)}):`, `${fence}${ref.language.toLowerCase().replace(/[^a-z0-9+#-]/g, '')}`, snippet.text, fence);
      }
      if (ref.snippet_notice) lines.push(`**Snippets**: ${ref.snippet_notice}`);
      lines.push('');
    });
  }
  // With nothing found, suggestions would be empty headings and the next actions advice about no code.
  if (refs.length === 0) return lines.join('\n');
  lines.push('## 💡 Implementation Suggestions', '');
  const top = refs.slice(0, 5);
  const section = (title: string, values: Iterable<string>, n: number) => {
    lines.push(`**${title}**:`);
    for (const value of codePointSort(new Set(values)).slice(0, n)) lines.push(`- ${value}`);
    lines.push('');
  };
  section('Reference Function Name Patterns', top.flatMap((r) => r.main_functions), 10);
  section('Important Concepts and Patterns', top.flatMap((r) => r.key_concepts), 15);
  section('Potential Dependencies Needed', top.flatMap((r) => r.dependencies), 10);
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

const SUMMARY_CHARS = 300;

/** The first `n` values, or `-` when there are none. */
function listed(values: readonly string[], n: number): string {
  return values.length ? values.slice(0, n).join(', ') : '-';
}

/** What a task text was read as: its anchors, by kind, and whether it was cut. */
function taskLines(task: NonNullable<SearchResponse['task']>): string[] {
  const out: string[] = [];
  const kinds = [['path', 'Files named'], ['symbol', 'Names'], ['option', 'Options']] as const;
  for (const [kind, title] of kinds) {
    const texts = task.anchors.filter((a) => a.kind === kind).map((a) => (kind === 'option' ? `--${a.text}` : a.text));
    if (texts.length) out.push(`**${title}**: ${texts.slice(0, 12).join(', ')}${texts.length > 12 ? `, and ${texts.length - 12} more` : ''}`);
  }
  if (task.truncated) out.push('**Note**: the text was long; only its beginning was read.');
  if (task.passages_read === 0) out.push('**Note**: the first files could not be read from the repository (not on disk where it was indexed?); ranked from the index alone.');
  return out;
}

/**
 * `coderag search --json`'s answer, which serve's /api/search gives too: searchResultJson cut to `maxTokens` by
 * leaving out the least relevant results (`truncated` says how many), with the scope it was searched in.
 */
export function budgetedSearchJson(response: SearchResponse & { scope?: ScopeJson }, indexesDirectory: string, loaded: readonly LoadedIndex[], warnings: readonly string[], freshness: readonly RepoFreshness[], maxTokens?: number) {
  const { scope } = response;
  return fitResponse(
    response,
    (cut, leftOut) => ({ ...searchResultJson(cut, indexesDirectory, loaded, warnings, freshness), ...(leftOut ? { truncated: leftOut } : {}), ...(scope ? { scope } : {}) }),
    (answer) => JSON.stringify(answer, null, 2),
    maxTokens,
  );
}

/**
 * `search_code_references`' result, DeepCode's keys first, then the structured references. The folder is
 * `indexes_directory`, as in every answer (DeepCode's overview names it so; its search said `indexes_path`).
 */
export function searchResultJson(response: SearchResponse, indexesDirectory: string, loaded: readonly LoadedIndex[], warnings: readonly string[], freshness: readonly RepoFreshness[] = []) {
  return {
    status: 'success' as const,
    target_file: response.target_file,
    indexes_directory: indexesDirectory,
    keywords_used: response.keywords_used,
    total_references_found: response.references.length,
    total_relationships_found: response.relationships.length,
    formatted_content: formatMarkdown(response),
    indexes_loaded: loaded.map((l) => l.key),
    total_indexes_loaded: loaded.length,
    scorer: response.scorer,
    references: response.references.map(answerReference),
    relationships: response.relationships,
    ...(response.symbols ? { symbols: response.symbols.map(withQualifiedName) } : {}),
    ...(response.task ? { task: response.task } : {}),
    ...(response.notice ? { notice: response.notice } : {}),
    warnings: [...warnings],
    freshness: [...freshness],
  };
}

/** A reference as answers show it: its symbols' and snippets' qualified names dotted. */
function answerReference(ref: Reference) {
  const { symbols, snippets, ...rest } = ref;
  return { ...rest, symbols: symbols.map(withQualifiedName), ...(snippets ? { snippets: snippets.map(withQualifiedName) } : {}) };
}

/** An outline as answers show it: qualified names dotted, and how many symbols it lists. */
export function answerOutline<T extends Pick<FileOutline, 'symbols'>>(outline: T) {
  return { ...outline, symbols: outline.symbols.map(withQualifiedName), total_symbols: outline.symbols.length };
}

/** A symbol look-up as answers show it: qualified names dotted. */
export function answerSymbolSearch<T extends SymbolSearch>(result: T) {
  return { ...result, matches: result.matches.map(withQualifiedName) };
}

/** One warning line per stale index, for answers that have no JSON to carry `freshness`. */
export function staleWarnings(freshness: readonly RepoFreshness[]): string[] {
  return freshness.filter((f) => f.stale).map((f) => `${f.repo_name} (${f.index}) is stale: ${f.reason ?? 'the repository moved on'}; re-run coderag index`);
}

const MAIN_CONCEPTS = 20;

/**
 * `get_indexes_overview`'s result. Main concepts are the most frequent ones (DeepCode took the first 20
 * alphabetically). The folder is said once, as `indexes_directory`; each repository's commit once, as
 * `git_commit`, the index's own name for it.
 */
export function overviewJson(indexesDirectory: string, loaded: readonly LoadedIndex[], warnings: readonly string[], freshness: readonly RepoFreshness[] = []) {
  const repositories: Record<string, unknown> = {};
  const freshnessByKey = new Map(freshness.map((f) => [f.index, f]));
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
      stale: freshnessByKey.get(key)?.stale ?? false,
      freshness: freshnessByKey.get(key) ?? null,
    };
  }
  return {
    status: 'success' as const,
    overview: { total_repos: loaded.length, repositories },
    indexes_directory: indexesDirectory,
    total_indexes_loaded: loaded.length,
    warnings: [...warnings],
  };
}

export function formatOverviewText(overview: ReturnType<typeof overviewJson>): string {
  const lines = [`${overview.total_indexes_loaded} index(es) in ${overview.indexes_directory}`, ''];
  for (const [key, value] of Object.entries(overview.overview.repositories)) {
    const repo = value as { repo_name: string; total_files: number; total_relationships: number; languages: Record<string, number>; main_concepts: string[]; files_by_status: Record<string, number> | null; git_commit: string | null; freshness: RepoFreshness | null };
    const langs = Object.entries(repo.languages).sort((a, b) => b[1] - a[1]).map(([l, n]) => `${l} ${n}`).join(', ');
    lines.push(
      `## ${repo.repo_name} (${key})`,
      `files: ${repo.total_files}${repo.files_by_status ? ` (ok ${repo.files_by_status.ok ?? 0}, skipped ${repo.files_by_status.skipped ?? 0}, failed ${repo.files_by_status.failed ?? 0})` : ''}`,
      `languages: ${langs || '-'}`,
      `relationships: ${repo.total_relationships}`,
      `main concepts: ${repo.main_concepts.join(', ') || '-'}`,
    );
    if (repo.git_commit) {
      const fresh = repo.freshness;
      const state = !fresh ? '' : fresh.stale ? ` (stale: ${fresh.reason ?? 'moved on'})` : fresh.checked ? ' (up to date)' : ` (not checked: ${fresh.reason ?? ''})`;
      lines.push(`indexed commit: ${repo.git_commit}${state}`);
    }
    lines.push('');
  }
  return lines.join('\n').trimEnd();
}

/** `coderag outline`'s text: the file, its summary, then each symbol indented by its nesting, with its lines. */
export function formatOutlineText(outline: FileOutline): string {
  const lines = [`${outline.file_path} (${outline.repo_name}${outline.language ? `, ${outline.language}` : ''}, ${outline.lines_of_code} lines of code${outline.status === 'ok' ? '' : `, ${outline.status}`})`];
  if (outline.summary) lines.push(outline.summary);
  lines.push('');
  if (outline.symbols.length === 0) lines.push('(no symbols recorded for this file)');
  for (const s of outline.symbols) {
    const doc = s.doc ? `  ${s.doc.split('\n')[0]?.slice(0, 100)}` : '';
    lines.push(`${'  '.repeat(s.depth)}${s.kind} ${s.name}  lines ${s.start_line}-${s.end_line}${doc}`);
  }
  return lines.join('\n');
}

/** `coderag symbol`'s text: one definition a line, `repo path:start-end kind qualified.name (match)`. */
export function formatSymbolsText(result: SymbolSearch): string {
  const what = `"${result.name}"${result.kind ? ` (${result.kind})` : ''}`;
  if (result.total_matches === 0) return result.notice ?? `no definition of ${what} in the indexes`;
  const lines = [`${result.total_matches} definition(s) of ${what}${result.truncated ? `, the first ${result.matches.length} shown` : ''}:`];
  for (const m of result.matches) lines.push(`${m.repo_name}  ${m.file_path}:${m.start_line}-${m.end_line}  ${m.kind} ${qualifiedName(m.ast_path)}${m.match === 'exact' ? '' : `  (${m.match.replace('_', ' ')} match)`}`);
  return lines.join('\n');
}
