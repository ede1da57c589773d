/**
 * The files of a target structure, read from its text (a drawn tree, an indented list, or `coderag plan`'s
 * one path per line), so a relationship is kept only when it points at one of them. A model writes a path
 * as `./src/x.ts`, `src/X.TS`-style extensions, with or without the tree's top folder (`new-service/src/x.ts`),
 * or as the tail of a nested tree's path (`cache/lru.ts`); each of these resolves to the path as the
 * structure gives it. Anything else (`Node.js`, `./option.js`, `tsconfig.js.json`) resolves to nothing.
 */

/** A file name: an extension, or one of the well-known names without one. */
const FILE_NAME = /^(?:[\w@+-][\w.@+-]*\.[A-Za-z0-9]{1,10}|Makefile|Dockerfile|Procfile|Gemfile|Rakefile|Justfile|LICENSE|README|Containerfile)$/;
/** Tree drawing and list markers before a name. */
const LEAD = /^[\s│├└┬┼─|`+*\\>-]*(?:\d+[.)]\s+)?/u;

/** A file of a target structure: its path as the structure gives it, and what its line says of it (else ''). */
export interface TargetFile {
  path: string;
  purpose: string;
}

export class TargetFiles {
  /** Normalised key -> the path as the structure gives it. */
  private readonly exact = new Map<string, string>();
  private readonly files: TargetFile[] = [];

  constructor(paths: Iterable<TargetFile>, private readonly root: string | null = null) {
    for (const file of paths) {
      const key = normalise(file.path);
      if (!key || this.exact.has(key)) continue;
      this.exact.set(key, file.path);
      this.files.push(file);
    }
  }

  get size(): number {
    return this.files.length;
  }

  /** The files in the structure's order, each with its purpose. */
  list(): readonly TargetFile[] {
    return this.files;
  }

  /** The target file `raw` names, as the structure writes it, or null when it names none (or several). */
  resolve(raw: string): string | null {
    let key = normalise(raw);
    if (!key) return null;
    const direct = this.exact.get(key);
    if (direct !== undefined) return direct;
    if (this.root && key.startsWith(`${this.root}/`)) {
      key = key.slice(this.root.length + 1);
      const inside = this.exact.get(key);
      if (inside !== undefined) return inside;
    }
    // The tail of one path only: `cache/lru.ts` for `src/cache/lru.ts`.
    const tails = [...this.exact.entries()].filter(([k]) => k.endsWith(`/${key}`));
    return tails.length === 1 ? (tails[0]?.[1] ?? null) : null;
  }
}

/** `./src\\X.TS ` gives `src/X.ts`: slashes, no `./` or leading `/`, the extension in lower case. */
function normalise(raw: string): string {
  let p = raw.trim().replace(/^[`'"]+|[`'"]+$/g, '').replace(/\\/g, '/');
  while (p.startsWith('./') || p.startsWith('/')) p = p.startsWith('./') ? p.slice(2) : p.slice(1);
  p = p.replace(/\/{2,}/g, '/');
  if (!p || p.endsWith('/') || p.split('/').some((s) => s === '..')) return '';
  return p.replace(/(\.[A-Za-z0-9]{1,10})$/, (ext) => ext.toLowerCase());
}

/**
 * Reads the files of a target structure. A line's first token is a file when it has a file name's shape;
 * a token ending in `/` is a folder, and a file indented below a folder lies in it. A single top folder
 * line that holds every file (a drawn tree's project name) is left out of the paths, and accepted before them.
 */
export function targetFiles(text: string): TargetFiles {
  const folders: Array<{ depth: number; name: string }> = [];
  const files: Array<{ top: string | null; path: string; purpose: string }> = [];
  const closeTo = (depth: number) => {
    while (folders.length > 0 && (folders[folders.length - 1]?.depth ?? 0) >= depth) folders.pop();
  };
  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\t/g, '    ').replace(/\s+$/, '');
    if (/^\s*```/.test(line)) continue;
    const lead = LEAD.exec(line)?.[0] ?? '';
    const rest = line.slice(lead.length);
    const first = rest.split(/\s+/)[0] ?? '';
    const token = first.replace(/^[`'"]+/, '').replace(/[`'"]*[:,]?$/, '');
    if (!token || token.startsWith('#')) continue;
    const depth = [...lead].length;
    if (/^[\w.@+-]+(?:\/[\w.@+-]+)*\/$/.test(token)) {
      closeTo(depth);
      const name = token.slice(0, -1).replace(/^\.(?:\/|$)/, '');
      if (name) folders.push({ depth, name });
      continue;
    }
    const segments = token.replace(/^\.\//, '').split('/');
    const name = segments[segments.length - 1] ?? '';
    if (!FILE_NAME.test(name) || !segments.slice(0, -1).every((seg) => /^[\w.@+-]+$/.test(seg) && seg !== '..')) continue;
    closeTo(depth);
    files.push({ top: folders[0]?.name.split('/')[0] ?? null, path: [...folders.map((f) => f.name), ...segments].join('/'), purpose: purposeOf(rest.slice(first.length)) });
  }
  const top = files[0]?.top ?? null;
  const root = top && files.every((f) => f.top === top) ? top : null;
  return new TargetFiles(files.map((f) => ({ path: root ? f.path.slice(root.length + 1) : f.path, purpose: f.purpose })), root);
}

/** What follows a file's path on its line, less the comment or separator marks before it: `# LRU cache` gives `LRU cache`. */
function purposeOf(after: string): string {
  return after.replace(/^[\s:,]*(?:#+|\/\/+|--|[-–—:=]+>?)?\s*/u, '').trim();
}
