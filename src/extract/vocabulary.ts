/**
 * A file's vocabulary: every identifier-like word it contains, in code, comments and string literals alike,
 * with its count. This is what grep sees, kept in the index so that a request in the author's own words
 * ("expand an IPv6 address", "retry after a timeout") finds the file from the index alone.
 *
 * Stored as one compact string, most frequent first (the format is in src/index/vocabulary.ts). Words that
 * differ only in case are one entry, written in their most frequent form (`CACHE_TTL` and `cache_ttl` split
 * alike). English function words and the keywords that are only syntax (`fn`, `elif`) are left out, and so is
 * the rarest tail past `MAX_VOCABULARY` entries, which bounds the index on any file.
 * Secrets are screened out first, as for a model's prompt: an index is shared like code is.
 */
import { redactSecrets } from '../shared/secrets.js';
import { SEARCH_STOPWORDS } from '../shared/text.js';
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
/** The `REDACTED` of `[REDACTED:aws_access_key]`, which screening leaves in place of each secret. */
const REDACTION_MARK = 'REDACTED';

export function fileVocabulary(content: string): string {
  const byKey = new Map<string, { count: number; forms: Map<string, number> }>();
  for (const [word, n] of countIdentifiers(redactSecrets(content).text)) {
    if (word.length < 2 || word.length > MAX_WORD_LENGTH) continue;
    const key = word.toLowerCase();
    if (SEARCH_STOPWORDS.has(key) || word === REDACTION_MARK) continue;
    let entry = byKey.get(key);
    if (!entry) {
      entry = { count: 0, forms: new Map() };
      byKey.set(key, entry);
    }
    entry.count += n;
    entry.forms.set(word, (entry.forms.get(word) ?? 0) + n);
  }
  const entries = [...byKey.entries()]
    .sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, MAX_VOCABULARY);
  return formatVocabulary(entries.map(([, { count, forms }]) => [commonestForm(forms), count]));
}

function commonestForm(forms: Map<string, number>): string {
  let best = '';
  let bestCount = -1;
  for (const [form, count] of forms) {
    if (count > bestCount || (count === bestCount && form < best)) {
      best = form;
      bestCount = count;
    }
  }
  return best;
}
