/**
 * The import rules of src/, checked by `npm run lint:layers` (part of `npm test`).
 *
 * Every folder of src/ is a layer. A module imports from its own layer and the layers below it, never from
 * one above; src/lib.ts, the library entry, sits above them all and nothing imports it. No import cycles,
 * type-only imports included: a cycle of types still ties the modules' designs together. Incremental
 * re-indexing (src/pipeline/incremental/) is reached through its one entry point.
 */
const fs = require('node:fs');
const path = require('node:path');

/** Top to bottom: the CLI is a thin shell over the pipeline; shared holds what every layer may use. */
const LAYERS = ['cli', 'serve', 'mcp', 'pipeline', 'plan', 'search', 'extract', 'llm', 'cache', 'index', 'config', 'shared'];

// A folder added to src/ must be given its place here, or a layer removed from it, before the rules run.
const folders = fs
  .readdirSync(path.join(__dirname, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const unplaced = folders.filter((folder) => !LAYERS.includes(folder));
const gone = LAYERS.filter((layer) => !folders.includes(layer));
if (unplaced.length || gone.length) {
  throw new Error(
    `.dependency-cruiser.cjs: the layer order does not match the folders of src/` +
      `${unplaced.length ? `; not placed: ${unplaced.join(', ')}` : ''}${gone.length ? `; no such folder: ${gone.join(', ')}` : ''}`,
  );
}

const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `no-upward-import-from-${layer}`,
  comment: `src/${layer}/ imports only from its own layer and those below it (${LAYERS.slice(i + 2).join(', ') || 'none'}).`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: `^src/(${LAYERS.slice(0, i + 1).join('|')})/` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No module reaches itself through its imports, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upward,
    {
      name: 'incremental-through-its-entry',
      comment: 'Incremental re-indexing is used through src/pipeline/incremental/incremental.ts only; its other modules are its own.',
      severity: 'error',
      from: { pathNot: '^src/pipeline/incremental/' },
      to: { path: '^src/pipeline/incremental/', pathNot: '^src/pipeline/incremental/incremental\\.ts$' },
    },
    {
      name: 'no-import-of-the-library-entry',
      comment: 'src/lib.ts re-exports the layers for library users; no module of src/ imports it.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/lib\\.ts$' },
    },
  ],
  options: {
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
