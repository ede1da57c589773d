/**
 * Which language a file is, by extension or name, and which prebuilt tree-sitter grammar (from the
 * `tree-sitter-wasms` package) parses it. Languages without a grammar get a plain-text profile.
 */
import path from 'node:path';

export type GrammarId =
  | 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'java' | 'c' | 'cpp' | 'c_sharp' | 'ruby' | 'php';

export interface LanguageInfo {
  /** Display name, used in `file_type` and the index's `language` field. */
  name: string;
  grammar: GrammarId | null;
}

const BY_EXTENSION: Record<string, LanguageInfo> = {
  '.ts': { name: 'TypeScript', grammar: 'typescript' },
  '.mts': { name: 'TypeScript', grammar: 'typescript' },
  '.cts': { name: 'TypeScript', grammar: 'typescript' },
  '.tsx': { name: 'TSX', grammar: 'tsx' },
  '.js': { name: 'JavaScript', grammar: 'javascript' },
  '.jsx': { name: 'JavaScript', grammar: 'javascript' },
  '.mjs': { name: 'JavaScript', grammar: 'javascript' },
  '.cjs': { name: 'JavaScript', grammar: 'javascript' },
  '.py': { name: 'Python', grammar: 'python' },
  '.pyi': { name: 'Python', grammar: 'python' },
  '.go': { name: 'Go', grammar: 'go' },
  '.rs': { name: 'Rust', grammar: 'rust' },
  '.java': { name: 'Java', grammar: 'java' },
  '.c': { name: 'C', grammar: 'c' },
  '.h': { name: 'C', grammar: 'c' },
  '.cc': { name: 'C++', grammar: 'cpp' },
  '.cpp': { name: 'C++', grammar: 'cpp' },
  '.cxx': { name: 'C++', grammar: 'cpp' },
  '.hpp': { name: 'C++', grammar: 'cpp' },
  '.hh': { name: 'C++', grammar: 'cpp' },
  '.hxx': { name: 'C++', grammar: 'cpp' },
  '.cs': { name: 'C#', grammar: 'c_sharp' },
  '.rb': { name: 'Ruby', grammar: 'ruby' },
  '.php': { name: 'PHP', grammar: 'php' },
  '.kt': { name: 'Kotlin', grammar: null },
  '.scala': { name: 'Scala', grammar: null },
  '.swift': { name: 'Swift', grammar: null },
  '.lua': { name: 'Lua', grammar: null },
  '.sh': { name: 'Shell', grammar: null },
  '.bash': { name: 'Shell', grammar: null },
  '.md': { name: 'Markdown', grammar: null },
  '.rst': { name: 'reStructuredText', grammar: null },
  '.txt': { name: 'Text', grammar: null },
  '.json': { name: 'JSON', grammar: null },
  '.yaml': { name: 'YAML', grammar: null },
  '.yml': { name: 'YAML', grammar: null },
  '.toml': { name: 'TOML', grammar: null },
  '.ini': { name: 'INI', grammar: null },
  '.cfg': { name: 'INI', grammar: null },
  '.sql': { name: 'SQL', grammar: null },
  '.html': { name: 'HTML', grammar: null },
  '.css': { name: 'CSS', grammar: null },
  '.scss': { name: 'SCSS', grammar: null },
  '.vue': { name: 'Vue', grammar: null },
};

const BY_NAME: Record<string, LanguageInfo> = {
  Dockerfile: { name: 'Dockerfile', grammar: null },
  Makefile: { name: 'Makefile', grammar: null },
};

export function detectLanguage(filePath: string): LanguageInfo {
  const base = path.posix.basename(filePath);
  return BY_NAME[base] ?? BY_EXTENSION[path.posix.extname(base).toLowerCase()] ?? { name: 'Text', grammar: null };
}

/** A C header that is really C++ is parsed as C++ when the repository is C++-only; here a `.h` stays C. */
export function isCodeLanguage(info: LanguageInfo): boolean {
  return info.grammar !== null || ['Kotlin', 'Scala', 'Swift', 'Lua', 'Shell', 'SQL', 'Vue'].includes(info.name);
}

/**
 * Languages whose files serve one another as references: JavaScript, TypeScript and TSX share a runtime, a module
 * system and their libraries (a `.tsx` component is written from `.ts` hooks, a `.js` file from a `.ts` helper), and
 * a Vue single-file component's script is one of them; C and C++ share headers, either way. Every other language
 * is a family of its own.
 */
const FAMILIES: ReadonlyArray<readonly string[]> = [['JavaScript', 'TypeScript', 'TSX', 'Vue'], ['C', 'C++']];

/** The languages of `name`'s family, itself first. */
export function languageFamily(name: string): readonly string[] {
  const family = FAMILIES.find((f) => f.includes(name));
  return family ? [name, ...family.filter((n) => n !== name)] : [name];
}
