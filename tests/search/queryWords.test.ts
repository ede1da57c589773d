/**
 * Query words the code uses are kept: numbers (404, 500, an error number) and negations inside a phrase
 * (`not found`), on both sides, so a request finds `res.status(404)` and `NotFound`.
 */
import { describe, expect, it } from 'vitest';
import { vocabularyEntries } from '../../src/extract/vocabulary.js';
import { Tokenizer } from '../../src/search/profileTokens.js';
import { bm25fInput, search } from '../../src/search/search.js';
import { parseTaskText, withoutPositions } from '../../src/search/taskQuery.js';
import { TASK_PARAMS, taskInput } from '../../src/search/taskRank.js';
import { corpusOf, staticProfile } from '../support/fileSummary.js';
import { formatVocabulary } from '../../src/index/vocabulary.js';
import type { CodeSymbol } from '../../src/index/types.js';

describe('the tokenizer', () => {
  const tokenizer = new Tokenizer();

  it('keeps numbers of three to five digits that stand alone, and drops short ones, decimals and versions', () => {
    expect(tokenizer.text('custom handler for 404 routes')).toContain('404');
    expect(tokenizer.text('errno 10061 and 500')).toEqual(['errno', '10061', '500']);
    expect(tokenizer.text('retry 3 times after 2.5 s, version 1.2.300')).not.toContain('300');
    expect(tokenizer.text('retry 3 times')).toEqual(['retry', 'tim']);
  });

  it('keeps a negation inside a phrase as one word with the next, as the identifier NotFound gives', () => {
    const phrase = tokenizer.text('custom handler for 404 not found routes');
    expect(phrase).toEqual(['custom', 'handler', '404', 'notfound', 'found', 'rout']);
    expect(tokenizer.identifier('NotFound')).toContain('notfound');
    expect(tokenizer.text('no content')).toContain('nocontent');
    expect(tokenizer.text('not. found')).not.toContain('notfound');
  });
});

describe('a search', () => {
  const corpus = corpusOf([
    staticProfile('lib/four-oh-four.js', { vocabulary: formatVocabulary(vocabularyEntries("reply.code(404).send({ message: 'Route not found' })")) }),
    staticProfile('lib/reply.js', { vocabulary: formatVocabulary(vocabularyEntries('reply code send found header route 200')) }),
  ]);

  it('answers a query that is only a number', () => {
    const answer = search(corpus, { query: '404', maxResults: 5 });
    expect(answer.references.map((r) => r.file_path)[0]).toBe('lib/four-oh-four.js');
  });

  it('ranks the file that says "not found" first for a query that says it', () => {
    expect(search(corpus, { query: 'route not found', maxResults: 5 }).references[0]?.file_path).toBe('lib/four-oh-four.js');
  });
});

describe('a few plain words', () => {
  const type = (name: string): CodeSymbol => ({ kind: 'struct', name, ast_path: name, start_line: 1, end_line: 9 });
  // Both files hold every word; only one defines the name the words make.
  const corpus = corpusOf([
    staticProfile('errors.go', { symbols: [type('mutuallyExclusiveGroup'), type('mutuallyExclusiveGroupRequiredFlag')], vocabulary: formatVocabulary(vocabularyEntries('mutually exclusive flags: flag group required; mutually exclusive flags set; exclusive flags error')) }),
    staticProfile('flag_mutex.go', { symbols: [type('MutuallyExclusiveFlags')], vocabulary: formatVocabulary(vocabularyEntries('mutually exclusive flag group check')) }),
  ]);

  it('are also read as the name they make: the file defining MutuallyExclusiveFlags comes first for "mutually exclusive flags"', () => {
    expect(search(corpus, { query: 'mutually exclusive flags', maxResults: 5 }).references.map((r) => r.file_path)).toEqual(['flag_mutex.go', 'errors.go']);
  });

  it('make no name past four words, nor of a word that is not letters', () => {
    const defines = (query: string) => bm25fInput(corpus, '', [query], []).defines;
    expect(defines('mutually exclusive flags')).toBe('mutuallyexclusiveflag');
    expect(defines('mutually exclusive flags of a group')).toBeUndefined();
    expect(defines('mutually exclusive flags2')).toBeUndefined();
  });
});

describe('a report\'s positions', () => {
  const corpus = corpusOf([staticProfile('src/Buffer.java', { vocabulary: formatVocabulary(vocabularyEntries('int SIZE = 128; int LIMIT = 404; status 500')) })]);
  const words = (text: string) => [...(taskInput(corpus, parseTaskText(text), TASK_PARAMS.k3).termWeights?.keys() ?? [])];

  it('are no words of the request: a frame\'s line, a path\'s line and column, Python\'s "line N"', () => {
    const report = [
      'Upload fails with status 500 and then 404 on retry',
      '\tat com.acme.Buffer.fill(Buffer.java:128)',
      '    at upload (src/app.js:289:13)',
      '  File "/srv/app/store.py", line 415, in save',
    ].join('\n');
    const kept = words(report);
    expect(kept).toEqual(expect.arrayContaining(['500', '404']));
    for (const position of ['128', '289', '13', '415']) expect(kept).not.toContain(position);
  });

  it('leave a number alone that follows no name', () => {
    expect(withoutPositions('status 500: retry at 10:30')).toContain('500');
    expect(withoutPositions('Buffer.java:128 and localhost:8080')).not.toMatch(/128|8080/);
  });
});
