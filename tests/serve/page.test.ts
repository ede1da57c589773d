/**
 * The page at `/` in a real browser: Debian's Chromium driven by playwright-core, against a server on 127.0.0.1
 * over an index the real `coderag index` wrote with a model (the fake server on 127.0.0.1) and a target
 * structure, so it holds relationships to draw. Screenshots go to a temporary folder, named in the output.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fakeLlmServer.js';
import { makeTempDir } from '../support/tempRepo.js';
import { TOKENS, closeServers, serve, writeTokens } from './serveSupport.js';

const CHROMIUM = '/usr/bin/chromium';
const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');
let llm: FakeLlmServer;
let indexes: string;
let browser: BrowserContext;
/** Kept after the run for a person to look at; git ignores the folder. */
const shots = path.resolve(import.meta.dirname, '../../test-results/serve');

beforeAll(async () => {
  llm = await startFakeLlmServer({ seed: 3 });
  indexes = makeTempDir('coderag-serve-page-');
  const target = path.join(makeTempDir(), 'plan.txt');
  writeFileSync(target, 'src/cache/ttl_cache.ts\nsrc/http/router.ts\n');
  const config = path.join(makeTempDir(), 'indexer_config.yaml');
  writeFileSync(config, 'llm:\n  request_delay: 0\n');
  const env = { OPENAI_API_KEY: 'sk-page-test-0123456789abcdef', OPENAI_BASE_URL: llm.openaiBaseUrl, CODERAG_CACHE_DIR: makeTempDir('coderag-cache-') };
  const result = await runCli(['index', fixture, '--out', indexes, '--config', config, '--target-structure', target, '-q'], { env });
  if (result.code !== 0) throw new Error(result.stderr);
  mkdirSync(shots, { recursive: true });
  if (!existsSync(CHROMIUM)) return;
  // A fresh profile each run (playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(makeTempDir('coderag-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
afterAll(async () => {
  await browser?.close();
  await closeServers();
  await llm?.close();
  process.stdout.write(`serve page screenshots: ${shots}\n`);
});

describe('the page of coderag serve in Chromium', () => {
  it.runIf(existsSync(CHROMIUM))('asks the token once, searches, opens an outline and draws the relationships', async () => {
    const server = await serve({ dir: indexes, tokensFile: writeTokens() });
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(server.url);

    // The token, asked once for the tab.
    await page.locator('#token').fill(TOKENS.all);
    await page.keyboard.press('Enter');
    await page.locator('#overview tbody tr').first().waitFor();
    expect(await page.locator('#overview tbody tr td').first().textContent()).toBe('polyglot');
    await page.screenshot({ path: path.join(shots, 'overview.png'), fullPage: true });

    // The keyboard alone: "/" to the search box, a query, Enter.
    await page.keyboard.press('/');
    await page.keyboard.type('least recently used cache with time to live');
    await page.keyboard.press('Enter');
    await page.locator('li.result').first().waitFor();
    expect(await page.locator('li.result button.path').first().textContent()).toBe('src/cache/lruCache.ts');
    expect(await page.locator('#status').textContent()).toMatch(/^\d+ file\(s\) in \d+ ms/);
    await page.screenshot({ path: path.join(shots, 'results.png'), fullPage: true });

    // The first result has the focus: Enter opens its outline.
    await page.keyboard.press('Enter');
    await page.locator('#outline tbody tr').first().waitFor();
    expect(await page.locator('#side-title').textContent()).toBe('Outline of src/cache/lruCache.ts');
    expect(await page.locator('#outline').textContent()).toContain('LruCache');
    await page.screenshot({ path: path.join(shots, 'outline.png'), fullPage: true });

    // A scope: only the files under src/cache/, tests left out. The answer before held app/Panel.tsx and
    // src/cache/lruCache.test.ts; wait for one whose every file is under src/cache/.
    expect(await page.locator('li.result button.path').allTextContents()).toContain('src/cache/lruCache.test.ts');
    await page.locator('#path').fill('src/cache/**');
    await page.locator('#no-tests').check();
    await page.locator('#query').focus();
    await page.keyboard.press('Enter');
    // A function, not a string: the page's Content-Security-Policy refuses eval. No DOM types here, hence `any`.
    await page.waitForFunction(() => {
      const files = [...(globalThis as any).document.querySelectorAll('li.result button.path')].map((b: any) => String(b.textContent));
      return files.length > 0 && files.every((file) => file.startsWith('src/cache/'));
    });
    const scoped = await page.locator('li.result button.path').allTextContents();
    expect(scoped).toContain('src/cache/lruCache.ts');
    expect(scoped).not.toContain('src/cache/lruCache.test.ts');

    await page.locator('#show-relationships').click();
    await page.locator('#relationships path.relationship').first().waitFor({ state: 'attached' });
    const lines = await page.locator('#relationships path.relationship').count();
    expect(lines).toBeGreaterThan(0);
    expect(await page.locator('#relationships').textContent()).toMatch(/ttl_cache\.ts|router\.ts/);
    await page.screenshot({ path: path.join(shots, 'relationships.png'), fullPage: true });

    // Kept for the session: a reload asks nothing.
    await page.reload();
    await page.locator('#overview tbody tr').first().waitFor();
    expect(await page.locator('#token-dialog').evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(false);

    expect(await page.locator('#error').textContent()).toBe('');
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
