/**
 * A definition keeps its doc comment across what conventions put between them: a blank line (commander's
 * JSDoc), decorators, attributes and annotations, on one line or several. Python's docstrings are inside the
 * definition, and decorators must not hide them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RepoFileSet } from '../../src/extract/imports.js';
import { ParserPool } from '../../src/extract/parser.js';
import { extractStaticFacts } from '../../src/extract/staticProfile.js';
import { WordCache } from '../../src/extract/wordCache.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/docs');
const parsers = new ParserPool();
const words = new WordCache();
afterAll(() => parsers.dispose());

/** `ast_path: doc` of every symbol, `-` for none. */
async function docs(file: string): Promise<string[]> {
  const facts = await extractStaticFacts(file, readFileSync(path.join(fixture, file), 'utf8'), { parsers, repoFiles: new RepoFileSet([file]), words });
  return facts.symbols.map((s) => `${s.ast_path}: ${s.doc ?? '-'}`);
}

describe('docs attached across blank lines and decorators', () => {
  it('keeps every doc of a commander-style file, whose JSDoc stands a blank line above its definition', async () => {
    expect(await docs('option.js')).toEqual([
      "Option: An option of a command, as commander's lib/option.js writes it.",
      'Option-constructor: Initialize a new `Option` with the given `flags` and `description`.',
      'Option-default: Set the default value, and optionally supply the description to be displayed in the help.',
      'Option-preset: Preset to use when option used without option-argument, especially optional but also boolean and negated.',
      'Option-name: Return option name.',
      'camelcase: Convert string from kebab-case to camelCase.',
      // A plain comment a blank line above is a section heading, not a doc.
      'undocumented: -',
    ]);
  });

  it('keeps Python docstrings under any decorators, and a comment above a decorator spanning lines', async () => {
    expect(await docs('handlers.py')).toEqual([
      'retry: Retry the wrapped call a number of times.',
      'retry-wrap: -',
      'fetch: Fetch a URL, retrying on failure.',
      'cached_lookup: Look a key up once, then answer from the cache.',
      'Handler: Handles one request.',
      "Handler-name: The handler's name.",
      'Handler-build: Build a default handler.',
      'Handler-create: Documented by a comment above its decorator.',
      'index: Serves the index page; documented by a comment above a decorator that spans lines.',
    ]);
  });

  it('keeps Rust docs above #[derive] and other attributes, one or several, on one line or several', async () => {
    expect(await docs('shapes.rs')).toEqual([
      'Point: A point on the plane.',
      'Shape: The kinds of shape this module draws.',
      'Area: Something that has an area.',
      'Area-area: The area, in square units.',
      'Point-norm: The distance from the origin.',
      'origin: Builds a point at the origin.',
      'Rect: A rectangle, its attributes over several lines.',
    ]);
  });

  it('keeps Javadoc above annotations, with arguments over several lines, and across a blank line', async () => {
    expect(await docs('Accounts.java')).toEqual([
      'Accounts: Accounts kept in memory.',
      'Accounts-find: Finds an account by its number.',
      'Accounts-list: Lists every account, newest first.',
      'Accounts-close: Closes an account.',
      'Accounts-transfer: Moves money between two accounts.',
    ]);
  });

  it('keeps TypeScript docs above decorators, and never gives the file\'s leading doc to its first function', async () => {
    expect(await docs('widget.ts')).toEqual(['first: -', 'Widget: A component, its decorator over several lines.', 'Widget-render: Renders the widget.']);
  });
});
