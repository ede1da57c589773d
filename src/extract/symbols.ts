/**
 * Symbols from a syntax tree: functions, classes, methods and the other named elements of a file, each with
 * its `ast_path` (enclosing scopes joined with '-', as in seed 003: `Indexing-Tree-parse`), lines and doc
 * comment. The walk visits declarations and the bodies that hold declarations; it never descends into a
 * function body, which keeps it cheap beside the parse.
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { CodeSymbol, SymbolKind } from '../index/types.js';
import type { GrammarId } from './languages.js';

/** What a declaration node defines. `body` is where its members live (walked with the name as scope). */
interface Definition {
  kind: SymbolKind;
  name: string;
  body?: Node | null;
  /** Scope to record and walk under instead of the enclosing one (Go methods, Rust impls). */
  scope?: string[];
  /** false for nodes that only open a scope (a Rust `impl`): their members are recorded, they are not. */
  record?: boolean;
}

type Resolver = (node: Node, scope: string[]) => Definition | null;

interface LanguageSpec {
  definitions: Record<string, Resolver>;
  /** Nodes walked through with the same scope: bodies, export wrappers, decorators, preprocessor blocks. */
  transparent: ReadonlySet<string>;
}

const CLASS_LIKE: ReadonlySet<SymbolKind> = new Set(['class', 'interface', 'struct', 'trait', 'enum']);

const field = (node: Node, name: string): Node | null => node.childForFieldName(name);
const nameOf = (node: Node): string | null => field(node, 'name')?.text ?? null;

/** `(kind)`: a declaration whose name is its `name` field; containers walk their `body` field. */
function named(kind: SymbolKind, bodyField: string | null = null): Resolver {
  return (node) => {
    const name = nameOf(node);
    if (!name) return null;
    return { kind, name, body: bodyField ? field(node, bodyField) : null };
  };
}

const FUNCTION_VALUES = new Set(['arrow_function', 'function', 'function_expression', 'generator_function']);
const CLASS_VALUES = new Set(['class', 'class_expression']);

/** `const f = () => {}` and `const C = class {}`: JavaScript's other way to declare. */
const jsVariable: Resolver = (node) => {
  const name = field(node, 'name');
  const value = field(node, 'value');
  if (!name || name.type !== 'identifier' || !value) return null;
  if (FUNCTION_VALUES.has(value.type)) return { kind: 'function', name: name.text };
  if (CLASS_VALUES.has(value.type)) return { kind: 'class', name: name.text, body: field(value, 'body') };
  return null;
};

/** `exports.f = function`, `module.exports = class X {}`, `Foo.prototype.bar = function`. */
const jsAssignment: Resolver = (node) => {
  const left = field(node, 'left');
  const right = field(node, 'right');
  if (!left || !right || left.type !== 'member_expression') return null;
  const object = field(left, 'object')?.text ?? '';
  const property = field(left, 'property')?.text ?? '';
  if (right.type === 'object' && /(^|\.)exports$/.test(left.text)) return { kind: 'module', name: '', body: right, record: false };
  if (CLASS_VALUES.has(right.type)) {
    const className = nameOf(right) ?? (property === 'exports' ? null : property);
    return className ? { kind: 'class', name: className, body: field(right, 'body') } : null;
  }
  if (!FUNCTION_VALUES.has(right.type) || !property) return null;
  const prototype = /^([A-Za-z_$][\w$]*)\.prototype$/.exec(object);
  if (prototype?.[1]) return { kind: 'method', name: property, scope: [prototype[1]] };
  return { kind: 'function', name: property };
};

/** Object-literal methods are recorded only inside `module.exports = { ... }`-style containers. */
const jsPair: Resolver = (node) => {
  const key = field(node, 'key');
  const value = field(node, 'value');
  if (!key || !value || !FUNCTION_VALUES.has(value.type)) return null;
  return { kind: 'function', name: key.text.replace(/^['"]|['"]$/g, '') };
};

const JS_DEFINITIONS: Record<string, Resolver> = {
  function_declaration: named('function'),
  generator_function_declaration: named('function'),
  function_signature: named('function'),
  class_declaration: named('class', 'body'),
  abstract_class_declaration: named('class', 'body'),
  method_definition: named('method'),
  method_signature: named('method'),
  abstract_method_signature: named('method'),
  interface_declaration: named('interface', 'body'),
  type_alias_declaration: named('type'),
  enum_declaration: named('enum'),
  internal_module: named('namespace', 'body'),
  module: named('namespace', 'body'),
  variable_declarator: jsVariable,
  assignment_expression: jsAssignment,
};

const JS_TRANSPARENT = new Set([
  'program', 'export_statement', 'class_body', 'interface_body', 'object_type', 'statement_block',
  'lexical_declaration', 'variable_declaration', 'expression_statement', 'ambient_declaration',
]);

/** `func (s *Server) Serve()` is `Server-Serve`. */
const goMethod: Resolver = (node) => {
  const name = nameOf(node);
  if (!name) return null;
  const receiver = field(node, 'receiver')?.text ?? '';
  const receiverType = /\*?\s*([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)$/.exec(receiver)?.[1];
  return { kind: 'method', name, scope: receiverType ? [receiverType] : [] };
};

const goTypeSpec: Resolver = (node) => {
  const name = nameOf(node);
  if (!name) return null;
  const type = field(node, 'type')?.type;
  const kind: SymbolKind = type === 'struct_type' ? 'struct' : type === 'interface_type' ? 'interface' : 'type';
  return { kind, name };
};

/** `impl Trait for Type { ... }` opens the scope `Type` without being a symbol itself. */
const rustImpl: Resolver = (node) => {
  const type = field(node, 'type')?.text.replace(/<.*$/s, '');
  if (!type) return null;
  return { kind: 'class', name: type, body: field(node, 'body'), record: false };
};

/** C and C++ bury a function's name in nested declarators: `static int *parse(...)`, `Foo::bar(...)`. */
const cFunction: Resolver = (node, scope) => {
  let declarator = field(node, 'declarator');
  while (declarator && !['identifier', 'field_identifier', 'qualified_identifier', 'destructor_name', 'operator_name'].includes(declarator.type)) {
    declarator = field(declarator, 'declarator');
  }
  if (!declarator) return null;
  if (declarator.type === 'qualified_identifier') {
    const parts = declarator.text.split('::').map((p) => p.trim()).filter(Boolean);
    const name = parts.pop();
    if (!name) return null;
    return { kind: 'method', name, scope: [...scope, ...parts] };
  }
  return { kind: 'function', name: declarator.text };
};

/** A struct/class/enum specifier counts only when it has a body: `struct point p;` is a use, not a definition. */
function cSpecifier(kind: SymbolKind): Resolver {
  return (node) => {
    const name = nameOf(node);
    const body = field(node, 'body');
    if (!name || !body) return null;
    return { kind, name, body };
  };
}

const C_TRANSPARENT = new Set([
  'translation_unit', 'preproc_ifdef', 'preproc_if', 'preproc_else', 'preproc_elif', 'linkage_specification',
  'declaration_list', 'field_declaration_list', 'type_definition', 'declaration', 'template_declaration',
  'field_declaration', 'access_specifier',
]);

const SPECS: Record<GrammarId, LanguageSpec> = {
  javascript: { definitions: { ...JS_DEFINITIONS, pair: jsPair }, transparent: JS_TRANSPARENT },
  typescript: { definitions: JS_DEFINITIONS, transparent: JS_TRANSPARENT },
  tsx: { definitions: JS_DEFINITIONS, transparent: JS_TRANSPARENT },
  python: {
    definitions: { function_definition: named('function'), class_definition: named('class', 'body') },
    transparent: new Set(['module', 'decorated_definition', 'block']),
  },
  go: {
    definitions: { function_declaration: named('function'), method_declaration: goMethod, type_spec: goTypeSpec },
    transparent: new Set(['source_file', 'type_declaration']),
  },
  rust: {
    definitions: {
      function_item: named('function'),
      function_signature_item: named('function'),
      struct_item: named('struct'),
      enum_item: named('enum'),
      union_item: named('struct'),
      trait_item: named('trait', 'body'),
      type_item: named('type'),
      mod_item: named('module', 'body'),
      impl_item: rustImpl,
      macro_definition: named('function'),
    },
    transparent: new Set(['source_file', 'declaration_list']),
  },
  java: {
    definitions: {
      class_declaration: named('class', 'body'),
      interface_declaration: named('interface', 'body'),
      enum_declaration: named('enum', 'body'),
      record_declaration: named('class', 'body'),
      annotation_type_declaration: named('interface', 'body'),
      method_declaration: named('method'),
      constructor_declaration: named('method'),
    },
    transparent: new Set(['program', 'class_body', 'interface_body', 'enum_body', 'enum_body_declarations']),
  },
  c: {
    definitions: {
      function_definition: cFunction,
      struct_specifier: cSpecifier('struct'),
      union_specifier: cSpecifier('struct'),
      enum_specifier: cSpecifier('enum'),
    },
    transparent: C_TRANSPARENT,
  },
  cpp: {
    definitions: {
      function_definition: cFunction,
      struct_specifier: cSpecifier('struct'),
      union_specifier: cSpecifier('struct'),
      enum_specifier: cSpecifier('enum'),
      class_specifier: cSpecifier('class'),
      namespace_definition: (node) => ({ kind: 'namespace', name: nameOf(node) ?? '(anonymous)', body: field(node, 'body') }),
    },
    transparent: C_TRANSPARENT,
  },
  c_sharp: {
    definitions: {
      namespace_declaration: named('namespace', 'body'),
      file_scoped_namespace_declaration: named('namespace'),
      class_declaration: named('class', 'body'),
      interface_declaration: named('interface', 'body'),
      struct_declaration: named('struct', 'body'),
      record_declaration: named('class', 'body'),
      enum_declaration: named('enum'),
      method_declaration: named('method'),
      constructor_declaration: named('method'),
    },
    transparent: new Set(['compilation_unit', 'declaration_list']),
  },
  ruby: {
    definitions: {
      module: named('module'),
      class: named('class'),
      method: named('function'),
      singleton_method: named('function'),
    },
    transparent: new Set(['program', 'body_statement', 'begin_block']),
  },
  php: {
    definitions: {
      namespace_definition: (node) => {
        const name = nameOf(node);
        return name ? { kind: 'namespace', name, body: field(node, 'body') } : null;
      },
      class_declaration: named('class', 'body'),
      interface_declaration: named('interface', 'body'),
      trait_declaration: named('trait', 'body'),
      enum_declaration: named('enum', 'body'),
      function_definition: named('function'),
      method_declaration: named('method'),
    },
    transparent: new Set(['program', 'declaration_list', 'compound_statement', 'enum_declaration_list']),
  },
};

/** Ruby classes and modules keep their members directly under the declaration node, not in a `body` field. */
const WALK_DECLARATION_ITSELF = new Set(['module', 'class']);

export function extractSymbols(tree: Tree, grammar: GrammarId): CodeSymbol[] {
  const spec = SPECS[grammar];
  const symbols: CodeSymbol[] = [];
  const visit = (parent: Node, scope: string[], inClass: boolean, depth: number): void => {
    if (depth > 12) return;
    for (let i = 0; i < parent.namedChildCount; i++) {
      const node = parent.namedChild(i);
      if (!node) continue;
      const resolve = spec.definitions[node.type];
      const definition = resolve ? resolve(node, scope) : null;
      if (definition) {
        const ownScope = definition.scope ?? scope;
        // Functions inside classes are methods; methods of an exported object literal are the module's functions.
        const kind: SymbolKind =
          definition.kind === 'function' && (inClass || definition.scope) ? 'method'
          : definition.kind === 'method' && parent.type === 'object' ? 'function'
          : definition.kind;
        if (definition.record !== false) {
          const symbol: CodeSymbol = {
            kind,
            name: definition.name,
            ast_path: [...ownScope, definition.name].join('-'),
            start_line: node.startPosition.row + 1,
            end_line: node.endPosition.row + 1,
          };
          const doc = docFor(node, grammar);
          if (doc) symbol.doc = doc;
          symbols.push(symbol);
        }
        const body = definition.body ?? (grammar === 'ruby' && WALK_DECLARATION_ITSELF.has(node.type) ? node : null);
        if (body) {
          const classLike = CLASS_LIKE.has(definition.kind) || (definition.record === false && definition.name !== '');
          visit(body, definition.name ? [...ownScope, definition.name] : ownScope, classLike, depth + 1);
        }
      } else if (spec.transparent.has(node.type)) {
        visit(node, scope, inClass, depth + 1);
      }
    }
  };
  visit(tree.rootNode, [], false, 0);
  return symbols;
}

const DOC_MAX = 240;

/** The comment block right above a declaration (or its export/decorator wrapper), or a Python docstring. */
function docFor(node: Node, grammar: GrammarId): string | undefined {
  if (grammar === 'python') {
    const body = field(node, 'body');
    const first = body?.namedChild(0);
    if (first?.type === 'expression_statement' && first.namedChild(0)?.type === 'string') {
      return cleanDoc(first.namedChild(0)?.text ?? '');
    }
  }
  let anchor: Node = node;
  while (anchor.parent && ['export_statement', 'decorated_definition', 'template_declaration', 'lexical_declaration', 'variable_declaration', 'expression_statement'].includes(anchor.parent.type)) {
    anchor = anchor.parent;
  }
  const lines: string[] = [];
  let next = anchor;
  let previous = anchor.previousNamedSibling;
  while (previous && previous.type.includes('comment') && next.startPosition.row - previous.endPosition.row <= 1) {
    lines.unshift(previous.text);
    next = previous;
    previous = previous.previousNamedSibling;
  }
  return lines.length ? cleanDoc(lines.join('\n')) : undefined;
}

/** Strips comment markers and returns the first paragraph, shortened. */
export function cleanDoc(raw: string): string | undefined {
  const text = raw
    .replace(/^\s*(\/\*\*?|\*\/|'''|"""|[rRuUbB]?"""|[rRuUbB]?''')/gm, '')
    .replace(/(\*\/|'''|""")\s*$/gm, '')
    .split('\n')
    .map((line) => line.replace(/^\s*(\/\/[/!]?|#+!?|\*|--|;+)\s?/, '').trimEnd())
    .join('\n')
    .replace(/<\/?(summary|remarks|para|c|code|see[^>]*|param[^>]*|returns)>/g, '')
    .trim();
  const paragraph = text.split(/\n\s*\n/)[0]?.replace(/\s+/g, ' ').trim();
  if (!paragraph || /^(@|eslint|prettier|tslint|istanbul|jshint|noqa|pylint|type:|-\*-)/i.test(paragraph)) return undefined;
  return paragraph.length > DOC_MAX ? `${paragraph.slice(0, DOC_MAX - 1).trimEnd()}…` : paragraph;
}

/**
 * The file's own doc: a leading comment block (licence headers and shebangs skipped), a Python module
 * docstring, or Rust's `//!` inner docs.
 */
export function moduleDoc(tree: Tree, grammar: GrammarId): string | undefined {
  const root = tree.rootNode;
  const blocks: string[] = [];
  for (let i = 0; i < root.namedChildCount && i < 8; i++) {
    const node = root.namedChild(i);
    if (!node) break;
    if (grammar === 'python' && node.type === 'expression_statement' && node.namedChild(0)?.type === 'string') {
      return cleanDoc(node.namedChild(0)?.text ?? '');
    }
    if (node.type.includes('comment')) {
      blocks.push(node.text);
      continue;
    }
    if (['package_clause', 'package_declaration', 'namespace_declaration', 'php_tag', 'hash_bang_line', 'preproc_ifdef'].includes(node.type) && blocks.length === 0) {
      continue;
    }
    break;
  }
  const grouped = blocks.join('\n').split(/\n(?=\s*\/\*)/);
  for (const block of grouped) {
    if (/copyright|licen[cs]e|spdx|all rights reserved|@flow|eslint-disable|^\s*#!/i.test(block)) continue;
    const doc = cleanDoc(block);
    if (doc && doc.length > 12) return doc;
  }
  return undefined;
}
