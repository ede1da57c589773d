/**
 * The property of incremental indexing: whatever happened to the repository since the last run, the index
 * an incremental run writes equals the index a run from scratch writes for the same tree, apart from timings.
 * Random edits, additions, deletions, renames, copies, touches, commits, amended commits and checkouts of an
 * older commit (the entries' commit subjects come and go), from fixed seeds. Entries carry their definitions' own
 * words (symbol terms), so those are compared too.
 */
import { appendFileSync, copyFileSync, existsSync, readFileSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packPathFor } from '../../../src/search/pack.js';
import { prepareSearchPack } from '../../../src/search/preparePacks.js';
import { comparable, committedFixture, copyFixture, createRunner } from '../../support/reuseRuns.js';
import { gitIn, makeTempDir } from '../../support/tempRepo.js';

// History bounded tightly, so its bounds cut on every step.
const runner = createRunner((config) => {
  config.history.max_commits = 4;
  config.history.max_subjects = 2;
});
afterAll(() => runner.close());

/** A small, seedable generator (mulberry32), so a failure names a sequence that can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function filesOf(root: string, dir = ''): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    if (name === '.git') return [];
    const relative = dir ? `${dir}/${name}` : name;
    return statSync(path.join(root, relative)).isDirectory() ? filesOf(root, relative) : [relative];
  });
}

/** Files whose arrival changes how other files' imports resolve (the fixture imports some of them already). */
const NEW_FILES: Record<string, string> = {
  'src/cache/helper.ts': "import { Clock } from '../clock';\nexport function expiresAt(clock: Clock, ttl: number): number {\n  return clock.now() + ttl;\n}\n",
  'src/cache/index.ts': "export { LruCache } from '../lruCache';\nexport * from '../helper';\n",
  'lib/helper.js': "const router = require('./router');\nmodule.exports = function mount(app) { return router(app); };\n",
  'pkg/store/cache.py': 'from .kv_store import KVStore\n\n\nclass CachedStore(KVStore):\n    """A store that remembers reads."""\n\n    def get(self, key):\n        return super().get(key)\n',
  'pkg/store/internal/ticker.go': 'package internal\n\nimport "time"\n\n// Ticker ticks.\nfunc Ticker() *time.Ticker { return time.NewTicker(time.Second) }\n',
  'docs/guide.md': '# Guide\n\nHow the cache expires entries, and how the store serialises them.\n',
};

function editLine(file: string, n: number): string {
  switch (path.posix.extname(file)) {
    case '.ts': case '.tsx': case '.js': case '.mjs': case '.cjs':
      return `\nexport function added${n}(value: number) {\n  return value * ${n};\n}\n`.replace(': number', file.endsWith('.ts') || file.endsWith('.tsx') ? ': number' : '');
    case '.py':
      return `\n\ndef added_${n}(value):\n    return value * ${n}\n`;
    case '.rb':
      return `\ndef added_${n}(value)\n  value * ${n}\nend\n`;
    case '.go': case '.rs': case '.c': case '.h': case '.cpp': case '.hpp': case '.cs': case '.java': case '.php':
      return `\n// added ${n}: throttle the expiry sweep\n`;
    default:
      return `\nadded_${n}: throttle\n`;
  }
}

type Op = (n: number) => string;

function operations(root: string, next: () => number, git: boolean): Op[] {
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)] as T;
  const ops: Op[] = [
    (n) => {
      const file = pick(filesOf(root));
      appendFileSync(path.join(root, file), editLine(file, n));
      return `edit ${file}`;
    },
    () => {
      const [file, content] = pick(Object.entries(NEW_FILES));
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), content);
      return `add ${file}`;
    },
    () => {
      const file = pick(filesOf(root));
      rmSync(path.join(root, file));
      return `delete ${file}`;
    },
    (n) => {
      const file = pick(filesOf(root));
      const ext = path.posix.extname(file);
      const target = next() < 0.5 ? `${file.slice(0, -ext.length)}_${n}${ext}` : `moved/${n}/${path.posix.basename(file)}`;
      mkdirSync(path.dirname(path.join(root, target)), { recursive: true });
      renameSync(path.join(root, file), path.join(root, target));
      return `rename ${file} -> ${target}`;
    },
    (n) => {
      const file = pick(filesOf(root));
      const target = `copies/${n}/${path.posix.basename(file)}`;
      mkdirSync(path.dirname(path.join(root, target)), { recursive: true });
      copyFileSync(path.join(root, file), path.join(root, target));
      return `copy ${file} -> ${target}`;
    },
    () => {
      const file = pick(filesOf(root));
      const now = new Date();
      utimesSync(path.join(root, file), now, now);
      return `touch ${file}`;
    },
  ];
  if (git) {
    const git = gitIn(root);
    ops.push(
      (n) => {
        git('add', '-A');
        git('commit', '-qm', `step ${n}: ${pick(['throttle the sweep', 'expire entries', 'serialise the store', 'route requests'])}`, '--allow-empty');
        return 'commit';
      },
      // History rewritten: the previous HEAD is no ancestor of the new one.
      (n) => {
        git('add', '-A');
        git('commit', '-q', '--amend', '-m', `amended ${n}`, '--allow-empty');
        return 'amend';
      },
      // HEAD moved back: the commit it left is after HEAD now.
      (n) => {
        git('add', '-A');
        git('commit', '-qm', `left behind ${n}`, '--allow-empty');
        git('checkout', '-q', '--detach', 'HEAD~1');
        return 'checkout HEAD~1';
      },
    );
  }
  return ops;
}

/** Relationships inferred without a model are made again each run, from the profiles the run writes. */
const STRUCTURE = `src/cache/ttl_store.ts   # cache entries that expire after a TTL
src/http/routes.js       # route requests to handlers by path
src/store/serialise.py   # serialise the store's entries
`;

describe('an incremental run', () => {
  it.each([
    ['a plain folder', 7, false, undefined],
    ['a git work tree', 14, true, undefined],
    ['a git work tree related to a target structure without a model', 28, true, STRUCTURE],
  ])('writes the index a full run writes, after random changes to %s (seed %i)', async (_label, seed, git, targetStructure) => {
    const root = git ? committedFixture('fixture') : path.join(makeTempDir(), 'poly');
    if (!git) copyFixture(root);
    const out = makeTempDir();
    const related = targetStructure !== undefined ? { targetStructure } : {};
    const first = await runner.index(root, out, related);
    if (targetStructure) expect(first.index.relationships.length).toBeGreaterThan(0);
    const next = random(seed);
    const ops = operations(root, next, git);
    const history: string[] = [];
    let reused = 0;
    const ways = new Set<string>();
    for (let step = 1; step <= 8; step++) {
      const count = 1 + Math.floor(next() * 3);
      for (let i = 0; i < count; i++) history.push((ops[Math.floor(next() * ops.length)] as Op)(step * 10 + i));
      const incremental = await runner.index(root, out, related);
      const full = await runner.index(root, makeTempDir(), { reuse: false, ...related });
      reused += incremental.reuse.reused;
      expect(comparable(incremental.outputPath), `after: ${history.join('; ')}`).toEqual(comparable(full.outputPath));
      // The search pack, kept or updated from the previous one, is the one built from the index alone.
      ways.add(incremental.pack ?? 'none');
      const pack = readFileSync(packPathFor(incremental.outputPath));
      expect(await prepareSearchPack(incremental.outputPath)).toBe(true);
      expect(readFileSync(packPathFor(incremental.outputPath)).equals(pack), `pack ${incremental.pack} after: ${history.join('; ')}`).toBe(true);
    }
    // The property says nothing unless the runs really did reuse entries.
    expect(reused).toBeGreaterThan(8 * 15);
    expect(ways.has('updated')).toBe(true);
    // ... and the entries compared carry their definitions' own words, which edits changed.
    const written = JSON.parse(readFileSync(path.join(out, 'poly_index.json'), 'utf8')) as { file_summaries: Array<{ symbols: Array<{ terms?: string }> }> };
    expect(written.file_summaries.flatMap((s) => s.symbols).filter((symbol) => symbol.terms).length).toBeGreaterThan(20);
    if (git) {
      // ... and the commit subjects moved: new commits, a rewrite and a step back all happened, and files hold subjects.
      expect(history).toEqual(expect.arrayContaining(['commit', 'amend', 'checkout HEAD~1']));
      const index = JSON.parse(readFileSync(path.join(out, 'poly_index.json'), 'utf8')) as { file_summaries: Array<{ history?: string[] }> };
      expect(index.file_summaries.some((s) => (s.history?.length ?? 0) === 2)).toBe(true);
    }
    expect(existsSync(root)).toBe(true);
  }, 120_000);
});
