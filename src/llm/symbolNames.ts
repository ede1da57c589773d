/**
 * Symbol names as a model writes them, matched to the parser's symbols. The prompt lists scope paths
 * (`LruCache-get`); answers come back as `LruCache.get`, `LruCache::get`, `lrucache-get`, `LruCache.get()` or
 * `cache.LruCache.get`. Every separator becomes one, case is ignored, a trailing parameter list is dropped,
 * and a name qualified further than the scope path (a module in front) matches when only one symbol fits.
 */

export interface NamedSymbol {
  name: string;
  ast_path: string;
}

/** `LruCache::get()` and `lrucache.GET` both give `lrucache-get`. */
export function normaliseSymbolName(raw: string): string {
  return raw
    .trim()
    .replace(/^[`'"]+|[`'"]+$/g, '')
    .replace(/\s*\([^()]*\)\s*$/, '')
    .toLowerCase()
    .replace(/::|->|[.#/:\\\s-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}

export class SymbolMatcher {
  private readonly exact = new Map<string, string>();
  private readonly byPath = new Map<string, string[]>();
  private readonly byName = new Map<string, string[]>();

  constructor(symbols: readonly NamedSymbol[]) {
    for (const s of symbols) {
      this.exact.set(s.ast_path, s.ast_path);
      add(this.byPath, normaliseSymbolName(s.ast_path), s.ast_path);
      add(this.byName, normaliseSymbolName(s.name), s.ast_path);
    }
  }

  /**
   * The scope paths of the symbols `raw` names: one, several when it is a bare name that several scopes
   * share (`get` of two classes), or none when it names nothing of this file.
   */
  match(raw: string): string[] {
    const exact = this.exact.get(raw);
    if (exact !== undefined) return [exact];
    const key = normaliseSymbolName(raw);
    if (!key) return [];
    const path = this.byPath.get(key);
    if (path) return path;
    const name = this.byName.get(key);
    if (name) return name;
    // Qualified further than the scope path: `module-lrucache-get` ends with `lrucache-get`.
    // The longest scope path that fits wins, if it is the only one that long.
    let best: string[] = [];
    let bestLength = 0;
    for (const [p, paths] of this.byPath) {
      if (!key.endsWith(`-${p}`) || p.length < bestLength) continue;
      best = p.length > bestLength ? [...paths] : [...best, ...paths];
      bestLength = p.length;
    }
    return best.length === 1 ? best : [];
  }
}

function add(map: Map<string, string[]>, key: string, value: string): void {
  if (!key) return;
  const list = map.get(key);
  if (!list) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}
