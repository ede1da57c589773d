/**
 * `runIndex` keeps no profiles in memory: each finished entry goes to a fragment file beside the index, and the
 * index is assembled from those bytes and the previous index's. What it writes must be what a run holding
 * every profile writes, and nothing it leaves behind, however it ends, may change the next run.
 */
import { appendFileSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig, type Config } from '../../../src/config/schema.js';
import { ExtractorPool } from '../../../src/extract/extractorPool.js';
import { toJson } from '../../../src/index/serialize.js';
import type { RepoIndex } from '../../../src/index/types.js';
import { indexRepository, runIndex } from '../../../src/pipeline/runIndex.js';
import { stateFileFor } from '../../../src/pipeline/incremental/reuseState.js';
import type { WrittenRepo } from '../../../src/pipeline/writeIndex.js';
import { prepareSearchPack, writtenLayout } from '../../../src/search/preparePacks.js';
import { packPathFor } from '../../../src/search/pack.js';
import { AbortedError } from '../../../src/shared/errors.js';
import { comparable, copyFixture, createRunner } from '../../support/reuseRuns.js';
import { makeTempDir } from '../../support/tempRepo.js';

const extractors = new ExtractorPool(0);
const runner = createRunner();
afterAll(async () => {
  await extractors.close();
  await runner.close();
});

function fixture(): string {
  const root = path.join(makeTempDir(), 'poly');
  copyFixture(root);
  return root;
}

/** The index's text without what differs between any two runs (the date and the duration). */
function withoutTimings(file: string): string {
  return readFileSync(file, 'utf8').replace(/"(analysis_date|duration_ms)": [^,\n]+/g, '');
}

/** Temp files of any run beside the index: partial indexes and states, fragments. */
function strayFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.tmp') || name.endsWith('.fragment'));
}

describe('an index assembled from fragments', () => {
  it.each([
    ['the default style', (_config: Config) => {}],
    ['compact ASCII JSON', (config: Config) => {
      config.output.json_indent = 0;
      config.output.ensure_ascii = true;
    }],
    ['no metadata', (config: Config) => {
      config.output.include_metadata = false;
    }],
  ])('is byte for byte the index built in memory, in %s', async (_label, configure) => {
    const repo = fixture();
    const config = defaultConfig();
    configure(config);
    const out = makeTempDir();
    const { written } = await runIndex([repo], { config, outDir: out, extractors });
    const bytes = readFileSync(written[0]?.outputPath as string, 'utf8');

    const inMemory = await indexRepository(repo, { config, extractors });
    const { analysis_metadata: metadata, ...rest } = inMemory;
    let expected: Record<string, unknown> = rest;
    if (config.output.include_metadata) {
      const stamped = (JSON.parse(bytes) as RepoIndex).analysis_metadata;
      expected = { ...rest, analysis_metadata: { ...metadata, analysis_date: stamped.analysis_date, duration_ms: stamped.duration_ms } };
    }
    expect(bytes).toBe(toJson(expected, { indent: config.output.json_indent, ensureAscii: config.output.ensure_ascii }));
    expect(strayFiles(out)).toEqual([]);
  });

  it.each([
    ['the default style', 2],
    ['compact JSON', 0],
  ])('says where each profile landed, in %s, so its search pack is built entry by entry to the same bytes', async (_label, indent) => {
    const config = defaultConfig();
    config.output.json_indent = indent;
    const { written } = await runIndex([fixture()], { config, outDir: makeTempDir(), extractors });
    const repo = written[0] as WrittenRepo;
    const bytes = readFileSync(repo.outputPath);
    const ranges = repo.summaryRanges as Float64Array;
    const profiles = Array.from({ length: ranges.length / 2 }, (_, i) => JSON.parse(bytes.toString('utf8', ranges[2 * i], ranges[2 * i + 1])) as unknown);
    expect(profiles).toEqual((JSON.parse(bytes.toString('utf8')) as RepoIndex).file_summaries);

    expect(await prepareSearchPack(repo.outputPath)).toBe(true);
    const parsedWhole = readFileSync(packPathFor(repo.outputPath));
    expect(await prepareSearchPack(repo.outputPath, writtenLayout(repo))).toBe(true);
    expect(readFileSync(packPathFor(repo.outputPath)).equals(parsedWhole)).toBe(true);
  });
});

describe('entries taken from the previous index', () => {
  it('are written in this run\'s JSON style when the previous index was written in another', async () => {
    const repo = fixture();
    const out = makeTempDir();
    const compact = defaultConfig();
    compact.output.json_indent = 0;
    compact.output.ensure_ascii = true;
    await runner.index(repo, out, { config: compact });

    const run = await runner.index(repo, out);
    expect(run.reuse).toMatchObject({ reused: 26, extracted: 0 });
    expect(run.reads).toEqual([]);
    const full = await runner.index(repo, makeTempDir(), { reuse: false });
    expect(withoutTimings(run.outputPath)).toBe(withoutTimings(full.outputPath));
  });

  it('are byte for byte what a full run writes after an edit and a rename, and again on the run after', async () => {
    const repo = fixture();
    const out = makeTempDir();
    await runner.index(repo, out);
    // Two new files share billing.rb's words: they weigh less now, so the concepts of entries taken as they were
    // change (billing.rb's, Inventory.cs's), and the new ones are spliced into their stored bytes.
    writeFileSync(path.join(repo, 'lib/ledger.rb'), '# Invoice accounts, in any currency.\nclass InvoiceAccounts\n  def currency_total(invoice, accounts)\n  end\nend\n');
    writeFileSync(path.join(repo, 'lib/journal.rb'), '# Invoice accounts, in any currency.\nclass InvoiceLedger\n  def currency_accounts(invoice)\n  end\nend\n');
    appendFileSync(path.join(repo, 'lib/router.js'), '\n// Routes a refund through the ledger.\nfunction refundLedgerRoute() {}\n');
    renameSync(path.join(repo, 'lib/tax.rb'), path.join(repo, 'lib/levy.rb'));
    const edited = await runner.index(repo, out);
    expect(edited.reuse.extracted).toBeGreaterThan(0);
    expect(edited.reuse.reused).toBeGreaterThan(0);
    const full = await runner.index(repo, makeTempDir(), { reuse: false });
    expect(withoutTimings(edited.outputPath)).toBe(withoutTimings(full.outputPath));

    const again = await runner.index(repo, out);
    expect(again.reuse.extracted).toBe(0);
    expect(withoutTimings(again.outputPath)).toBe(withoutTimings(full.outputPath));
  });
});

describe('recorded document frequencies that cannot be read', () => {
  it('are counted again from the entries carried over, and the run still writes a full run\'s bytes', async () => {
    const repo = fixture();
    const out = makeTempDir();
    const first = await runner.index(repo, out);
    // The state's last line holds the counts: keep it a line that opens like them, but not JSON.
    const state = stateFileFor(first.outputPath);
    const lines = readFileSync(state, 'utf8').trimEnd().split('\n');
    expect(lines.at(-1)?.startsWith('{')).toBe(true);
    writeFileSync(state, `${[...lines.slice(0, -1), '{"damaged'].join('\n')}\n`);
    // A new file that shares billing.rb's words makes the concepts be chosen again, which needs the counts.
    writeFileSync(path.join(repo, 'lib/ledger.rb'), '# Invoice accounts, in any currency.\nclass InvoiceAccounts\n  def currency_total(invoice, accounts)\n  end\nend\n');
    const edited = await runner.index(repo, out);
    expect(edited.reuse.reused).toBeGreaterThan(0);
    const full = await runner.index(repo, makeTempDir(), { reuse: false });
    expect(withoutTimings(edited.outputPath)).toBe(withoutTimings(full.outputPath));
  });
});

describe('a run that does not finish', () => {
  it('leaves the previous index and its state as they were, and no temp file', async () => {
    const repo = fixture();
    const out = makeTempDir();
    const config = defaultConfig();
    const first = await runIndex([repo], { config, outDir: out, extractors });
    const indexFile = first.written[0]?.outputPath as string;
    const before = [readFileSync(indexFile), readFileSync(stateFileFor(indexFile))];

    const controller = new AbortController();
    let done = 0;
    const run = runIndex([repo], {
      config,
      outDir: out,
      extractors,
      reuse: false,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'file_done' && ++done === 5) controller.abort();
      },
    });
    await expect(run).rejects.toThrow(AbortedError);
    expect(readFileSync(indexFile).equals(before[0] as Buffer)).toBe(true);
    expect(readFileSync(stateFileFor(indexFile)).equals(before[1] as Buffer)).toBe(true);
    expect(strayFiles(out)).toEqual([]);
  });

  it('leaves files a killed run wrote beside the index to the next run, which deletes them and writes what a full run writes', async () => {
    const repo = fixture();
    const out = makeTempDir();
    await runner.index(repo, out);
    // What `kill -9` mid-run leaves: a fragment, a partial index and a partial state of a process now gone.
    const gone = 4_194_304 + 17;
    const leftovers = [`.poly_index.json.${gone}.0badc0de.fragment`, `.poly_index.json.${gone}.0badc0de.tmp`, `..poly_index.json.state.${gone}.0badc0de.tmp`];
    for (const name of leftovers) writeFileSync(path.join(out, name), '{"file_summaries": [{"file_path": "not/a/file.ts"');

    const run = await runner.index(repo, out);
    expect(strayFiles(out)).toEqual([]);
    expect(run.reuse.reused).toBeGreaterThan(0);
    expect(comparable(run.outputPath)).toEqual(comparable((await runner.index(repo, makeTempDir(), { reuse: false })).outputPath));
  });
});

describe('a reuse state that cannot be trusted', () => {
  it('is ignored with a note when it is truncated, and every file is indexed again', async () => {
    const repo = fixture();
    const out = makeTempDir();
    const cold = await runner.index(repo, out);
    const state = stateFileFor(cold.outputPath);
    const lines = readFileSync(state, 'utf8').split('\n');
    writeFileSync(state, lines.slice(0, -3).join('\n'));

    const run = await runner.index(repo, out);
    expect(run.events).toContainEqual({ type: 'info', message: expect.stringContaining('its reuse state is truncated') });
    expect(run.reuse).toMatchObject({ reused: 0 });
    expect(comparable(run.outputPath)).toEqual(comparable(cold.outputPath));
  });

  it('is ignored when the index beside it is not the one it describes', async () => {
    const repo = fixture();
    const out = makeTempDir();
    const cold = await runner.index(repo, out);
    const text = readFileSync(cold.outputPath, 'utf8');
    // The same size, other bytes: an index edited by hand.
    writeFileSync(cold.outputPath, text.replace('"repo_name": "poly"', '"repo_name": "pol_"'));

    const run = await runner.index(repo, out);
    expect(run.events).toContainEqual({ type: 'info', message: expect.stringContaining('its reuse state describes another index') });
    expect(run.reuse).toMatchObject({ reused: 0 });
    expect(comparable(run.outputPath)).toEqual(comparable(cold.outputPath));
  });
});
