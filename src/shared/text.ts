/**
 * Words from code: identifier splitting (camelCase, snake_case, digits), a light stemmer, and stopwords.
 * Shared by the static profiler (key concepts) and the search scorers, so both sides see the same tokens:
 * `ttl` is a token of `cacheTtl`, never of `settle`.
 */

const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/**
 * `parseHTTPResponse` -> ['parse', 'http', 'response']; `max_file_size` -> ['max', 'file', 'size']. Digits stay
 * with the word they follow, because in code they are part of the name: `isIPv4` -> ['is', 'ipv4'],
 * `Int32Array` -> ['int32', 'array'], `sha256sum` -> ['sha256', 'sum'], `toBase64` -> ['to', 'base64'].
 * One pass over the characters: this runs for every identifier of every file, so it avoids regexes.
 */
export function splitIdentifier(identifier: string): string[] {
  const out: string[] = [];
  let start = -1;
  let previous = 0; // 0 none, 1 lower, 2 upper, 3 digit
  const n = identifier.length;
  for (let i = 0; i < n; i++) {
    const c = identifier.charCodeAt(i);
    const kind = c >= 97 && c <= 122 ? 1 : c >= 65 && c <= 90 ? 2 : c >= 48 && c <= 57 ? 3 : 0;
    if (kind === 0) {
      if (start >= 0) out.push(identifier.slice(start, i).toLowerCase());
      start = -1;
      previous = 0;
      continue;
    }
    if (start < 0) {
      start = i;
    } else if (
      (kind === 2 && (previous === 1 || previous === 3)) ||
      (kind === 1 && previous === 3) ||
      // the last capital of a run starts a new word when a lowercase letter follows: HTTPResponse -> HTTP Response,
      // but a plural acronym stays whole (URLs, APIs), and so does a versioned one (IPv4, HTTPv2)
      (kind === 2 && previous === 2 && i + 1 < n && isLower(identifier.charCodeAt(i + 1)) && !isPluralS(identifier, i + 1) && !isVersionV(identifier, i + 1))
    ) {
      out.push(identifier.slice(start, i).toLowerCase());
      start = i;
    }
    previous = kind;
  }
  if (start >= 0) out.push(identifier.slice(start).toLowerCase());
  return out;
}

function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** A lone lowercase letter followed by a digit after a run of capitals: the `v` of `IPv4`. */
function isVersionV(identifier: string, i: number): boolean {
  return i + 1 < identifier.length && isDigit(identifier.charCodeAt(i + 1));
}

/** A lone `s` closing a run of capitals: the next character is not a lowercase letter. */
function isPluralS(identifier: string, i: number): boolean {
  return identifier.charCodeAt(i) === 115 && (i + 1 >= identifier.length || !isLower(identifier.charCodeAt(i + 1)));
}

/** Every identifier-like run in `text`, split into lowercase words. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(IDENTIFIER)) {
    for (const w of splitIdentifier(match[0])) out.push(w);
  }
  return out;
}

/**
 * The string as one of its own. A name the parser read, or a word split from a longer text, is a slice of that
 * text, and V8 keeps the whole text alive for as long as a slice of it (13 characters or more) lives: a cache
 * keyed by slices would hold hundreds of files.
 */
export function detached(key: string): string {
  return key.length < 13 ? key : ` ${key}`.slice(1);
}

/**
 * `text` as an answer shows it within `max` characters: whole when it fits, else cut with one ellipsis (never
 * after half of a character written as two code units, an emoji, nor after an ellipsis the text had).
 */
export function clipped(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end).replace(/(?:\.\.\.|…)$/, '').trimEnd()}…`;
}

/**
 * Strings in the order of their UTF-16 code units: the same on every machine, where `localeCompare` follows the
 * locale the process starts in (Lithuanian sorts `y` before `j`), so an index would depend on where it was made.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A light suffix stemmer: enough to bring `caching`, `cached`, `caches` and `cache` together, without
 * Porter's surprises on code words. Short words are left alone. It groups a file's words when its concepts are
 * chosen; search matches with the lighter `searchStem`.
 */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.length <= 3) return w;
  w = singular(w);
  if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  return withoutFinalE(w);
}

/**
 * The stemmer search matches with, on both sides: plurals and a final e only (`caches`, `cache` -> `cach`;
 * `entries` -> `entry`). It leaves -ing and -ed alone: in code those forms are often names of their own
 * (`string` is not `str`, `setting` not `set`, `padding` not `pad`, `matching` not `match`), and folding them
 * lowered bench/eval's MRR on both halves of both sets.
 */
export function searchStem(word: string): string {
  const w = word.toLowerCase();
  return w.length <= 3 ? w : withoutFinalE(singular(w));
}

function singular(w: string): string {
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.length > 4 && /(x|ch|sh|us|is|as)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !/(ss|us|is)$/.test(w) && !KEEP_S.has(w)) return w.slice(0, -1);
  return w;
}

function withoutFinalE(w: string): string {
  return w.endsWith('e') && w.length > 3 ? w.slice(0, -1) : w;
}

/** Singulars that end in a plural-looking `s`: `aliases` and `alias` both stem to `alias`. */
const KEEP_S: ReadonlySet<string> = new Set(['alias', 'atlas', 'bias', 'canvas', 'chaos', 'lens', 'news']);

/** `stopp` -> `stop`, `runn` -> `run`; a three-letter word keeps its pair: `add`. */
function undouble(w: string): string {
  return w.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

/** Lowercase, stemmed tokens of free text or identifiers, stopwords removed. */
export function tokens(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (w.length < 2 || STOPWORDS.has(w) || /^\d+$/.test(w)) continue;
    out.push(stem(w));
  }
  return out;
}

/**
 * Words a search skips on both sides, the request and the index: English function words, and the keywords that
 * are only syntax (`fn`, `elif`, `self`), which no request uses to say what it wants.
 */
export const SEARCH_STOPWORDS: ReadonlySet<string> = wordSet(`a an and are as at be been but by can could did do
  does for from had has have he her his how i if in into is it its just may me might more most must my no nor not
  of on or our out over own same shall she should so some such than that the their them then there these they this
  those through to too under up upon very was we were what when where which while who whom why will with would you
  your also only other any each all both few many much via per var let const func fn def self impl mod mut pub val
  else elif fi esac elsif keyof typeof instanceof println printf`);

/**
 * Language keywords that are also words of a request: a `short` option, the `default` value, an error `type`, a
 * `trait` object, `async` code. Search keeps them, and their idf weighs them; they never make a file's concept.
 */
const CONTENT_KEYWORDS: ReadonlySet<string> = wordSet(`return returns true false null none nil undefined void
  function class super import export default package public private protected static final abstract async await
  yield extends implements interface type enum struct trait use using namespace include require module exports int
  float double bool boolean str char byte long short unsigned signed switch case break continue try catch except
  finally throw throws raise lambda pass begin end done unless until loop crate ref readonly declare delete print
  echo`);

/** English function words and language keywords: they say nothing about what code does. */
export const STOPWORDS: ReadonlySet<string> = new Set([...SEARCH_STOPWORDS, ...CONTENT_KEYWORDS]);

/**
 * Words every program uses, placeholder names of samples and docs (`foo`, `hello`, `lorem`) and the hosts of URLs:
 * kept in queries, but never a file's characteristic concept.
 */
export const CODE_NOISE: ReadonlySet<string> = wordSet(`get set new todo fixme xxx http https www com org js ts py go
  rs src lib index main test tests spec args kwargs argv arg opts options option params param value values data
  result results err tmp temp obj item items key keys len length size name names list map dict array arr el elem
  x y z i j k n m s t v e f cb ctx cls id ids str num val res req call calls string number object any unknown
  never this that todo use used make makes run runs copyright license licensed software permission notice warranty
  express implied limited without including distributed version apache mit gnu author authors init constructor
  describe expect assert should mock spy before after each done foo bar baz qux quux corge grault garply waldo fred
  plugh xyzzy thud hello world lorem ipsum dolor amet acme alice bob example github githubusercontent localhost`);

/** Every URL: in a configuration file a quoted one is a link too (`repository = "https://github.com/…"`). */
const ANY_URL = /\b(?:https?|ftp):\/\/[^\s"'`<>()[\]{}]+/g;
/**
 * A URL that a text links to: in prose, a comment, a docstring, a markdown link (`[issue](https://…)`, `<https://…>`)
 * or an HTML link (`href="https://…"`, `src=`). A URL right after any other quote is a string literal's, one the code
 * fetches or builds (`"https://api.github.com/repos"`), and is not one of these.
 */
const LINKED_URL = new RegExp(`(?<!(?<!\\b(?:href|src)=)["'\`])${ANY_URL.source}`, 'g');

/**
 * The text with the URLs it links to blanked (LINKED_URL, or every URL when `quotedToo`, for a configuration file):
 * their hosts, paths and anchors (`blob`, `master`, `issuecomment`, `shields`, an author's handle) are where the
 * text points, not what the file is about.
 */
export function withoutLinks(text: string, quotedToo = false): string {
  return text.includes('://') ? text.replace(quotedToo ? ANY_URL : LINKED_URL, ' ') : text;
}

function wordSet(text: string): ReadonlySet<string> {
  return new Set(text.split(/\s+/).filter(Boolean));
}

/** A path's file name without its extensions, lower-case: `src/Cache.test.ts` gives `cache`, `.eslintrc.js` `.eslintrc`. */
export function fileStem(filePath: string): string {
  const base = filePath.slice(filePath.lastIndexOf('/') + 1).toLowerCase();
  const dot = base.indexOf('.', 1);
  return dot > 0 ? base.slice(0, dot) : base;
}
