/**
 * A file's vocabulary: every identifier-like word it contains, in code, comments and string literals alike,
 * with its count. This is what grep sees, kept in the index so that a request in the author's own words
 * ("expand an IPv6 address", "retry after a timeout") finds the file from the index alone. The URLs a comment, a
 * page or a configuration file links to are left out (withoutLinks): where a text points is not what it says. A
 * URL in a string literal of code stays.
 *
 * Stored as one compact string, most frequent first (the format is in src/index/vocabulary.ts). Words that
 * differ only in case are one entry, written in their most frequent form (`CACHE_TTL` and `cache_ttl` split
 * alike). English function words and the keywords that are only syntax (`fn`, `elif`) are left out, and so is
 * the rarest tail past `MAX_VOCABULARY` entries, which bounds the index on any file.
 * Secrets are screened out first, as for a model's prompt: an index is shared like code is.
 */
import { redactSecrets } from '../shared/secrets.js';
import { compareCodeUnits, SEARCH_STOPWORDS, withoutLinks } from '../shared/text.js';
import { countIdentifiers } from './wordCache.js';
import { formatVocabulary } from '../index/vocabulary.js';

/**
 * Entries kept per file. The rare tail is what tells a file apart (`protobuf` said once in a table of file types),
 * so the bound is set to cut it from few files: the 99th percentile of a Rust, Java or JavaScript repository's
 * files has about 600 to 1,000 distinct words (the median 50 to 150). It keeps a generated or data file from
 * bloating the index.
 */
export const MAX_VOCABULARY = 1000;
const MAX_WORD_LENGTH = 48;
/** A number of three to five digits standing alone: not part of a name, a decimal, a version or a longer number. */
const STANDALONE_NUMBER = /(?<![\w.])\d{3,5}(?![\w]|\.\d)/g;
/** The `REDACTED` of `[REDACTED:aws_access_key]`, which screening leaves in place of each secret. */
const REDACTION_MARK = 'REDACTED';

/** `configuration`: the file is configuration, whose quoted URLs are links too (withoutLinks). */
export function fileVocabulary(content: string, configuration = false): string {
  return formatVocabulary(vocabularyEntries(content, configuration));
}

/** The entries `fileVocabulary` writes, as [word, count], most frequent first: what `parseVocabulary` reads back. */
export function vocabularyEntries(content: string, configuration = false): Array<[string, number]> {
  const byKey = new Map<string, VocabularyEntry>();
  const text = withoutLinks(redactSecrets(content).text, configuration);
  const counts = countIdentifiers(text);
  // Numbers the code uses (`404`, `res.status(500)`, errno `10061`) are words a request names them by.
  for (const [number] of text.matchAll(STANDALONE_NUMBER)) counts.set(number, (counts.get(number) ?? 0) + 1);
  for (const [word, n] of counts) {
    if (word.length < 2 || word.length > MAX_WORD_LENGTH) continue;
    const key = word.toLowerCase();
    if (SEARCH_STOPWORDS.has(key) || word === REDACTION_MARK) continue;
    const entry = byKey.get(key);
    if (!entry) byKey.set(key, { key, count: n, form: word, formCount: n });
    else {
      entry.count += n;
      // Each spelling comes once, with its whole count: the commonest is kept, the least in code order on a tie.
      if (n > entry.formCount || (n === entry.formCount && word < entry.form)) {
        entry.form = word;
        entry.formCount = n;
      }
    }
  }
  return [...byKey.values()]
    .sort((a, b) => b.count - a.count || compareCodeUnits(a.key, b.key))
    .slice(0, MAX_VOCABULARY)
    .map(({ form, count }) => [form, count]);
}

/** The words of one lower-cased key: their total count and the commonest spelling. */
interface VocabularyEntry {
  key: string;
  count: number;
  form: string;
  formCount: number;
}
