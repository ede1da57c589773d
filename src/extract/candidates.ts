/**
 * Where definitions may be, found cheaply. Walking every node of a tree costs about half a parse, so the
 * nodes that may define something are found two ways instead, and handed on in document order:
 * - a structural walk through the file's top level and the bodies that hold declarations (classes,
 *   namespaces, impls, object literals assigned to names), never into a function body;
 * - keyword anchors: every `function`, `=>`, `class`, `def`, `fn`… in the text (and, in JavaScript,
 *   `exports` and `prototype`) is looked up in the tree, so definitions inside function bodies and
 *   wrappers (an IIFE, a UMD factory, a closure) are found without visiting the nodes around them. A word
 *   inside a string or a comment resolves to a string or comment node and is dropped.
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { GrammarId } from './languages.js';

interface WalkSpec {
  /** Node types that may be definitions (what the resolvers of symbols.ts read). */
  candidates: ReadonlySet<string>;
  /** Nodes walked through: the top level, export and declaration wrappers, class and namespace bodies. */
  transparent: ReadonlySet<string>;
  /** The nodes under a definition that hold further declarations. */
  bodies: (node: Node) => Array<Node | null>;
  /** Words that start a definition, and the candidate a matched word's node belongs to. */
  anchors?: { words: string[]; candidate: (token: Node, take: (node: Node) => void) => Node | null };
}

const field = (node: Node, name: string): Node | null => node.childForFieldName(name);

/** The body fields of container declarations, by node type. */
function bodyFields(fields: Record<string, string>): (node: Node) => Array<Node | null> {
  return (node) => {
    const name = fields[node.type];
    return name ? [field(node, name)] : [];
  };
}

/** `token`'s parent when it has one of `types`. */
function parentOfType(token: Node, types: ReadonlySet<string>): Node | null {
  const parent = token.parent;
  return parent && types.has(parent.type) ? parent : null;
}

// --- JavaScript and TypeScript ---------------------------------------------------------------------------

const JS_CANDIDATES = new Set([
  'function_declaration', 'generator_function_declaration', 'function_signature', 'class_declaration',
  'abstract_class_declaration', 'interface_declaration', 'type_alias_declaration', 'enum_declaration',
  'internal_module', 'module', 'method_definition', 'method_signature', 'abstract_method_signature',
  'field_definition', 'public_field_definition', 'function_expression', 'function', 'generator_function',
  'class', 'variable_declarator', 'assignment_expression', 'pair', 'shorthand_property_identifier',
  'export_specifier', 'export_statement',
]);

const JS_FUNCTIONS = new Set(['function_declaration', 'generator_function_declaration', 'function_expression', 'function', 'generator_function']);
const JS_CLASSES = new Set(['class_declaration', 'abstract_class_declaration', 'class']);
/** Where a function or class value gets its name. */
const JS_NAMING = new Set(['variable_declarator', 'pair', 'assignment_expression', 'field_definition', 'public_field_definition']);

function jsBodies(node: Node): Array<Node | null> {
  switch (node.type) {
    case 'class_declaration':
    case 'abstract_class_declaration':
    case 'class':
    case 'interface_declaration':
    case 'internal_module':
    case 'module':
      return [field(node, 'body')];
    case 'variable_declarator':
    case 'assignment_expression': {
      const value = field(node, node.type === 'assignment_expression' ? 'right' : 'value');
      if (value?.type === 'object') return [value];
      return value && JS_CLASSES.has(value.type) ? [field(value, 'body')] : [];
    }
    case 'export_statement': {
      const value = field(node, 'value');
      return [node, value?.type === 'object' ? value : null];
    }
    default:
      return [];
  }
}

/** A function or class value is named by what holds it: `const f = () => {}`, `{ f: function () {} }`. */
function jsNamed(value: Node): Node {
  const holder = value.parent;
  return holder && JS_NAMING.has(holder.type) ? holder : value;
}

/** `exports.save = save`, `module.exports.x = …`, `Foo.prototype = { … }`: the assignment a word sits in. */
function jsAssignmentOf(token: Node): Node | null {
  let node: Node | null = token.parent;
  for (let hops = 0; node?.type === 'member_expression' && hops < 3; hops++) node = node.parent;
  return node?.type === 'assignment_expression' ? node : null;
}

/** Objects are walked one level deep; a function further in brings the named objects around it. */
const JS_OBJECT_HOLDERS = new Set(['variable_declarator', 'assignment_expression', 'pair', 'export_statement']);

function jsAnchor(token: Node, take: (node: Node) => void): Node | null {
  let found: Node | null = null;
  switch (token.type) {
    case 'function': {
      const fn = parentOfType(token, JS_FUNCTIONS);
      found = fn ? jsNamed(fn) : null;
      break;
    }
    case '=>': {
      const arrow = token.parent;
      const holder = arrow?.type === 'arrow_function' ? arrow.parent : null;
      found = holder && JS_NAMING.has(holder.type) ? holder : null;
      break;
    }
    case 'class': {
      const cls = parentOfType(token, JS_CLASSES);
      found = cls ? jsNamed(cls) : null;
      break;
    }
    case 'identifier':
    case 'property_identifier':
      return jsAssignmentOf(token);
    default:
      return null;
  }
  for (let member = found; member?.type === 'pair'; ) {
    const object = member.parent;
    const holder = object?.type === 'object' ? object.parent : null;
    if (!holder || !JS_OBJECT_HOLDERS.has(holder.type)) break;
    take(holder);
    member = holder;
  }
  return found;
}

const JS_WALK: WalkSpec = {
  candidates: JS_CANDIDATES,
  transparent: new Set(['program', 'class_body', 'interface_body', 'object_type', 'statement_block', 'lexical_declaration', 'variable_declaration', 'expression_statement', 'ambient_declaration', 'export_clause']),
  bodies: jsBodies,
  anchors: { words: ['function', '=>', 'class', 'exports', '.prototype'], candidate: jsAnchor },
};

// --- The other languages ---------------------------------------------------------------------------------

/** Anchors whose word is a keyword token directly under the definition node. */
function keywordAnchors(words: string[], definitions: string[]): WalkSpec['anchors'] {
  const types = new Set(definitions);
  return { words, candidate: (token) => (words.includes(token.type) ? parentOfType(token, types) : null) };
}

const C_TRANSPARENT = new Set([
  'translation_unit', 'preproc_ifdef', 'preproc_if', 'preproc_else', 'preproc_elif', 'linkage_specification',
  'declaration_list', 'field_declaration_list', 'type_definition', 'declaration', 'template_declaration',
  'field_declaration', 'access_specifier',
]);
const C_CANDIDATES = ['function_definition', 'struct_specifier', 'union_specifier', 'enum_specifier', 'type_definition'];
const C_BODIES = { struct_specifier: 'body', union_specifier: 'body', enum_specifier: 'body' };

const WALKS: Record<GrammarId, WalkSpec> = {
  javascript: JS_WALK,
  typescript: JS_WALK,
  tsx: JS_WALK,
  python: {
    candidates: new Set(['function_definition', 'class_definition']),
    transparent: new Set(['module', 'decorated_definition', 'block']),
    bodies: bodyFields({ class_definition: 'body' }),
    anchors: keywordAnchors(['def', 'class'], ['function_definition', 'class_definition']),
  },
  go: {
    candidates: new Set(['function_declaration', 'method_declaration', 'type_spec', 'const_spec', 'var_spec']),
    transparent: new Set(['source_file', 'type_declaration', 'const_declaration', 'var_declaration']),
    bodies: () => [],
  },
  rust: {
    candidates: new Set(['function_item', 'function_signature_item', 'struct_item', 'enum_item', 'union_item', 'trait_item', 'type_item', 'mod_item', 'const_item', 'static_item', 'impl_item', 'macro_definition']),
    transparent: new Set(['source_file', 'declaration_list']),
    bodies: bodyFields({ trait_item: 'body', mod_item: 'body', impl_item: 'body' }),
    anchors: keywordAnchors(['fn', 'impl', 'struct', 'enum', 'trait', 'mod'], ['function_item', 'impl_item', 'struct_item', 'enum_item', 'trait_item', 'mod_item']),
  },
  java: {
    candidates: new Set(['class_declaration', 'interface_declaration', 'enum_declaration', 'record_declaration', 'annotation_type_declaration', 'method_declaration', 'constructor_declaration']),
    transparent: new Set(['program', 'class_body', 'interface_body', 'enum_body', 'enum_body_declarations']),
    bodies: bodyFields({ class_declaration: 'body', interface_declaration: 'body', enum_declaration: 'body', record_declaration: 'body', annotation_type_declaration: 'body' }),
    anchors: keywordAnchors(['class', 'interface', 'enum', 'record'], ['class_declaration', 'interface_declaration', 'enum_declaration', 'record_declaration']),
  },
  c: { candidates: new Set(C_CANDIDATES), transparent: C_TRANSPARENT, bodies: bodyFields(C_BODIES) },
  cpp: {
    candidates: new Set([...C_CANDIDATES, 'class_specifier', 'namespace_definition']),
    transparent: C_TRANSPARENT,
    bodies: bodyFields({ ...C_BODIES, class_specifier: 'body', namespace_definition: 'body' }),
  },
  c_sharp: {
    candidates: new Set(['namespace_declaration', 'file_scoped_namespace_declaration', 'class_declaration', 'interface_declaration', 'struct_declaration', 'record_declaration', 'enum_declaration', 'method_declaration', 'constructor_declaration']),
    transparent: new Set(['compilation_unit', 'declaration_list']),
    bodies: bodyFields({ namespace_declaration: 'body', class_declaration: 'body', interface_declaration: 'body', struct_declaration: 'body', record_declaration: 'body' }),
    anchors: keywordAnchors(['class', 'interface', 'struct', 'record'], ['class_declaration', 'interface_declaration', 'struct_declaration', 'record_declaration']),
  },
  ruby: {
    candidates: new Set(['module', 'class', 'method', 'singleton_method']),
    transparent: new Set(['program', 'body_statement', 'begin_block']),
    // Ruby classes and modules keep their members directly under the declaration node.
    bodies: (node) => (node.type === 'module' || node.type === 'class' ? [node] : []),
    anchors: keywordAnchors(['def', 'class', 'module'], ['method', 'singleton_method', 'class', 'module']),
  },
  php: {
    candidates: new Set(['namespace_definition', 'class_declaration', 'interface_declaration', 'trait_declaration', 'enum_declaration', 'function_definition', 'method_declaration']),
    transparent: new Set(['program', 'declaration_list', 'compound_statement', 'enum_declaration_list']),
    bodies: bodyFields({ namespace_definition: 'body', class_declaration: 'body', interface_declaration: 'body', trait_declaration: 'body', enum_declaration: 'body' }),
    anchors: keywordAnchors(['function', 'class'], ['function_definition', 'class_declaration']),
  },
};

/** A node that may define something, with the offsets and type read once (each read crosses into wasm). */
export interface Candidate {
  node: Node;
  type: string;
  start: number;
  end: number;
}

/** The nodes that may define something, each once, outer before inner, in document order. */
export function definitionCandidates(tree: Tree, grammar: GrammarId, source: string): Candidate[] {
  const walk = WALKS[grammar];
  const found: Candidate[] = [];
  const seen = new Set<string>();
  const take = (node: Node): boolean => {
    const candidate = { node, type: node.type, start: node.startIndex, end: node.endIndex };
    const key = `${candidate.start}:${candidate.end}:${candidate.type}`;
    if (seen.has(key)) return false;
    seen.add(key);
    found.push(candidate);
    return true;
  };
  const visit = (parent: Node, depth: number): void => {
    if (depth > 24) return;
    // All at once: `namedChild(i)` crosses into wasm twice per child and scans the children from the first.
    for (const node of parent.namedChildren) {
      if (!node) continue;
      const type = node.type;
      if (walk.candidates.has(type)) {
        if (take(node)) enterBodies(node, depth);
      } else if (walk.transparent.has(type)) {
        visit(node, depth + 1);
      }
    }
  };
  const enterBodies = (node: Node, depth: number): void => {
    for (const body of walk.bodies(node)) if (body) visit(body, depth + 1);
  };
  const root = tree.rootNode;
  visit(root, 0);
  if (walk.anchors) {
    const { words, candidate } = walk.anchors;
    for (const offset of wordOffsets(source, words)) {
      const token = root.descendantForIndex(offset, offset + 1);
      const node = token ? candidate(token, (holder) => take(holder) && enterBodies(holder, 1)) : null;
      if (node && take(node)) enterBodies(node, 1);
    }
  }
  return found.sort((a, b) => a.start - b.start || b.end - a.end);
}

const isWordChar = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36;

/**
 * Where the words start in the text, as whole words (`.prototype` yields the offset of `prototype`).
 * `indexOf` per word is several times faster than one regular expression with word boundaries.
 */
function wordOffsets(source: string, words: string[]): number[] {
  const offsets: number[] = [];
  for (const word of words) {
    const skip = word.startsWith('.') ? 1 : 0;
    const alphabetic = isWordChar(word.charCodeAt(word.length - 1));
    for (let at = source.indexOf(word); at >= 0; at = source.indexOf(word, at + word.length)) {
      if (alphabetic && (isWordChar(source.charCodeAt(at + word.length)) || (!skip && at > 0 && isWordChar(source.charCodeAt(at - 1))))) continue;
      offsets.push(at + skip);
    }
  }
  return offsets;
}
