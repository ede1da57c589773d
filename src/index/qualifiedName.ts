/**
 * A symbol's qualified name as people and tracebacks write it: `AppContext.push`. The index stores `ast_path` as
 * the seed system writes it, scopes joined with '-' (`AppContext-push`), and keeps it so: indexes already written
 * and DeepCode's readers stay valid. `main_functions` and every answer (CLI, MCP, HTTP) show this dotted form.
 */
export function qualifiedName(astPath: string): string {
  return astPath.replace(/-/g, '.');
}

/** The ast_path of the definition a symbol is a direct member of: `AppContext` for `AppContext-push`, '' at the top. */
export function parentPath(symbol: { ast_path: string; name: string }): string {
  return symbol.ast_path.slice(0, Math.max(0, symbol.ast_path.length - symbol.name.length - 1));
}

/** A symbol as answers show it: `qualified_name` (dotted) where the index has `ast_path`. */
export type WithQualifiedName<T extends { ast_path: string }> = Omit<T, 'ast_path'> & { qualified_name: string };

/** `symbol` as answers show it: `qualified_name` (dotted) where the index has `ast_path`, the other keys in place. */
export function withQualifiedName<T extends { ast_path: string }>(symbol: T): WithQualifiedName<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(symbol)) {
    if (key === 'ast_path') out.qualified_name = qualifiedName(value as string);
    else out[key] = value;
  }
  return out as WithQualifiedName<T>;
}
