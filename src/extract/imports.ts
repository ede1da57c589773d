/**
 * Import specifiers, read from the source text with per-language patterns (cheaper than a second tree walk,
 * and it also sees `require()` and dynamic `import()` wherever they sit), then resolved to repository paths
 * where they are local. What stays unresolved is named by its package.
 */
import path from 'node:path';

export type ImportStyle = 'js' | 'python' | 'go' | 'rust' | 'java' | 'c' | 'csharp' | 'ruby' | 'php' | 'none';

const PATTERNS: Record<Exclude<ImportStyle, 'none'>, RegExp[]> = {
  js: [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\b(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ],
  python: [/^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?\s*([\w., \t*]+)/gm, /^[ \t]*import[ \t]+([\w., \t]+)/gm],
  go: [/^\s*import\s+(?:[\w.]+\s+)?"([^"]+)"/gm, /^\s*(?:[\w.]+\s+)?"([^"]+)"\s*$/gm],
  rust: [/^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([\w:]+)/gm, /^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;/gm, /^\s*extern\s+crate\s+(\w+)/gm],
  java: [/^\s*import\s+(?:static\s+)?([\w.]+(?:\.\*)?)\s*;/gm],
  c: [/^\s*#\s*include\s*([<"][^>"]+[>"])/gm],
  csharp: [/^\s*(?:global\s+)?using\s+(?:static\s+)?(?:\w+\s*=\s*)?([\w.]+)\s*;/gm],
  ruby: [/^\s*(require_relative|require|load)\s*\(?\s*['"]([^'"]+)['"]/gm],
  php: [/^\s*use\s+(?:function\s+|const\s+)?([\w\\]+)/gm, /\b(?:require|include)(?:_once)?\s*\(?\s*(?:__DIR__\s*\.\s*)?['"]([^'"]+)['"]/g],
};

export interface RawImport {
  specifier: string;
  /** Python's imported names (`from pkg import mod`), which may themselves be modules. */
  names?: string[];
  /** Ruby's require_relative, Rust's `mod x;`, C's quoted include: relative to the importing file. */
  relative?: boolean;
}

export function importStyleOf(grammarOrLanguage: string): ImportStyle {
  switch (grammarOrLanguage) {
    case 'typescript': case 'tsx': case 'javascript': return 'js';
    case 'python': return 'python';
    case 'go': return 'go';
    case 'rust': return 'rust';
    case 'java': case 'Kotlin': case 'Scala': return 'java';
    case 'c': case 'cpp': return 'c';
    case 'c_sharp': return 'csharp';
    case 'ruby': return 'ruby';
    case 'php': return 'php';
    default: return 'none';
  }
}

/**
 * Whether the text at an offset is code rather than a comment or a string literal (from the file's parse tree).
 * The patterns read raw text, where `// do not require('lodash')` or `"write import 'x' first"` look like imports.
 */
export type CodeAt = (index: number) => boolean;

/** A JavaScript module specifier never holds whitespace or a comma: `', '` is the text between two string literals. */
const JS_SPECIFIER = /^[^\s,]+$/;

/** The imports of `source`, each found where `isCode` says code starts (by default everywhere: a file not parsed). */
export function findImports(source: string, style: ImportStyle, isCode: CodeAt = () => true): RawImport[] {
  if (style === 'none') return [];
  const found: RawImport[] = [];
  if (style === 'go') return goImports(source, isCode);
  const keeps = (at: number): boolean => isCode(at) || (style === 'js' && isTypeImport(source, at));
  for (const pattern of PATTERNS[style]) {
    for (const match of codeMatches(source, pattern, keeps)) {
      if (style === 'python') {
        if (match[2] !== undefined && pattern.source.includes('from')) {
          const names = match[2].split(',').map((n) => n.trim().split(/\s+/)[0] ?? '').filter((n) => /^\w+$/.test(n));
          found.push({ specifier: match[1] ?? '', names });
        } else {
          for (const part of (match[1] ?? '').split(',')) {
            const spec = part.trim().split(/\s+/)[0];
            if (spec) found.push({ specifier: spec });
          }
        }
      } else if (style === 'ruby') {
        found.push({ specifier: match[2] ?? '', relative: match[1] === 'require_relative' });
      } else if (style === 'rust' && pattern.source.includes('mod')) {
        found.push({ specifier: match[1] ?? '', relative: true });
      } else if (style === 'c') {
        const raw = match[1] ?? '';
        found.push({ specifier: raw.slice(1, -1), relative: raw.startsWith('"') });
      } else if (match[1] && (style !== 'js' || JS_SPECIFIER.test(match[1]))) {
        found.push({ specifier: match[1] });
      }
    }
  }
  return found;
}

/**
 * A JSDoc type that names another module, `@type {import('./apply')}` or `{Array<import('x').T>}`: a comment, but
 * a dependency all the same (TypeScript checks it). An `import(` in a type expression follows `{`, `|`, `<`, `,`
 * or `:`; in an example in prose, it does not.
 */
function isTypeImport(source: string, at: number): boolean {
  if (!source.startsWith('import', at)) return false;
  let before = at - 1;
  while (before >= 0 && (source[before] === ' ' || source[before] === '\t')) before--;
  return before >= 0 && '{|<,:'.includes(source[before] as string);
}

/**
 * The matches of a global `pattern` whose first word starts where `keeps` says. A match refused is looked for again
 * from just after its start: `// we export the API` would otherwise take the text up to the next line's real
 * `export … from './api'` with it.
 */
function* codeMatches(source: string, pattern: RegExp, keeps: CodeAt): Generator<RegExpExecArray> {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(source); match; match = pattern.exec(source)) {
    const text = match[0];
    // Patterns anchored at a line's start also take the space before it.
    const at = match.index + (text.length - text.trimStart().length);
    if (keeps(at)) yield match;
    else pattern.lastIndex = at + 1;
  }
}

/** Go's imports live in `import "x"` lines and `import ( ... )` blocks; only those count. */
function goImports(source: string, isCode: CodeAt): RawImport[] {
  const found: RawImport[] = [];
  for (const block of codeMatches(source, /^\s*import\s*\(([\s\S]*?)\)/gm, isCode)) {
    for (const line of (block[1] ?? '').matchAll(/"([^"]+)"/g)) if (line[1]) found.push({ specifier: line[1] });
  }
  for (const single of codeMatches(source, /^\s*import\s+(?:[\w.]+\s+)?"([^"]+)"/gm, isCode)) if (single[1]) found.push({ specifier: single[1] });
  return found;
}

/** The repository's files, with the lookups resolution needs. Built once per run. */
export class RepoFileSet {
  private readonly files: ReadonlySet<string>;
  /** Built on first use: only some languages' imports look files up by name or by folder. */
  private byBasenameMap: Map<string, string[]> | null = null;
  private byDirectoryMap: Map<string, string[]> | null = null;
  /** Go's module path from go.mod, so `module/x/y` imports resolve to `x/y`. */
  goModule: string | null = null;

  constructor(paths: Iterable<string>) {
    this.files = new Set(paths);
  }

  private get byBasename(): Map<string, string[]> {
    return (this.byBasenameMap ??= groupBy(this.files, (file) => path.posix.basename(file)));
  }

  private get byDirectory(): Map<string, string[]> {
    return (this.byDirectoryMap ??= groupBy(this.files, (file) => path.posix.dirname(file)));
  }

  has(file: string): boolean {
    return this.files.has(file);
  }

  firstExisting(candidates: string[]): string | null {
    for (const candidate of candidates) {
      const normal = NOT_NORMAL.test(candidate) ? path.posix.normalize(candidate).replace(/^\.\//, '') : candidate;
      if (!normal.startsWith('../') && this.files.has(normal)) return normal;
    }
    return null;
  }

  /** Files whose path ends with `/suffix` (or equals it); a unique answer only. */
  uniqueSuffix(suffix: string): string | null {
    const matches = (this.byBasename.get(path.posix.basename(suffix)) ?? []).filter(
      (f) => f === suffix || f.endsWith(`/${suffix}`),
    );
    return matches.length === 1 ? (matches[0] ?? null) : null;
  }

  filesIn(dir: string): string[] {
    return this.byDirectory.get(dir) ?? [];
  }
}

/** What `path.posix.normalize` would change: `.` or `..` segments, doubled or trailing slashes, an empty path. */
const NOT_NORMAL = /(^|\/)\.\.?(\/|$)|\/\/|\/$|^$/;

function groupBy(files: Iterable<string>, key: (file: string) => string): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const file of files) {
    const k = key(file);
    const group = groups.get(k);
    if (group) group.push(file);
    else groups.set(k, [file]);
  }
  return groups;
}

const JS_EXTENSIONS = ['.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts', '.json', '.d.ts'];

export interface ResolvedImports {
  /** As DeepCode lists them: local ones as repo paths, external ones by package or module name. */
  dependencies: string[];
  /** The local ones alone. */
  local: string[];
}

/**
 * Resolutions of single imports already made against one file set, for resolving many files' imports again:
 * an import resolves the same from every file of a folder (Rust's `mod` from every file of the same name).
 */
export type ResolutionMemo = Map<string, { local: string[]; external?: string }>;

export function resolveImports(importer: string, imports: RawImport[], style: ImportStyle, repo: RepoFileSet, memo?: ResolutionMemo): ResolvedImports {
  const dependencies = new Set<string>();
  const local = new Set<string>();
  for (const raw of imports) {
    const resolved = memo ? memoised(importer, raw, style, repo, memo) : resolveOne(importer, raw, style, repo);
    for (const file of resolved.local) {
      if (file !== importer) {
        local.add(file);
        dependencies.add(file);
      }
    }
    if (resolved.local.length === 0 && resolved.external) dependencies.add(resolved.external);
  }
  return { dependencies: [...dependencies], local: [...local] };
}

/**
 * Whether resolving `raw` from `importer` may answer otherwise once the files in `changedFolders` (the folders
 * of every file added or removed) changed: false only when no lookup it makes can land in one of them. Exact for
 * JavaScript and TypeScript (a bare package name looks nothing up; a relative or rooted one looks in its own
 * folder and the one it names); every other style answers true, to be resolved again.
 */
export function resolutionMayChange(importer: string, raw: RawImport, style: ImportStyle, changedFolders: ReadonlySet<string>): boolean {
  if (style === 'none' || style === 'csharp') return false;
  if (style !== 'js') return true;
  const spec = raw.specifier;
  const first = spec[0];
  if (first !== '.' && first !== '/' && !(spec[1] === '/' && (first === '@' || first === '~' || first === '#'))) return false;
  const bases = spec.startsWith('.') ? [path.posix.join(path.posix.dirname(importer), spec)]
    : spec.startsWith('/') ? [spec.slice(1)]
    : /^[@~#]\//.test(spec) ? [`src/${spec.slice(2)}`, spec.slice(2)]
    : [];
  // A candidate is the base, the base with an extension for its own, or an index file inside it; only a base
  // already in normal form says which folders those are.
  return bases.some((base) => NOT_NORMAL.test(base) || changedFolders.has(path.posix.dirname(base)) || changedFolders.has(base));
}

function memoised(importer: string, raw: RawImport, style: ImportStyle, repo: RepoFileSet, memo: ResolutionMemo): { local: string[]; external?: string } {
  const from = style === 'rust' ? importer : path.posix.dirname(importer);
  // The specifier last: every field before it has a fixed form, so no two imports share a key.
  const key = `${style}\0${from}\0${raw.relative === true ? 1 : 0}${raw.names?.join(',') ?? ''}\0${raw.specifier}`;
  let resolved = memo.get(key);
  if (!resolved) {
    resolved = resolveOne(importer, raw, style, repo);
    memo.set(key, resolved);
  }
  return resolved;
}

function resolveOne(importer: string, raw: RawImport, style: ImportStyle, repo: RepoFileSet): { local: string[]; external?: string } {
  const dir = path.posix.dirname(importer);
  const spec = raw.specifier;
  switch (style) {
    case 'js': {
      const bases = spec.startsWith('.') ? [path.posix.join(dir, spec)]
        : spec.startsWith('/') ? [spec.slice(1)]
        : /^[@~#]\//.test(spec) ? [`src/${spec.slice(2)}`, spec.slice(2)]
        : [];
      for (const base of bases) {
        const noJs = base.replace(/\.(m|c)?js$/, '');
        const hit = repo.firstExisting([
          base,
          ...JS_EXTENSIONS.map((ext) => `${noJs}${ext}`),
          ...JS_EXTENSIONS.map((ext) => `${base}/index${ext}`),
        ]);
        if (hit) return { local: [hit] };
      }
      if (spec.startsWith('.') || spec.startsWith('/')) return { local: [] };
      const external = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      return { local: [], external: external?.replace(/^node:/, '') ?? spec };
    }
    case 'python': {
      const level = /^\.*/.exec(spec)?.[0].length ?? 0;
      const modulePath = spec.slice(level).replace(/\./g, '/');
      const roots = level > 0
        ? [path.posix.join(dir, ...Array<string>(Math.max(0, level - 1)).fill('..'))]
        : ['', 'src', 'lib', dir];
      const local: string[] = [];
      for (const root of roots) {
        const base = modulePath ? path.posix.join(root, modulePath) : root;
        for (const name of raw.names ?? []) {
          const sub = repo.firstExisting([`${base}/${name}.py`, `${base}/${name}/__init__.py`]);
          if (sub) local.push(sub);
        }
        if (local.length === 0 && modulePath) {
          const hit = repo.firstExisting([`${base}.py`, `${base}/__init__.py`, `${base}.pyi`]);
          if (hit) local.push(hit);
        }
        if (local.length) return { local };
      }
      return { local: [], ...(level === 0 ? { external: spec.split('.')[0] ?? spec } : {}) };
    }
    case 'go': {
      const module = repo.goModule;
      if (module && (spec === module || spec.startsWith(`${module}/`))) {
        const pkgDir = spec === module ? '.' : spec.slice(module.length + 1);
        const files = repo.filesIn(pkgDir).filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'));
        return { local: files.slice(0, 12) };
      }
      return { local: [], external: spec };
    }
    case 'rust': {
      if (raw.relative) {
        const moduleDir = /(^|\/)(mod|lib|main)\.rs$/.test(importer) ? dir : path.posix.join(dir, path.posix.basename(importer, '.rs'));
        const hit = repo.firstExisting([`${moduleDir}/${spec}.rs`, `${moduleDir}/${spec}/mod.rs`]);
        return { local: hit ? [hit] : [] };
      }
      const parts = spec.split('::');
      const head = parts[0];
      if (head === 'crate' || head === 'super' || head === 'self') {
        const crateRoot = importer.includes('src/') ? `${importer.slice(0, importer.lastIndexOf('src/'))}src` : dir;
        const base = head === 'crate' ? crateRoot : head === 'super' ? path.posix.dirname(dir) : dir;
        const rest = parts.slice(1);
        for (let n = rest.length; n > 0; n--) {
          const modulePath = path.posix.join(base, ...rest.slice(0, n));
          const hit = repo.firstExisting([`${modulePath}.rs`, `${modulePath}/mod.rs`]);
          if (hit) return { local: [hit] };
        }
        return { local: [] };
      }
      return { local: [], external: head ?? spec };
    }
    case 'java': {
      const hit = spec.endsWith('.*') ? null : repo.uniqueSuffix(`${spec.replace(/\./g, '/')}.java`);
      return hit ? { local: [hit] } : { local: [], external: spec.split('.').slice(0, 3).join('.') };
    }
    case 'c': {
      const hit = (raw.relative ? repo.firstExisting([path.posix.join(dir, spec), spec]) : null) ?? repo.uniqueSuffix(spec);
      return hit ? { local: [hit] } : { local: [], external: spec };
    }
    case 'csharp':
      return { local: [], external: spec };
    case 'ruby': {
      const file = spec.endsWith('.rb') ? spec : `${spec}.rb`;
      const hit = raw.relative ? repo.firstExisting([path.posix.join(dir, file)]) : repo.firstExisting([`lib/${file}`, file]) ?? repo.uniqueSuffix(`lib/${file}`);
      return hit ? { local: [hit] } : { local: [], ...(raw.relative ? {} : { external: spec.split('/')[0] ?? spec }) };
    }
    case 'php': {
      if (spec.includes('/') || spec.endsWith('.php')) {
        const hit = repo.firstExisting([path.posix.join(dir, spec.replace(/^\//, '')), spec.replace(/^\//, '')]);
        return { local: hit ? [hit] : [] };
      }
      const parts = spec.split('\\').filter(Boolean);
      for (let start = 0; start < parts.length; start++) {
        const hit = repo.uniqueSuffix(`${parts.slice(start).join('/')}.php`);
        if (hit) return { local: [hit] };
      }
      return { local: [], external: parts.slice(0, 2).join('\\') };
    }
    default:
      return { local: [] };
  }
}
