/**
 * Symbols from a syntax tree: every named definition at any depth (functions inside functions and wrappers,
 * classes, methods, CommonJS and object-literal forms, module-level constants), each with its `ast_path`
 * (the enclosing named definitions joined with '-', as in seed 003: `Indexing-Tree-parse`), lines and doc
 * comment, and the names the file exports. candidates.ts finds the nodes that may define something, in
 * document order; here each is read by its language's resolver, and a stack of open definitions, compared
 * by offsets, gives each its scope. Anonymous wrappers (an IIFE, a callback) add nothing to a path.
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { CodeSymbol, SymbolKind } from '../index/types.js';
import { definitionCandidates } from './candidates.js';
import { docFor } from './comments.js';
import type { GrammarId } from './languages.js';

export { cleanDoc, moduleDoc } from './comments.js';

/** What a file defines and what it exports (names, for the languages that say so: JS/TS, Go, Rust). */
export interface Outline {
  symbols: CodeSymbol[];
  exports: string[];
}

/** What a candidate node defines. */
interface Definition {
  kind: SymbolKind;
  name: string;
  /** Scope to record under instead of the enclosing one (Go methods, `Foo.prototype.bar`, `A::b`). */
  scope?: string[];
  /** false for nodes that only open a scope (a Rust `impl`, a named object literal). */
  record?: boolean;
  exported?: boolean;
  /** Whether functions directly inside are methods; by default, when the definition is class-like. */
  members?: 'methods' | 'functions';
  /** An object literal whose direct members are definitions of this scope (`module.exports = { ... }`). */
  object?: Node | null;
  /** An exports object: its members are exported names. */
  exportsObject?: boolean;
}

/** An open definition while later nodes are read: everything starting before `end` is inside it. */
interface Frame {
  end: number;
  scope: string[];
  methods: boolean;
  objectStart: number;
  exportsObject: boolean;
}

interface Context {
  /** The innermost open definition, or null at the top (anonymous wrappers do not count). */
  frame: Frame | null;
  exports: Set<string>;
}

type Resolver = (node: Node, context: Context) => Definition | null;

interface LanguageSpec {
  definitions: Record<string, Resolver>;
  /** Module-level definitions found by a pass over the root's children (Python constants). */
  topLevel?: (root: Node, add: (node: Node, definition: Definition) => void) => void;
}

const CLASS_LIKE: ReadonlySet<SymbolKind> = new Set(['class', 'interface', 'struct', 'trait', 'enum', 'type']);
const MAX_DEPTH = 12;
const VALUES: ReadonlySet<SymbolKind> = new Set(['constant', 'variable']);
/** A name a reader can use: not a computed key such as `[(_a = new WeakMap(), …)]`. Empty for containers. */
const SENSIBLE_NAME = /^[^\s(),=;]{0,80}$/;

const field = (node: Node, name: string): Node | null => node.childForFieldName(name);
const nameOf = (node: Node): string | null => field(node, 'name')?.text ?? null;
const unquote = (text: string): string => text.replace(/^['"`]|['"`]$/g, '');

/** `(kind)`: a declaration whose name is its `name` field. */
function named(kind: SymbolKind): Resolver {
  return (node) => {
    const name = nameOf(node);
    return name ? { kind, name } : null;
  };
}

/** Whether a node sits in the object literal that the innermost frame opened (a direct member of it). */
const isMemberOf = (node: Node, frame: Frame | null): frame is Frame =>
  frame !== null && frame.objectStart >= 0 && node.parent?.startIndex === frame.objectStart;

// --- JavaScript and TypeScript -------------------------------------------------------------------------

const FUNCTION_VALUES = new Set(['arrow_function', 'function', 'function_expression', 'generator_function']);
const CLASS_VALUES = new Set(['class', 'class_expression']);
/** Values that name a dependency, not a definition: `const fs = require('fs')`. */
const IMPORTED_VALUE = /^(?:await\s+)?(?:require|import)\s*\(/;
/** Parents that already name a function value, so the function is not recorded a second time. */
const NAMING_PARENTS = new Set(['variable_declarator', 'pair', 'assignment_expression', 'field_definition', 'public_field_definition']);
/** `exports.x`, `module.exports.x`: the part after it is an exported name. */
const EXPORTS_MEMBER = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/;

/** Top-level declarations under `export` are exported; so is `export default` and `export { a }`. */
function jsExported(node: Node, context: Context): boolean {
  return context.frame === null && node.parent?.type === 'export_statement';
}

function jsDeclaration(kind: SymbolKind): Resolver {
  return (node, context) => {
    const name = nameOf(node);
    return name ? { kind, name, exported: jsExported(node, context) } : null;
  };
}

/** `const f = () => {}`, `const C = class {}`, `const api = { get() {} }`, and module-level constants. */
const jsVariable: Resolver = (node) => {
  const name = field(node, 'name');
  const value = field(node, 'value');
  if (!name || name.type !== 'identifier' || !value) return null;
  const statement = node.parent;
  const atModuleLevel = statement?.parent?.type === 'program' || statement?.parent?.type === 'export_statement';
  const exported = atModuleLevel && statement?.parent?.type === 'export_statement';
  if (FUNCTION_VALUES.has(value.type)) return { kind: 'function', name: name.text, exported };
  if (CLASS_VALUES.has(value.type)) return { kind: 'class', name: name.text, exported };
  if (value.type === 'object') {
    return { kind: 'constant', name: name.text, record: atModuleLevel, exported, object: value, members: 'methods' };
  }
  if (!atModuleLevel || IMPORTED_VALUE.test(value.text)) return null;
  const kind: SymbolKind = statement?.type === 'lexical_declaration' && statement.text.startsWith('const') ? 'constant' : 'variable';
  // `var self = this` names a receiver, not a definition.
  if (kind === 'variable' && !exported && /^(?:this|self|that)$/.test(value.text)) return null;
  return { kind, name: name.text, exported };
};

/**
 * Assignments that define: `exports.f = function`, `module.exports = { ... }`, `exports.save = save`,
 * `Foo.prototype.bar = function`, `Foo.prototype = { ... }`, `module.exports = class X {}`, `f = () => {}`.
 */
const jsAssignment: Resolver = (node, context) => {
  const left = field(node, 'left');
  const right = field(node, 'right');
  if (!left || !right) return null;
  const isFunction = FUNCTION_VALUES.has(right.type);
  if (left.type === 'identifier') return isFunction ? { kind: 'function', name: left.text } : null;
  if (left.type !== 'member_expression') return null;
  const target = left.text;
  const exportedName = EXPORTS_MEMBER.exec(target)?.[1];
  const wholeModule = target === 'module.exports' || target === 'exports';
  if (wholeModule) {
    if (right.type === 'object') return { kind: 'module', name: '', record: false, object: right, exportsObject: true, members: 'functions' };
    if (right.type === 'identifier') context.exports.add(right.text);
    const ownName = CLASS_VALUES.has(right.type) || isFunction ? nameOf(right) : null;
    if (!ownName) return null;
    return { kind: isFunction ? 'function' : 'class', name: ownName, exported: true };
  }
  const property = field(left, 'property')?.text ?? '';
  if (!property) return null;
  const prototype = /^([A-Za-z_$][\w$]*)\.prototype(?:\.[\w$]+)?$/.exec(target)?.[1];
  if (prototype && target.endsWith('.prototype')) {
    return right.type === 'object' ? { kind: 'class', name: prototype, record: false, object: right, members: 'methods' } : null;
  }
  const exported = exportedName !== undefined;
  if (isFunction) return { kind: prototype ? 'method' : 'function', name: property, scope: prototype ? [prototype] : undefined, exported };
  if (CLASS_VALUES.has(right.type)) return { kind: 'class', name: property, exported };
  if (right.type === 'object') return { kind: 'constant', name: property, record: exported && context.frame === null, exported, object: right, members: 'methods' };
  if (!exported) return null;
  if (right.type === 'identifier' || right.type === 'member_expression') {
    context.exports.add(property);
    return null;
  }
  // TypeScript's CommonJS output declares its exports first: `exports.a = exports.b = void 0;`.
  if (context.frame !== null || right.type === 'assignment_expression' || right.text === 'void 0' || IMPORTED_VALUE.test(right.text)) return null;
  return { kind: 'constant', name: property, exported };
};

/** `key: function () {}` and `key: { ... }` inside an object literal that a named definition holds. */
const jsPair: Resolver = (node, context) => {
  const frame = context.frame;
  const value = field(node, 'value');
  if (!value || !isMemberOf(node, frame)) return null;
  const key = unquote(field(node, 'key')?.text ?? '');
  if (!key) return null;
  if (frame.exportsObject && !FUNCTION_VALUES.has(value.type)) context.exports.add(key);
  if (FUNCTION_VALUES.has(value.type)) return { kind: 'function', name: key, exported: frame.exportsObject };
  if (value.type === 'object') return { kind: 'constant', name: key, record: false, object: value, members: 'methods' };
  return null;
};

/** `module.exports = { save, load }`: shorthand members of an exports object are exported names. */
const jsShorthand: Resolver = (node, context) => {
  if (context.frame?.exportsObject && isMemberOf(node, context.frame)) context.exports.add(node.text);
  return null;
};

/** Class methods always; object-literal methods when a named definition holds the object. */
const jsMethod: Resolver = (node, context) => {
  const name = nameOf(node);
  if (!name) return null;
  if (node.parent?.type === 'object' && !isMemberOf(node, context.frame)) return null;
  return { kind: 'function', name: unquote(name), exported: context.frame?.exportsObject === true };
};

/** `handle = () => {}` in a class body. */
const jsField: Resolver = (node) => {
  const name = field(node, 'property') ?? field(node, 'name');
  const value = field(node, 'value');
  if (!name || !value || !FUNCTION_VALUES.has(value.type)) return null;
  return { kind: 'function', name: name.text };
};

/** A named function expression passed along (`app.use(function logger() {})`); assigned ones are named by their target. */
const jsFunctionExpression: Resolver = (node) => {
  const name = nameOf(node);
  if (!name || NAMING_PARENTS.has(node.parent?.type ?? '')) return null;
  return { kind: 'function', name };
};

/** `export { a, b as c }` and `export default a`. */
const jsExportSpecifier: Resolver = (node, context) => {
  const name = field(node, 'alias') ?? field(node, 'name');
  if (name) context.exports.add(name.text);
  return null;
};

const jsExportStatement: Resolver = (node, context) => {
  const value = field(node, 'value');
  if (!value) return null;
  if (value.type === 'identifier') context.exports.add(value.text);
  if (value.type === 'object') return { kind: 'module', name: '', record: false, object: value, exportsObject: true, members: 'functions' };
  return null;
};

const JS_DEFINITIONS: Record<string, Resolver> = {
  function_declaration: jsDeclaration('function'),
  generator_function_declaration: jsDeclaration('function'),
  function_signature: jsDeclaration('function'),
  class_declaration: jsDeclaration('class'),
  abstract_class_declaration: jsDeclaration('class'),
  interface_declaration: jsDeclaration('interface'),
  type_alias_declaration: jsDeclaration('type'),
  enum_declaration: jsDeclaration('enum'),
  internal_module: jsDeclaration('namespace'),
  module: jsDeclaration('namespace'),
  method_definition: jsMethod,
  method_signature: jsMethod,
  abstract_method_signature: jsMethod,
  field_definition: jsField,
  public_field_definition: jsField,
  function_expression: jsFunctionExpression,
  generator_function: jsFunctionExpression,
  variable_declarator: jsVariable,
  assignment_expression: jsAssignment,
  pair: jsPair,
  shorthand_property_identifier: jsShorthand,
  export_specifier: jsExportSpecifier,
  export_statement: jsExportStatement,
};

// --- Go, Rust ------------------------------------------------------------------------------------------

const isCapitalised = (name: string): boolean => /^[A-Z]/.test(name);

/** `func (s *Server) Serve()` is `Server-Serve`. */
const goMethod: Resolver = (node) => {
  const name = nameOf(node);
  if (!name) return null;
  const receiver = field(node, 'receiver')?.text ?? '';
  const receiverType = /\*?\s*([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)$/.exec(receiver)?.[1];
  return { kind: 'method', name, scope: receiverType ? [receiverType] : [] };
};

const goTopLevel = (kind: SymbolKind): Resolver => (node, context) => {
  const name = nameOf(node);
  if (!name || name === '_') return null;
  if (kind !== 'function' && context.frame !== null) return null;
  return { kind, name, exported: context.frame === null && isCapitalised(name) };
};

const goTypeSpec: Resolver = (node, context) => {
  const name = nameOf(node);
  if (!name) return null;
  const type = field(node, 'type')?.type;
  const kind: SymbolKind = type === 'struct_type' ? 'struct' : type === 'interface_type' ? 'interface' : 'type';
  return { kind, name, exported: context.frame === null && isCapitalised(name) };
};

/** `pub fn`, `pub struct`: Rust's exports, at the top of the file. */
function rustItem(kind: SymbolKind): Resolver {
  return (node, context) => {
    const name = nameOf(node);
    if (!name) return null;
    const exported = context.frame === null && node.namedChild(0)?.type === 'visibility_modifier';
    return { kind, name, exported };
  };
}

/** `impl Trait for Type { ... }` opens the scope `Type` without being a symbol itself. */
const rustImpl: Resolver = (node) => {
  const type = field(node, 'type')?.text.replace(/<.*$/s, '');
  if (!type) return null;
  return { kind: 'class', name: type, record: false };
};

// --- C, C++ --------------------------------------------------------------------------------------------

const C_NAMES = ['identifier', 'field_identifier', 'qualified_identifier', 'destructor_name', 'operator_name', 'type_identifier'];

function innermostDeclarator(node: Node): Node | null {
  let declarator = field(node, 'declarator');
  while (declarator && !C_NAMES.includes(declarator.type)) declarator = field(declarator, 'declarator');
  return declarator;
}

/** C and C++ bury a function's name in nested declarators: `static int *parse(...)`, `Foo::bar(...)`. */
const cFunction: Resolver = (node, context) => {
  const declarator = innermostDeclarator(node);
  if (!declarator) return null;
  if (declarator.type === 'qualified_identifier') {
    const parts = declarator.text.split('::').map((p) => p.trim()).filter(Boolean);
    const name = parts.pop();
    if (!name) return null;
    return { kind: 'method', name, scope: [...(context.frame?.scope ?? []), ...parts] };
  }
  return { kind: 'function', name: declarator.text };
};

/** A struct/class/enum specifier counts only when it has a body: `struct point p;` is a use, not a definition. */
function cSpecifier(kind: SymbolKind): Resolver {
  return (node) => {
    const name = nameOf(node);
    if (!name || !field(node, 'body')) return null;
    return { kind, name };
  };
}

/** `typedef struct { ... } point_t;` names a type the struct alone does not. */
const cTypedef: Resolver = (node) => {
  const declarator = field(node, 'declarator');
  if (declarator?.type !== 'type_identifier') return null;
  return { kind: field(node, 'type')?.type === 'struct_specifier' ? 'struct' : 'type', name: declarator.text };
};

const C_DEFINITIONS: Record<string, Resolver> = {
  function_definition: cFunction,
  struct_specifier: cSpecifier('struct'),
  union_specifier: cSpecifier('struct'),
  enum_specifier: cSpecifier('enum'),
  type_definition: cTypedef,
};

// --- Python --------------------------------------------------------------------------------------------

/** Module-level `MAX_RETRIES = 3`: upper-case names are Python's constants. */
function pythonConstants(root: Node, add: (node: Node, definition: Definition) => void): void {
  for (const statement of root.namedChildren) {
    if (statement?.type !== 'expression_statement') continue;
    const assignment = statement.namedChild(0);
    if (assignment?.type !== 'assignment') continue;
    const left = field(assignment, 'left');
    if (left?.type === 'identifier' && /^[A-Z][A-Z0-9_]+$/.test(left.text)) add(assignment, { kind: 'constant', name: left.text });
  }
}

const SPECS: Record<GrammarId, LanguageSpec> = {
  javascript: { definitions: JS_DEFINITIONS },
  typescript: { definitions: JS_DEFINITIONS },
  tsx: { definitions: JS_DEFINITIONS },
  python: {
    definitions: { function_definition: named('function'), class_definition: named('class') },
    topLevel: pythonConstants,
  },
  go: {
    definitions: {
      function_declaration: goTopLevel('function'),
      method_declaration: goMethod,
      type_spec: goTypeSpec,
      const_spec: goTopLevel('constant'),
      var_spec: goTopLevel('variable'),
    },
  },
  rust: {
    definitions: {
      function_item: rustItem('function'),
      function_signature_item: named('function'),
      struct_item: rustItem('struct'),
      enum_item: rustItem('enum'),
      union_item: rustItem('struct'),
      trait_item: rustItem('trait'),
      type_item: rustItem('type'),
      mod_item: rustItem('module'),
      const_item: rustItem('constant'),
      static_item: rustItem('constant'),
      impl_item: rustImpl,
      macro_definition: named('function'),
    },
  },
  java: {
    definitions: {
      class_declaration: named('class'),
      interface_declaration: named('interface'),
      enum_declaration: named('enum'),
      record_declaration: named('class'),
      annotation_type_declaration: named('interface'),
      method_declaration: named('method'),
      constructor_declaration: named('method'),
    },
  },
  c: { definitions: C_DEFINITIONS },
  cpp: {
    definitions: {
      ...C_DEFINITIONS,
      class_specifier: cSpecifier('class'),
      namespace_definition: (node) => ({ kind: 'namespace', name: nameOf(node) ?? '(anonymous)' }),
    },
  },
  c_sharp: {
    definitions: {
      namespace_declaration: named('namespace'),
      file_scoped_namespace_declaration: named('namespace'),
      class_declaration: named('class'),
      interface_declaration: named('interface'),
      struct_declaration: named('struct'),
      record_declaration: named('class'),
      enum_declaration: named('enum'),
      method_declaration: named('method'),
      constructor_declaration: named('method'),
    },
  },
  ruby: {
    definitions: { module: named('module'), class: named('class'), method: named('function'), singleton_method: named('function') },
  },
  php: {
    definitions: {
      namespace_definition: named('namespace'),
      class_declaration: named('class'),
      interface_declaration: named('interface'),
      trait_declaration: named('trait'),
      enum_declaration: named('enum'),
      function_definition: named('function'),
      method_declaration: named('method'),
    },
  },
};

/** The symbols of a file, in document order. */
export function extractSymbols(tree: Tree, grammar: GrammarId, source: string = tree.rootNode.text): CodeSymbol[] {
  return extractOutline(tree, grammar, source).symbols;
}

export function extractOutline(tree: Tree, grammar: GrammarId, source: string = tree.rootNode.text): Outline {
  const spec = SPECS[grammar];
  const symbols: CodeSymbol[] = [];
  const exports = new Set<string>();
  const stack: Frame[] = [];
  const context: Context = { frame: null, exports };

  const rows = lineStarts(source);
  const add = (node: Node, definition: Definition, start = node.startIndex, end = node.endIndex): void => {
    const enclosing = context.frame;
    const scope = definition.scope ?? enclosing?.scope ?? [];
    if (scope.length >= MAX_DEPTH || !SENSIBLE_NAME.test(definition.name)) return;
    const kind: SymbolKind = definition.kind === 'function' && (enclosing?.methods || definition.scope) ? 'method' : definition.kind;
    const ownScope = definition.name ? [...scope, definition.name] : scope;
    if (definition.record !== false && definition.name) {
      const symbol: CodeSymbol = {
        kind,
        name: definition.name,
        ast_path: ownScope.join('-'),
        start_line: rowOf(rows, start) + 1,
        end_line: rowOf(rows, Math.max(start, end - 1)) + 1,
      };
      const doc = docFor(node, grammar, source, start);
      if (doc) symbol.doc = doc;
      symbols.push(symbol);
      if (definition.exported) exports.add(definition.name);
    }
    // A constant's initializer (`var X = (() => { class X {} return X; })()`) is not a scope of its own.
    if (VALUES.has(definition.kind) && !definition.object) return;
    const methods = definition.members ? definition.members === 'methods' : CLASS_LIKE.has(definition.kind) || (definition.record === false && definition.name !== '');
    stack.push({
      end,
      scope: ownScope,
      methods,
      objectStart: definition.object ? definition.object.startIndex : -1,
      exportsObject: definition.exportsObject === true,
    });
  };

  for (const { node, type, start, end } of definitionCandidates(tree, grammar, source)) {
    while (stack.length && (stack[stack.length - 1] as Frame).end <= start) stack.pop();
    context.frame = stack[stack.length - 1] ?? null;
    const resolve = spec.definitions[type];
    const definition = resolve ? resolve(node, context) : null;
    if (definition) add(node, definition, start, end);
  }
  if (spec.topLevel) {
    stack.length = 0;
    context.frame = null;
    const before = symbols.length;
    spec.topLevel(tree.rootNode, add);
    if (symbols.length > before) symbols.sort((a, b) => a.start_line - b.start_line);
  }
  return { symbols, exports: [...exports] };
}

/** Offsets where each line starts, so a node's lines come from its offsets without asking the tree. */
function lineStarts(source: string): number[] {
  const starts = [0];
  for (let at = source.indexOf('\n'); at >= 0; at = source.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

function rowOf(starts: number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] as number) <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}
