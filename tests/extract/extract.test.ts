import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fg from 'fast-glob';
import { RepoFileSet } from '../../src/extract/imports.js';
import { ParserPool } from '../../src/extract/parser.js';
import { WordCache, countIdentifiers } from '../../src/extract/wordCache.js';
import { extractStaticFacts } from '../../src/extract/staticProfile.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/polyglot');
const files = fg.sync('**/*', { cwd: fixture, dot: true });
const repoFiles = new RepoFileSet(files);
repoFiles.goModule = 'example.com/poly';
const parsers = new ParserPool();
const words = new WordCache();
afterAll(() => parsers.dispose());

const facts = (file: string) => extractStaticFacts(file, readFileSync(path.join(fixture, file), 'utf8'), { parsers, repoFiles, words });
const symbolsOf = async (file: string) => (await facts(file)).symbols.map((s) => `${s.kind} ${s.ast_path}`);

interface Case {
  file: string;
  language: string;
  symbols: string[];
  local?: string[];
  external?: string[];
  summary?: RegExp;
}

const cases: Case[] = [
  {
    file: 'src/cache/lruCache.ts',
    language: 'TypeScript',
    symbols: ['interface CacheOptions', 'type Evicted', 'class LruCache', 'method LruCache-constructor', 'method LruCache-get', 'method LruCache-set', 'method LruCache-evictOverflow', 'function createCache', 'enum CachePolicy'],
    local: ['src/cache/clock.ts'],
    external: ['events'],
    summary: /least-recently-used cache/,
  },
  { file: 'app/Panel.tsx', language: 'TSX', symbols: ['function CachePanel', 'function Badge'], local: ['src/cache/lruCache.ts'], external: ['react'] },
  { file: 'lib/router.js', language: 'JavaScript', symbols: ['function Router', 'method Router-register', 'method Router-match'], local: ['lib/compose.cjs'], external: ['debug'] },
  { file: 'lib/compose.cjs', language: 'JavaScript', symbols: ['function compose', 'function identity'] },
  { file: 'lib/server.mjs', language: 'JavaScript', symbols: ['class Server', 'method Server-listen', 'function startServer'], local: ['lib/router.js'], external: ['http'] },
  {
    file: 'pkg/store/kv_store.py',
    language: 'Python',
    symbols: ['class KVStore', 'method KVStore-__init__', 'method KVStore-get', 'method KVStore-size', 'function open_store'],
    local: ['pkg/store/serializer.py', 'pkg/store/errors.py'],
    external: ['time', 'typing'],
    summary: /^Key-value store with expiring entries/,
  },
  {
    file: 'pkg/store/ratelimit.go',
    language: 'Go',
    symbols: ['struct Limiter', 'interface Bucket', 'function NewLimiter', 'method Limiter-Take'],
    local: ['pkg/store/internal/clock.go'],
    external: ['sync', 'time'],
    summary: /token-bucket rate limiter/,
  },
  {
    file: 'pkg/store/parser.rs',
    language: 'Rust',
    symbols: ['module lexer', 'struct Config', 'enum Token', 'trait Parse', 'method Parse-parse', 'method Config-get', 'method Config-parse', 'function parse_line'],
    external: ['std'],
    summary: /^Parses configuration lines/,
  },
  {
    file: 'pkg/store/OrderService.java',
    language: 'Java',
    symbols: ['class OrderService', 'method OrderService-OrderService', 'method OrderService-placeOrder', 'interface OrderService-Listener', 'method OrderService-Listener-onOrder', 'enum OrderService-Status'],
    external: ['java.util.List'],
  },
  { file: 'src/ring_buffer.c', language: 'C', symbols: ['function ring_buffer_push', 'function ring_buffer_size'], local: ['include/ring_buffer.h'], external: ['stdlib.h'] },
  { file: 'include/ring_buffer.h', language: 'C', symbols: ['struct ring_buffer'] },
  { file: 'src/matrix.cpp', language: 'C++', symbols: ['namespace linalg', 'class linalg-Matrix', 'method linalg-Matrix-at', 'method linalg-Matrix-Matrix', 'function linalg-multiply'], local: ['src/matrix.hpp'] },
  {
    file: 'src/Inventory.cs',
    language: 'C#',
    symbols: ['namespace Shop.Inventory', 'class Shop.Inventory-StockLedger', 'method Shop.Inventory-StockLedger-StockLedger', 'method Shop.Inventory-StockLedger-Receive', 'interface Shop.Inventory-IReorderPolicy', 'method Shop.Inventory-IReorderPolicy-ShouldReorder', 'struct Shop.Inventory-Sku', 'enum Shop.Inventory-Unit'],
    external: ['System.Collections.Generic'],
  },
  {
    file: 'lib/billing.rb',
    language: 'Ruby',
    symbols: ['module Billing', 'class Billing-Invoice', 'method Billing-Invoice-initialize', 'method Billing-Invoice-total', 'method Billing-Invoice-empty', 'function Billing-currency'],
    local: ['lib/tax.rb'],
    external: ['json'],
  },
  {
    file: 'src/Mailer.php',
    language: 'PHP',
    symbols: ['namespace App\\Mail', 'class Mailer', 'method Mailer-__construct', 'method Mailer-send', 'interface MailerInterface', 'method MailerInterface-send', 'trait Queueable', 'method Queueable-queue', 'function format_address'],
    local: ['src/Mail/Transport/SmtpTransport.php'],
  },
];

describe.each(cases)('extracting $file', ({ file, language, symbols, local, external, summary }) => {
  it(`finds its ${language} symbols with their scopes`, async () => {
    expect(await symbolsOf(file)).toEqual(symbols);
    expect((await facts(file)).language).toBe(language);
  });

  if (local) {
    it('resolves its local imports to repository paths', async () => {
      expect((await facts(file)).local_imports).toEqual(local);
    });
  }

  if (external) {
    it('names its external dependencies', async () => {
      expect((await facts(file)).dependencies).toEqual(expect.arrayContaining(external));
    });
  }

  if (summary) {
    it('takes its summary from the leading doc comment', async () => {
      expect((await facts(file)).summary).toMatch(summary);
    });
  }
});

describe('symbol details', () => {
  it('gives line spans and doc comments so an answer can point at lines', async () => {
    const get = (await facts('src/cache/lruCache.ts')).symbols.find((s) => s.ast_path === 'LruCache-get');
    expect(get).toMatchObject({ start_line: 23, end_line: 27, doc: 'Returns the value, or undefined when missing or past its TTL.' });
  });

  it('strips XML doc tags from C# comments', async () => {
    const ledger = (await facts('src/Inventory.cs')).symbols.find((s) => s.name === 'StockLedger');
    expect(ledger?.doc).toBe('Tracks stock levels per product.');
  });

  it('counts non-empty lines only', async () => {
    expect((await facts('lib/tax.rb')).lines_of_code).toBe(3);
  });

  it('composes a summary from the facts when a file has no doc comment', async () => {
    const server = await facts('lib/server.mjs');
    expect(server.summary).toBe('Defines and exports class Server and function startServer; uses http and lib/router.js.');
    expect(server.summary_source).toBe('composed');
  });

  it('gives plain-text files a profile without symbols', async () => {
    const readme = await facts('README.md');
    expect(readme.symbols).toEqual([]);
    expect(readme.summary).toMatch(/one realistic file per language/);
    expect(readme.role).toBe('docs');
  });

  it('recognises a test file by its name', async () => {
    expect((await facts('src/cache/lruCache.test.ts')).role).toBe('test');
  });
});

describe('counting identifiers', () => {
  it('finds what the identifier pattern finds, digits inside names included and leading digits not', () => {
    expect(Object.fromEntries(countIdentifiers('a1 = b_c + $d; 123abc x.y2 a1'))).toEqual({ a1: 2, b_c: 1, $d: 1, abc: 1, x: 1, y2: 1 });
  });

  it('splits and stems through the cache with the same answers as without it', () => {
    const cache = new WordCache(2);
    expect(cache.split('parseHTTPResponse')).toEqual(['parse', 'http', 'response']);
    expect(cache.split('parseHTTPResponse')).toEqual(['parse', 'http', 'response']);
    expect(['caching', 'cached', 'caches'].map((w) => cache.stem(w))).toEqual(['cach', 'cach', 'cach']);
  });
});

describe('imports written in comments and strings', () => {
  const factsOf = (file: string, source: string) => extractStaticFacts(file, source, { parsers, repoFiles, words });

  it('are not imports in JavaScript and TypeScript, beside the real ones and JSDoc types that name a module', async () => {
    const source = [
      "import { join } from 'node:path';",
      "const lodash = require('lodash-es');",
      "// we deliberately do not require('lodash') here",
      '/* import ignored from "block-comment"; */',
      "export const WORDS = ['require', 'import', 'return'];",
      'const advice = "write import \'left-pad\' at the top";',
      "const hint = `then import('later-lib')`;",
      "/* c */require('after-comment');",
      "/** @type {import('jsdoc-type')} */",
      "/** @param {Array<import('jsdoc-generic').T>} list */",
    ].join('\n');
    for (const file of ['src/words.ts', 'src/words.js']) {
      expect((await factsOf(file, source)).dependencies.sort(), file).toEqual(['after-comment', 'jsdoc-generic', 'jsdoc-type', 'lodash-es', 'path']);
    }
  });

  it('never hide a real import that follows a comment saying import or export', async () => {
    const source = [
      '// Re-export the public API',
      "export { a } from 'pkg-a';",
      "export { b } from 'pkg-b';",
      '/**',
      ' * Modules export their API',
      ' */',
      "export * from 'pkg-core';",
      '// we import the helpers here',
      "import { x } from 'pkg-x';",
    ].join('\n');
    expect((await factsOf('src/api.ts', source)).dependencies.sort()).toEqual(['pkg-a', 'pkg-b', 'pkg-core', 'pkg-x']);
  });

  it('are not imports in a Python docstring or comment', async () => {
    const source = ['"""Use it as:', '', 'import numpy as np', 'from pandas import DataFrame', '"""', '# import scipy', 'import json', 'from os import path', ''].join('\n');
    expect((await factsOf('tool.py', source)).dependencies.sort()).toEqual(['json', 'os']);
  });
});
