/**
 * A pool of web-tree-sitter parsers, one per grammar, created per run and loaded on first use. Parsing is
 * synchronous inside the wasm module, so one parser per grammar suffices; trees are deleted by the caller's
 * `withTree` scope so wasm memory stays flat however many files pass through.
 */
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import path from 'node:path';
import { Language, Parser, type Tree } from 'web-tree-sitter';
import type { GrammarId } from './languages.js';

const require = createRequire(import.meta.url);

let initialised: Promise<void> | null = null;

/**
 * Before any grammar is compiled, trade peak parse speed for start-up time. V8 tiers hot wasm up to its
 * optimising compiler, and a grammar's lexer is one enormous function: the first file of each language
 * then waits for seconds of compilation (2.2 s for C# here), which dominates a run over a few hundred files.
 * The baseline compiler alone parses about half as fast, which only a large run notices. The flag is
 * process-wide and cannot be undone, so only the first decision counts.
 */
export function preferFastStartup(): void {
  if (!initialised && !fastStartup) {
    v8.setFlagsFromString('--liftoff-only');
    fastStartup = true;
  }
}

let fastStartup = false;

/** Emscripten's runtime is process-wide; initialising it twice is wasted work, not a second state. */
function initRuntime(): Promise<void> {
  initialised ??= Parser.init();
  return initialised;
}

function grammarPath(grammar: GrammarId): string {
  const pkgDir = path.dirname(require.resolve('tree-sitter-wasms/package.json'));
  return path.join(pkgDir, 'out', `tree-sitter-${grammar}.wasm`);
}

export class ParserPool {
  private readonly parsers = new Map<GrammarId, Promise<Parser>>();
  /** Grammars are loaded one at a time: concurrent loads race in the wasm dynamic linker's symbol table. */
  private loading: Promise<unknown> = Promise.resolve();

  private parserFor(grammar: GrammarId): Promise<Parser> {
    let parser = this.parsers.get(grammar);
    if (!parser) {
      parser = this.loading.then(async () => {
        await initRuntime();
        const language = await Language.load(grammarPath(grammar));
        const p = new Parser();
        p.setLanguage(language);
        return p;
      });
      this.loading = parser.catch(() => undefined);
      this.parsers.set(grammar, parser);
    }
    return parser;
  }

  /** Parses `source` and hands the tree to `use`; the tree is freed afterwards, whatever `use` does. */
  async withTree<T>(grammar: GrammarId, source: string, use: (tree: Tree) => T): Promise<T> {
    const parser = await this.parserFor(grammar);
    const tree = parser.parse(source);
    if (!tree) throw new Error(`tree-sitter returned no tree for a ${grammar} file`);
    try {
      return use(tree);
    } finally {
      tree.delete();
    }
  }

  async dispose(): Promise<void> {
    for (const parser of this.parsers.values()) (await parser).delete();
    this.parsers.clear();
  }
}
