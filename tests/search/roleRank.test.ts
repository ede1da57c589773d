/**
 * Roles that match what a file is, and the ranking they give: declarations below their implementation, lock
 * files below any code, benchmarks, documentation sites and tests below source, unless the query asks for them.
 */
import { describe, expect, it } from 'vitest';
import { detectRole } from '../../src/extract/role.js';
import type { CodeSymbol, FileSummary } from '../../src/index/types.js';
import { search, type SearchCorpus } from '../../src/search/search.js';
import type { SearchRequest } from '../../src/search/types.js';
import { corpusOf, staticProfile } from '../support/fileSummary.js';

const symbol = (name: string, kind: CodeSymbol['kind'] = 'function'): CodeSymbol => ({ kind, name, ast_path: name, start_line: 1, end_line: 5 });
const file = (file_path: string, fields: Partial<FileSummary> = {}): FileSummary => staticProfile(file_path, { role: detectRole(file_path), ...fields });
const ranking = (corpus: SearchCorpus, request: SearchRequest): string[] => search(corpus, { maxResults: 20, ...request }).references.map((r) => r.file_path);

describe('a file role from its path', () => {
  it.each([
    ['types/hooks.d.ts', 'types'],
    ['index.d.ts', 'types'],
    ['src/jsx.d.mts', 'types'],
    ['type-definitions/immutable.d.ts', 'types'],
    ['stubs/requests/api.pyi', 'types'],
    ['index.test-d.ts', 'test'],
    ['pnpm-lock.yaml', 'lockfile'],
    ['package-lock.json', 'lockfile'],
    ['yarn.lock', 'lockfile'],
    ['Cargo.lock', 'lockfile'],
    ['poetry.lock', 'lockfile'],
    ['go.sum', 'lockfile'],
    ['benches/src/keyed-children/store.js', 'benchmark'],
    ['bench/run.ts', 'benchmark'],
    ['website/src/StarBtn.tsx', 'docs'],
    ['docs/conf.py', 'docs'],
    ['examples/basic/server.js', 'example'],
    ['sandbox/server.js', 'example'],
    ['playground/src/App.vue', 'example'],
    ['src/sandbox/realm.js', 'source'],
    ['karma.sauce.conf.js', 'config'],
    ['protractor.conf.ts', 'config'],
    ['scripts/preview-theme.js', 'build'],
    ['ci/steps/publish-npm.sh', 'build'],
    ['.github/scripts/lint-ecosystem.js', 'build'],
    ['.github/workflows/ci.yml', 'config'],
    ['.github/ISSUE_TEMPLATE/bug_report.md', 'docs'],
    ['src/scripts/loader.js', 'source'],
    ['tokio-test/src/io.rs', 'test'],
    ['tests-integration/src/bin/test-cat.rs', 'test'],
    ['jib-core/src/integration-test/java/Command.java', 'test'],
    ['sympy/integrals/rubi/rubi_tests/__init__.py', 'test'],
    ['test-helpers/context.js', 'test'],
    ['src/latest/index.js', 'source'],
    ['src/contest/score.py', 'source'],
    ['testing/_pytest/fixtures.py', 'test'],
    ['tests/functional/a/assign.py', 'test'],
    ['tests/data/sample.py', 'test'],
    ['src/__tests__/render.js', 'test'],
    ['spec/router_spec.rb', 'test'],
    ['test/browser/render.test.js', 'test'],
    ['lib/hooks.js', 'source'],
    ['src/website.ts', 'source'],
  ])('%s is %s', (filePath, role) => {
    expect(detectRole(filePath)).toBe(role);
  });
});

describe('ranking by role', () => {
  const hooks = [symbol('onRequest'), symbol('hookRunner'), symbol('runHooks')];
  const corpus = corpusOf([
    file('lib/hooks.js', { symbols: hooks, key_concepts: ['hooks', 'request'], lines_of_code: 200 }),
    file('types/hooks.d.ts', { symbols: [...hooks, symbol('onRequestHookHandler', 'type'), symbol('RequestHooks', 'interface')], key_concepts: ['hooks', 'request', 'onrequest'], lines_of_code: 400 }),
    file('types/instance.d.ts', { symbols: [symbol('onRequest', 'method'), symbol('FastifyInstance', 'interface')], key_concepts: ['instance', 'hooks', 'request'], lines_of_code: 600 }),
    file('pnpm-lock.yaml', { language: 'YAML', key_concepts: ['hooks', 'request', 'runner'], lines_of_code: 9000 }),
  ]);

  it('puts the implementation above its .d.ts declarations, which outrank it on words alone', () => {
    expect(ranking(corpus, { query: 'where are onRequest hooks executed for each request' })).toEqual(['lib/hooks.js', 'types/hooks.d.ts', 'types/instance.d.ts', 'pnpm-lock.yaml']);
  });

  it('lets a query about TypeScript declarations have them first', () => {
    expect(ranking(corpus, { query: 'typescript declaration of onRequest hooks' })[0]).toBe('types/hooks.d.ts');
  });

  it('still answers with a declaration file when nothing else matches', () => {
    expect(ranking(corpus, { query: 'FastifyInstance' })[0]).toBe('types/instance.d.ts');
  });

  it('never puts a lock file above code that matches', () => {
    const withLock = corpusOf([
      file('packages/runtime-core/src/apiWatch.ts', { symbols: [symbol('watch')], lines_of_code: 30 }),
      file('pnpm-lock.yaml', { language: 'YAML', key_concepts: ['watch', 'scheduler', 'flush', 'vue', 'compiler', 'sfc'], summary: 'vue compiler sfc scheduler flush watch', symbols: [], lines_of_code: 12000 }),
    ]);
    expect(ranking(withLock, { query: 'vue compiler sfc scheduler flush watch' })).toEqual(['packages/runtime-core/src/apiWatch.ts', 'pnpm-lock.yaml']);
  });

  it('puts the declaration file beside one of the first files, which that file takes its types from, right after it, and leaves one from another folder below the code', () => {
    const cards = corpusOf([
      file('src/cards/top-languages-card.js', { symbols: [symbol('renderTopLanguages'), symbol('trimTopLanguages')], vocabulary: 'languages:12 langs_count:3 langs:8 count:8 card:12 hide:4 layout:3', local_imports: ['src/cards/types.d.ts', 'types/index.d.ts'], lines_of_code: 300 }),
      file('src/cards/types.d.ts', { symbols: [symbol('TopLangOptions', 'type'), symbol('CommonOptions', 'type')], vocabulary: 'options:40 theme:30 color:30 border:20 title:20 width:10 langs_count:1', lines_of_code: 300 }),
      file('src/fetchers/types.d.ts', { symbols: [symbol('TopLangData', 'type'), symbol('Lang', 'type')], vocabulary: 'languages:4 langs:2 count:2 other:1', lines_of_code: 40 }),
      file('src/cards/wakatime-card.js', { symbols: [symbol('renderWakatimeCard')], vocabulary: 'languages:10 langs_count:2 langs:4 count:4 card:10 hide:2', lines_of_code: 300 }),
      file('src/fetchers/top-languages-fetcher.js', { symbols: [symbol('fetchTopLanguages')], vocabulary: 'languages:20 langs:3 count:3 other:2', local_imports: ['src/fetchers/types.d.ts'], lines_of_code: 200 }),
      file('api/top-langs.js', { symbols: [symbol('handler')], vocabulary: 'langs_count:2 langs:5 count:5 card:3 hide:2 layout:1', lines_of_code: 80 }),
      file('types/index.d.ts', { symbols: [symbol('Renderer', 'interface')], vocabulary: 'languages:2 langs:1 card:2 count:1', lines_of_code: 200 }),
    ]);
    const report = [
      'Add "Other" to the languages card',
      'The language card could show an "Other" percentage when limiting the languages shown via `langs_count`, so the',
      'share of everything that is cut off still shows. It may also be useful as the tenth entry when someone has used',
      'more than ten languages across their repositories. There is no alternative within what the card does today.',
    ].join('\n');
    const ranked = ranking(cards, { query: report });
    expect(ranked.slice(0, 2)).toEqual(['src/cards/top-languages-card.js', 'src/cards/types.d.ts']);
    const lastCode = Math.max(...ranked.map((p, i) => (p.endsWith('.js') ? i : -1)));
    expect(ranked.indexOf('types/index.d.ts')).toBeGreaterThan(lastCode);
  });

  it('puts benchmarks and the documentation site below source, unless asked for', () => {
    const site = corpusOf([
      file('src/diff/children.js', { symbols: [symbol('diffChildren')], key_concepts: ['keyed', 'children'], lines_of_code: 100 }),
      file('benches/src/keyed-children/store.js', { symbols: [symbol('keyedChildren'), symbol('store')], key_concepts: ['keyed', 'children', 'store'], lines_of_code: 100 }),
      file('website/src/StarBtn.tsx', { symbols: [symbol('StarBtn')], key_concepts: ['keyed', 'children'], lines_of_code: 100 }),
    ]);
    expect(ranking(site, { query: 'keyed children' })[0]).toBe('src/diff/children.js');
    expect(ranking(site, { query: 'keyed children benchmark' })[0]).toBe('benches/src/keyed-children/store.js');
  });
});
