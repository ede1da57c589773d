/**
 * What a static profile says about a file when no comment speaks for it, and which of its definitions are its
 * main ones: both read the outline (symbols with their nesting, exported names) and the imports.
 */
import { parentPath, qualifiedName } from '../index/qualifiedName.js';
import type { CodeSymbol, SymbolKind, SummarySource } from '../index/types.js';

export type { SummarySource };

const SUMMARY_MAX = 320;
const MAX_MAIN_FUNCTIONS = 40;
const NAMES_PER_KIND = 4;
const NAMES_PER_LIST = 6;

/** Containers that only name a place (`namespace Shop`, `module Billing`): their members count as outer. */
const PLACES: ReadonlySet<SymbolKind> = new Set(['namespace', 'module']);
const CALLABLE_OR_CLASS: ReadonlySet<SymbolKind> = new Set(['class', 'function', 'method', 'struct', 'trait']);
const TYPE_LEVEL: ReadonlySet<SymbolKind> = new Set(['interface', 'type', 'enum']);
/** The order kinds are told in: types before the functions that use them. */
const KIND_ORDER: SymbolKind[] = ['class', 'struct', 'trait', 'interface', 'enum', 'type', 'function', 'method', 'constant', 'variable', 'namespace', 'module'];
const CLASS_LIKE: ReadonlySet<SymbolKind> = new Set(['class', 'struct', 'trait', 'interface', 'enum']);
const PLURAL: Record<string, string> = { class: 'classes' };

/** The enclosing paths of a symbol, innermost first: `a-b-c` gives `a-b`, `a`. */
function ancestorPaths(path: string): string[] {
  const paths: string[] = [];
  for (let at = path.lastIndexOf('-'); at > 0; at = path.lastIndexOf('-', at - 1)) paths.push(path.slice(0, at));
  return paths;
}

interface Layout {
  /** Definitions not nested in another definition of the file. */
  outer: CodeSymbol[];
  /** Namespaces and modules that hold the whole file (`namespace App;`, or the only top-level declaration). */
  wrappers: CodeSymbol[];
}

/**
 * The file's outer definitions. A namespace or module that wraps the whole file is a place, not a definition,
 * so its members are outer; a Go method of a type defined in another file is outer too.
 */
function layoutOf(symbols: CodeSymbol[]): Layout {
  const byPath = new Map(symbols.map((s) => [s.ast_path, s]));
  const topLevel = symbols.filter((s) => !ancestorPaths(s.ast_path).some((p) => byPath.has(p)));
  const parents = new Set(symbols.map(parentPath));
  const memberless = (place: CodeSymbol): boolean => !parents.has(place.ast_path);
  const onlyPlaces = topLevel.every((s) => PLACES.has(s.kind) || memberless(s));
  const wrapperPaths = new Set<string>();
  for (const symbol of symbols) {
    if (!PLACES.has(symbol.kind)) continue;
    const ancestors = ancestorPaths(symbol.ast_path).filter((p) => byPath.has(p));
    const parent = parentPath(symbol);
    const siblingsArePlaces = symbols.every((s) => parentPath(s) !== parent || PLACES.has(s.kind));
    const wraps = ancestors.length === 0 ? onlyPlaces || memberless(symbol) : wrapperPaths.has(parent) && siblingsArePlaces;
    if (wraps) wrapperPaths.add(symbol.ast_path);
  }
  const outer = symbols.filter((s) => !wrapperPaths.has(s.ast_path) && ancestorPaths(s.ast_path).every((p) => !byPath.has(p) || wrapperPaths.has(p)));
  return { outer, wrappers: symbols.filter((s) => wrapperPaths.has(s.ast_path)) };
}

/** `Limiter.Take` for a method whose type lives elsewhere; the bare name otherwise. */
function shownName(symbol: CodeSymbol, wrappers: ReadonlySet<string>): string {
  const parent = parentPath(symbol);
  return parent && !wrappers.has(parent) ? `${qualifiedName(parent)}.${symbol.name}` : symbol.name;
}

function list(names: string[], max: number): string {
  const shown = names.slice(0, max);
  const more = names.length - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${more} more`;
  if (shown.length < 2) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

export interface SummaryFacts {
  /** A header too short to be a summary (`Bulgarian [bg]`), which the sentence follows. */
  title?: string | undefined;
  fileType: string;
  symbols: CodeSymbol[];
  exports: string[];
  dependencies: string[];
  /** The file's strongest candidate terms, for a file that defines and imports nothing. */
  terms: string[];
  /** Top-level keys, for configuration files. */
  keys: string[];
}

/**
 * A sentence from what the file defines, exports and imports: "Defines class Address and functions
 * expandIPv6, parseIPv4 and 3 more; exports Address; uses net, ./util." Never just the language's name. A title
 * the file's header gives opens it: "Bulgarian [bg]: Defines and exports constant locale; uses dayjs."
 */
export function composeSummary(facts: SummaryFacts): string {
  const sentence = composedSentence(facts);
  return shorten(facts.title ? `${facts.title}: ${sentence}` : sentence);
}

function composedSentence(facts: SummaryFacts): string {
  const { outer, wrappers } = layoutOf(facts.symbols);
  const wrapperPaths = new Set(wrappers.map((p) => p.ast_path));
  const byKind = new Map<SymbolKind, string[]>();
  for (const symbol of outer) {
    const names = byKind.get(symbol.kind) ?? [];
    names.push(shownName(symbol, wrapperPaths));
    byKind.set(symbol.kind, names);
  }
  const groups = KIND_ORDER.filter((kind) => byKind.has(kind)).map((kind) => {
    const names = byKind.get(kind) ?? [];
    const noun = names.length > 1 ? (PLURAL[kind] ?? `${kind}s`) : kind;
    return `${noun} ${list(names, NAMES_PER_KIND)}`;
  });
  // A file that defines one class says what the class holds.
  const only = outer.length === 1 ? outer[0] : undefined;
  if (only && CLASS_LIKE.has(only.kind)) {
    const members = facts.symbols.filter((s) => parentPath(s) === only.ast_path).map((s) => s.name);
    if (members.length) groups[0] = `${groups[0]} with members ${list(members, NAMES_PER_LIST)}`;
  }
  const clauses: string[] = [];
  const definedNames = new Set(outer.map((s) => s.name));
  const allExported = facts.exports.length > 0 && facts.exports.length === definedNames.size && facts.exports.every((n) => definedNames.has(n));
  const place = wrappers[wrappers.length - 1];
  if (groups.length) {
    const where = place ? ` in ${place.kind} ${qualifiedName(place.ast_path)}` : '';
    clauses.push(`${allExported ? 'Defines and exports' : 'Defines'} ${list(groups, groups.length)}${where}`);
  } else if (place) {
    clauses.push(`Declares ${place.kind} ${qualifiedName(place.ast_path)}`);
  }
  if (facts.exports.length && !allExported) clauses.push(`exports ${list(facts.exports, NAMES_PER_LIST)}`);
  if (facts.dependencies.length) clauses.push(`uses ${list(facts.dependencies, NAMES_PER_LIST)}`);
  if (!clauses.length) {
    if (facts.keys.length) return `${facts.fileType} with keys ${facts.keys.slice(0, 8).join(', ')}.`;
    if (facts.terms.length) return `${facts.fileType} with top-level code only, mentioning ${list(facts.terms.slice(0, 5), 5)}.`;
    return `${facts.fileType} with no definitions, imports or words of note.`;
  }
  const sentence = clauses.join('; ');
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}

export function shorten(text: string): string {
  return text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 1).trimEnd()}…` : text;
}

/**
 * DeepCode lists "main functions or classes" (as `Class.method`). With definitions at any depth there can be
 * many, so the 40 kept are chosen by rank and listed in the file's order: outer exported callables and
 * classes, the other outer ones, the members of outer classes, type-level declarations, exported constants,
 * then functions nested in functions.
 */
export function mainFunctions(symbols: CodeSymbol[], exports: readonly string[]): string[] {
  const { outer } = layoutOf(symbols);
  const outerSet = new Set(outer);
  /** Members of outer classes come before functions nested in functions. */
  const outerClasses = new Set(outer.filter((s) => CLASS_LIKE.has(s.kind)).map((s) => s.ast_path));
  const exported = new Set(exports);
  const rank = (symbol: CodeSymbol): number => {
    const isOuter = outerSet.has(symbol);
    if (CALLABLE_OR_CLASS.has(symbol.kind)) {
      if (isOuter) return exported.has(symbol.name) || exported.size === 0 ? 0 : 1;
      return outerClasses.has(parentPath(symbol)) ? 2 : 5;
    }
    if (TYPE_LEVEL.has(symbol.kind)) return isOuter ? 3 : 6;
    if ((symbol.kind === 'constant' || symbol.kind === 'variable') && isOuter && exported.has(symbol.name)) return 4;
    return -1;
  };
  const ranked = symbols
    .map((symbol, order) => ({ symbol, order, rank: rank(symbol) }))
    .filter((entry) => entry.rank >= 0)
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .slice(0, MAX_MAIN_FUNCTIONS)
    .sort((a, b) => a.order - b.order);
  return ranked.map(({ symbol }) => qualifiedName(symbol.ast_path));
}
