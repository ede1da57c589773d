import { describe, expect, it } from 'vitest';
import { indexRepo, search } from '../../src/lib.js';
import { candidateTermsOf, chooseConcepts } from '../../src/extract/staticProfile.js';
import { fileVocabulary, MAX_VOCABULARY } from '../../src/extract/vocabulary.js';
import { parseVocabulary } from '../../src/index/vocabulary.js';
import { WordCache } from '../../src/extract/wordCache.js';
import { makeTempRepo } from '../support/tempRepo.js';

describe('a file vocabulary', () => {
  it('counts the words of code, comments and strings, most frequent first', () => {
    const source = [
      '// Expands a compressed IPv6 address into its eight hextets.',
      'function expandIPv6(address) {',
      '  if (!address) throw new Error("empty address given");',
      '  return expandIPv6(address.trim());',
      '}',
    ].join('\n');
    const entries = new Map(parseVocabulary(fileVocabulary(source)));
    expect(entries.get('address')).toBe(5);
    expect(entries.get('expandIPv6')).toBe(2);
    expect(entries.get('hextets')).toBe(1);
    expect(entries.get('empty')).toBe(1);
    expect(fileVocabulary(source).startsWith('address:5 expandIPv6:2')).toBe(true);
  });

  it('leaves out function words and keywords that are only syntax, and keeps keywords a request may mean', () => {
    const words = parseVocabulary(fileVocabulary('pub fn short(&self) -> Option<char> { self.short } // and the default type')).map(([w]) => w);
    expect(words).not.toContain('fn');
    expect(words).not.toContain('self');
    expect(words).not.toContain('the');
    expect(words).toEqual(expect.arrayContaining(['short', 'default', 'type', 'char', 'Option']));
  });

  it('writes words differing only in case once, in their commonest form', () => {
    expect(fileVocabulary('CACHE_TTL cache_ttl cache_ttl')).toBe('cache_ttl:3');
  });

  it(`keeps at most ${MAX_VOCABULARY} words, dropping the rarest`, () => {
    const source = Array.from({ length: MAX_VOCABULARY + 40 }, (_, i) => `word${i}`).join(' ') + ' common common';
    const entries = parseVocabulary(fileVocabulary(source));
    expect(entries).toHaveLength(MAX_VOCABULARY);
    expect(entries[0]).toEqual(['common', 2]);
  });

  it('keeps a word said once in a long module, where it tells the file apart', () => {
    const table = Array.from({ length: 300 }, (_, i) => `    (&["lang${i}"], &["*.lang${i}"]),`);
    const source = ['pub const DEFAULT_TYPES: &[(&[&str], &[&str])] = &[', ...table, '    (&["protobuf"], &["*.pb"]),', '];'].join('\n');
    expect(parseVocabulary(fileVocabulary(source)).map(([w]) => w)).toContain('protobuf');
  });

  it('never holds a secret the file contains', () => {
    const vocabulary = fileVocabulary('AWS_KEY = "AKIAIOSFODNN7EXAMPLE"\npassword = "hunter2horse"\n');
    expect(vocabulary).toContain('AWS_KEY');
    expect(vocabulary).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(vocabulary).not.toContain('hunter2horse');
  });

  it('leaves out the URLs a comment or a page links to, and keeps the URLs the code uses', () => {
    const source = [
      '// Fixes https://github.com/acme/widget/pull/530#issuecomment-148138051',
      '/** Read [the manual](https://docs.example.org/guide/caching) and <https://shields.io/badge/build>. */',
      'const RELEASES = "https://api.example.com/repos/releases";',
      'const html = \'<a href="https://opencollective.com/acme/backer/website">\';',
      'fetch(`https://api.example.com/graphql/${query}`);',
    ].join('\n');
    const words = parseVocabulary(fileVocabulary(source)).map(([w]) => w);
    for (const linked of ['issuecomment', 'pull', 'guide', 'caching', 'shields', 'badge', 'opencollective', 'backer', 'website']) expect(words).not.toContain(linked);
    expect(words).toEqual(expect.arrayContaining(['Fixes', 'manual', 'RELEASES', 'repos', 'graphql', 'query', 'fetch', 'href']));
  });

  it('leaves out every URL of a configuration file, quoted or not', () => {
    const manifest = '[package]\nname = "grep-cli"\nrepository = "https://github.com/BurntSushi/ripgrep/tree/master/crates/cli"\n';
    expect(parseVocabulary(fileVocabulary(manifest)).map(([w]) => w)).toContain('BurntSushi');
    const words = parseVocabulary(fileVocabulary(manifest, true)).map(([w]) => w);
    expect(words).toEqual(expect.arrayContaining(['package', 'name', 'grep', 'cli', 'repository']));
    for (const linked of ['BurntSushi', 'ripgrep', 'tree', 'master', 'crates']) expect(words).not.toContain(linked);
  });

  it('is read as configuration for a file of that role when a repository is indexed', async () => {
    const repo = makeTempRepo({
      'Cargo.toml': '[package]\nname = "grep-cli"\nrepository = "https://github.com/BurntSushi/ripgrep"\n',
      'src/releases.js': 'const RELEASES = "https://api.example.com/repos/releases";\nmodule.exports = RELEASES;\n',
    });
    const index = await indexRepo(repo.root);
    const vocabularyOf = (path: string) => parseVocabulary(index.file_summaries.find((f) => f.file_path === path)?.vocabulary).map(([w]) => w);
    expect(vocabularyOf('Cargo.toml')).toContain('repository');
    expect(vocabularyOf('Cargo.toml')).not.toContain('BurntSushi');
    expect(vocabularyOf('src/releases.js')).toContain('repos');
  });

  it('reads a hand-edited vocabulary without failing', () => {
    expect(parseVocabulary('a:x  b:-2 c:3 :4 d')).toEqual([['c', 3], ['d', 1]]);
    expect(parseVocabulary(undefined)).toEqual([]);
  });
});

describe('words that live only in bodies, comments and strings', () => {
  it('make their file searchable from the index alone', async () => {
    const repo = makeTempRepo({
      'src/net.js': 'function convert(x) {\n  // normalise the hextets of a link-local address\n  return x.split(":");\n}\nmodule.exports = convert;\n',
      'src/log.js': 'function write(line) {\n  console.log("flushing the journal to disk");\n}\nmodule.exports = write;\n',
      'src/other.js': 'function other() { return 1; }\n',
    });
    const index = await indexRepo(repo.root);
    const top = (query: string) => search([index], { query }).references[0]?.file_path;
    expect(top('hextets link local')).toBe('src/net.js');
    expect(top('journal flushing')).toBe('src/log.js');
  });
});

describe('key concepts', () => {
  it('are chosen again from stored profiles alone, equal to what the run chose', async () => {
    const repo = makeTempRepo({
      'src/cache.ts': '/** A cache whose entries expire after a time to live. */\nexport class TtlCache { evict() {} expireEntries() {} }\n',
      'src/router.ts': 'export function route(path: string) { return matchRoute(path); }\nfunction matchRoute(p: string) { return p; }\n',
      'src/util.ts': 'export const clamp = (v: number) => Math.max(0, v);\n',
    });
    const index = await indexRepo(repo.root);
    const stored = JSON.parse(JSON.stringify(index.file_summaries)) as typeof index.file_summaries;
    for (const file of stored) file.key_concepts = [];
    chooseConcepts(stored);
    expect(stored.map((f) => f.key_concepts)).toEqual(index.file_summaries.map((f) => f.key_concepts));
    expect(index.file_summaries.find((f) => f.file_path === 'src/cache.ts')?.key_concepts).toContain('cache');
  });

  it('weigh symbol names above words of the body', () => {
    const cache = new WordCache();
    const terms = candidateTermsOf(
      {
        file_path: 'src/a.ts',
        file_type: 'TypeScript source',
        summary: 'Defines function throttleRequests.',
        summary_source: 'composed',
        profile_source: 'static',
        symbols: [{ kind: 'function', name: 'throttleRequests', ast_path: 'throttleRequests', start_line: 1, end_line: 1 }],
        vocabulary: 'buffer:3 throttleRequests',
      },
      cache,
    );
    expect(terms.slice(0, 2).map(([term]) => term).sort()).toEqual(['requests', 'throttle']);
    expect(terms[2]?.[0]).toBe('buffer');
  });

  it('take no word from a URL that a summary or a doc comment links to', () => {
    const terms = candidateTermsOf(
      {
        file_path: 'src/frames.py',
        file_type: 'Python source',
        summary: 'Supergalactic coordinates, as defined in https://adsabs.harvard.edu/abs/2000MNRAS.312..255L.',
        summary_source: 'doc',
        profile_source: 'static',
        symbols: [{ kind: 'class', name: 'Supergalactic', ast_path: 'Supergalactic', start_line: 1, end_line: 9, doc: 'A frame. See http://example.org/frames/reference.' }],
        vocabulary: 'Supergalactic:2',
      },
      new WordCache(),
    ).map(([term]) => term);
    expect(terms).toEqual(expect.arrayContaining(['supergalactic', 'coordinates', 'frame']));
    for (const linked of ['adsabs', 'harvard', 'abs', 'mnras', 'reference']) expect(terms).not.toContain(linked);
  });
});

describe('a Rust file with its unit tests inside', () => {
  const source = [
    '/// Finds the line terminator in a buffer.',
    'pub fn find_terminator(haystack: &[u8]) -> Option<usize> {',
    '    haystack.iter().position(|&b| b == b\'\\n\')',
    '}',
    '',
    '#[cfg(test)]',
    'mod tests {',
    '    use super::*;',
    '',
    '    const SHERLOCK: &str = "For the Doctor Watsons of this world, as opposed to the Sherlock Holmeses";',
    '',
    '    #[test]',
    '    fn finds_terminator_in_sherlock() {',
    '        assert_eq!(find_terminator(SHERLOCK.as_bytes()), None);',
    '    }',
    '}',
    '',
  ].join('\n');

  it('leaves the test module\'s words out of the vocabulary, as a test file\'s words would be', async () => {
    const repo = makeTempRepo({ 'src/lines.rs': source });
    const index = await indexRepo(repo.root);
    const file = index.file_summaries.find((f) => f.file_path === 'src/lines.rs');
    const words = parseVocabulary(file?.vocabulary).map(([w]) => w);
    expect(words).toEqual(expect.arrayContaining(['find_terminator', 'haystack', 'terminator', 'buffer']));
    expect(words).not.toContain('Sherlock');
    expect(words).not.toContain('SHERLOCK');
    expect(words).not.toContain('Watsons');
    expect(file?.symbols.map((s) => s.name)).toContain('finds_terminator_in_sherlock');
  });

  it('recognises a test module whose cfg also names a feature, and one nested in another module', async () => {
    const nested = `pub mod inner {\n    pub fn terminator() {}\n\n${source.replace('#[cfg(test)]', '#[cfg(all(test, feature = "pcre2"))]')}}\n`;
    const repo = makeTempRepo({ 'src/lines.rs': nested });
    const index = await indexRepo(repo.root);
    const words = parseVocabulary(index.file_summaries[0]?.vocabulary).map(([w]) => w);
    expect(words).toContain('haystack');
    expect(words).not.toContain('Watsons');
  });

  it('keeps every word of a module that is not compiled for tests only', async () => {
    const repo = makeTempRepo({ 'src/lines.rs': source.replace('#[cfg(test)]', '#[cfg(unix)]') });
    const index = await indexRepo(repo.root);
    expect(parseVocabulary(index.file_summaries[0]?.vocabulary).map(([w]) => w)).toContain('Watsons');
  });
});
