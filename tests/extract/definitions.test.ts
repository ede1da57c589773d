import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RepoFileSet } from '../../src/extract/imports.js';
import { ParserPool } from '../../src/extract/parser.js';
import { WordCache } from '../../src/extract/wordCache.js';
import { extractStaticFacts } from '../../src/extract/staticProfile.js';
import { composeSummary, mainFunctions } from '../../src/extract/summary.js';
import type { CodeSymbol } from '../../src/index/types.js';

const fixture = path.resolve(import.meta.dirname, '../fixtures/definitions');
const parsers = new ParserPool();
const words = new WordCache();
afterAll(() => parsers.dispose());

const facts = (file: string) =>
  extractStaticFacts(file, readFileSync(path.join(fixture, file), 'utf8'), { parsers, repoFiles: new RepoFileSet([file]), words });
/** `kind ast_path start-end`, the form an outline shows. */
const outline = async (file: string) => (await facts(file)).symbols.map((s) => `${s.kind} ${s.ast_path} ${s.start_line}-${s.end_line}`);

describe('definitions at any depth, with their nesting and exact lines', () => {
  it('finds the functions inside a UMD wrapper, nested ones under their parent', async () => {
    expect(await outline('umd-ip.js')).toEqual(['function expandIPv6 19-26', 'function expandIPv6-pad 21-23', 'function parseIPv4 28-30']);
  });

  it('reads a CommonJS module: exports.save = save, module.exports.x = …, exported constants and object-literal functions', async () => {
    const store = await facts('cjs-store.js');
    expect(await outline('cjs-store.js')).toEqual([
      'constant DEFAULT_ENCODING 6-6',
      'constant writeFile 7-7',
      'function save 9-11',
      'function load 13-15',
      'function remove 19-21',
      'constant VERSION 22-22',
      'constant formats 23-28',
      'method formats-RFC1738 24-26',
      'method formats-RFC3986 27-27',
    ]);
    expect(store.exports).toEqual(['save', 'load', 'remove', 'VERSION', 'formats']);
  });

  it('does not count a required module as a constant', async () => {
    const names = (await facts('cjs-store.js')).symbols.map((s) => s.name);
    expect(names).not.toContain('fs');
    expect(names).not.toContain('promisify');
  });

  it('turns module.exports = { RFC1738: function … } into exported functions', async () => {
    const formats = await facts('cjs-formats.js');
    expect(await outline('cjs-formats.js')).toEqual(['variable replace 1-1', 'function format 3-5', 'function RFC1738 8-10', 'function RFC3986 11-13']);
    expect(formats.exports).toEqual(['RFC1738', 'RFC3986', 'format', 'defaultFormat']);
  });

  it('finds object-literal methods, prototype methods, class-field arrows, nested arrows and named callbacks', async () => {
    expect(await outline('objects.mjs')).toEqual([
      'constant DEFAULT_TIMEOUT 1-1',
      'constant api 3-8',
      'method api-get 4-6',
      'method api-post 7-7',
      'function Emitter 10-12',
      'method Emitter-on 14-16',
      'function Queue 18-20',
      'method Queue-push 23-25',
      'method Queue-shift 26-28',
      'class Store 31-43',
      'method Store-subscribe 34-36',
      'method Store-dispatch 38-42',
      'function Store-dispatch-reduce 39-39',
      'function createStore 45-50',
      'method createStore-helpers-reset 47-47',
      'function logRequests 52-54',
    ]);
    expect((await facts('objects.mjs')).exports).toEqual(['DEFAULT_TIMEOUT', 'api', 'Store', 'createStore']);
  });

  it('keeps a class built in an IIFE at the top, and leaves out computed member names', async () => {
    expect(await outline('iife-class.mjs')).toEqual(['variable Stream 1-7', 'class Stream 2-5', 'method Stream-read 4-4']);
  });

  it('reads TypeScript exports, exported arrow functions, class-field arrows and namespaces', async () => {
    expect(await outline('client.ts')).toEqual([
      'interface ClientOptions 3-6',
      'function createClient 8-8',
      'class Client 10-14',
      'method Client-constructor 11-11',
      'method Client-handle 13-13',
      'namespace Retry 16-20',
      'function Retry-backoff 17-19',
      'function helper 22-22',
    ]);
    expect((await facts('client.ts')).exports).toEqual(['ClientOptions', 'createClient', 'Client', 'publicHelper']);
  });

  it('nests Python functions and classes inside functions and classes', async () => {
    expect(await outline('retry.py')).toEqual([
      'constant MAX_ATTEMPTS 3-3',
      'function retry 6-19',
      'function retry-decorator 7-17',
      'function retry-decorator-wrapper 9-15',
      'class Backoff 22-28',
      'class Backoff-Policy 23-25',
      'method Backoff-Policy-delay 24-25',
      'method Backoff-__init__ 27-28',
    ]);
  });

  it('scopes Go methods by their receiver type, generic receivers included, and exports capitalised names', async () => {
    const server = await facts('server.go');
    expect(await outline('server.go')).toEqual([
      'constant DefaultPort 5-5',
      'variable ErrClosed 7-7',
      'struct Server 9-11',
      'struct Cache 13-15',
      'function NewServer 17-19',
      'method Server-Start 21-24',
      'method Cache-Get 26-28',
    ]);
    expect(server.exports).toEqual(['DefaultPort', 'ErrClosed', 'Server', 'Cache', 'NewServer']);
  });

  it('scopes Rust impl and trait-impl methods by their type, and nests items inside functions and modules', async () => {
    expect(await outline('shapes.rs')).toEqual([
      'constant TAU 1-1',
      'trait Shape 3-5',
      'method Shape-area 4-4',
      'struct Circle 7-9',
      'method Circle-new 12-14',
      'method Circle-area 18-20',
      'function total_area 23-28',
      'function total_area-add 24-26',
      'module tests 30-32',
      'function tests-unit_circle 31-31',
    ]);
    expect((await facts('shapes.rs')).exports).toEqual(['TAU', 'Shape', 'Circle']);
  });

  it('nests Java member, interface, enum and local classes', async () => {
    expect(await outline('Outer.java')).toEqual([
      'class Outer 3-22',
      'class Outer-Builder 4-8',
      'method Outer-Builder-name 5-7',
      'interface Outer-Listener 10-12',
      'method Outer-Listener-onEvent 11-11',
      'enum Outer-Kind 14-14',
      'method Outer-run 16-21',
      'class Outer-run-Local 17-19',
      'method Outer-run-Local-go 18-18',
    ]);
  });

  it('nests C# classes inside classes and namespaces', async () => {
    expect(await outline('Invoice.cs')).toEqual([
      'namespace Acme.Billing 1-12',
      'class Acme.Billing-Invoice 3-11',
      'class Acme.Billing-Invoice-Line 5-8',
      'method Acme.Billing-Invoice-Line-Total 7-7',
      'method Acme.Billing-Invoice-Add 10-10',
    ]);
  });

  it('scopes C++ members by namespace and class, out-of-line definitions included', async () => {
    expect(await outline('geometry.cpp')).toEqual([
      'namespace geo 3-14',
      'class geo-Point 4-9',
      'method geo-Point-norm 6-6',
      'namespace geo-detail 11-13',
      'function geo-detail-clamp 12-12',
      'method geo-Point-dist 16-18',
    ]);
  });

  it('names C typedef structs', async () => {
    expect(await outline('point.h')).toEqual(['struct point_t 4-7', 'struct segment 9-12']);
  });

  it('keeps Ruby singleton methods, class << self included, in their class', async () => {
    expect(await outline('account.rb')).toEqual([
      'module Banking 1-21',
      'class Banking-Account 2-20',
      'method Banking-Account-open 3-5',
      'method Banking-Account-registry 8-10',
      'method Banking-Account-initialize 13-15',
      'method Banking-Account-deposit 17-19',
    ]);
  });

  it('reads PHP classes and functions under a file-scoped namespace', async () => {
    expect(await outline('Router.php')).toEqual(['namespace App\\Http 3-3', 'class Router 5-10', 'method Router-get 7-9', 'function route 12-15']);
  });
});

describe('the static summary', () => {
  it('skips a licence header and never takes a comment from inside the code, even the first one in a wrapper', async () => {
    const umd = await facts('umd-ip.js');
    expect(umd.summary).toBe('Defines functions expandIPv6 and parseIPv4.');
    expect(umd.summary_source).toBe('composed');
  });

  it('ignores shebangs, eslint and @ts- pragmas, istanbul hints, TODOs and commented-out code', async () => {
    const cli = await facts('cli.js');
    expect(cli.summary).toBe('Defines function main; uses yargs.');
    expect(cli.summary_source).toBe('composed');
  });

  it("does not take a member's doc, a #region marker or commented-out code for the file's summary", async () => {
    const models = await facts('models.js');
    expect(models.summary).toBe('Defines and exports class Models with members retrieve and list; uses undici.');
    expect(models.summary_source).toBe('composed');
  });

  it('composes what a file defines, exports and imports when no comment speaks for it', async () => {
    expect((await facts('cjs-store.js')).summary).toBe(
      'Defines functions save, load and remove and constants DEFAULT_ENCODING, writeFile, VERSION and formats; exports save, load, remove, VERSION and formats; uses fs and util.',
    );
    expect((await facts('server.go')).summary).toBe(
      'Defines and exports structs Server and Cache, function NewServer, constant DefaultPort and variable ErrClosed; uses errors.',
    );
    expect((await facts('retry.py')).summary).toBe('Defines class Backoff, function retry and constant MAX_ATTEMPTS; uses functools.');
  });

  it("says what a file's only class holds, and the namespace that wraps the file", async () => {
    expect((await facts('Invoice.cs')).summary).toBe('Defines class Invoice with members Line and Add in namespace Acme.Billing.');
    expect((await facts('Router.php')).summary).toBe('Defines class Router and function route in namespace App\\Http.');
    expect((await facts('geometry.cpp')).summary).toBe('Defines class Point and namespace detail in namespace geo; uses cmath.');
  });

  it('is never just the language name, even for a file of top-level statements', async () => {
    expect((await facts('side-effects.js')).summary).toBe('Uses dotenv.');
    const bare = composeSummary({ fileType: 'JavaScript source', symbols: [], exports: [], dependencies: [], terms: ['request', 'counter'], keys: [] });
    expect(bare).toBe('JavaScript source with top-level code only, mentioning request and counter.');
  });
});

describe('main functions', () => {
  const symbol = (kind: CodeSymbol['kind'], astPath: string): CodeSymbol => ({
    kind,
    name: astPath.slice(astPath.lastIndexOf('-') + 1),
    ast_path: astPath,
    start_line: 1,
    end_line: 1,
  });

  it('keeps 40, preferring exported and outer definitions over nested ones, in file order', () => {
    const nested = Array.from({ length: 45 }, (_, i) => symbol('function', `helper-inner${i}`));
    const symbols = [symbol('function', 'helper'), ...nested, symbol('class', 'Api'), symbol('method', 'Api-get'), symbol('constant', 'VERSION')];
    const main = mainFunctions(symbols, ['Api', 'VERSION']);
    expect(main).toHaveLength(40);
    expect(main.slice(0, 1)).toEqual(['helper']);
    expect(main.slice(-3)).toEqual(['Api', 'Api.get', 'VERSION']);
  });

  it('leaves constants out unless they are exported', () => {
    expect(mainFunctions([symbol('constant', 'LIMIT'), symbol('function', 'run')], [])).toEqual(['run']);
  });
});
