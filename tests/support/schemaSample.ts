/**
 * Deterministic JSON-schema sample synthesis for the fake LLM server.
 *
 * `sampleFromSchema(schema, prompt)` returns a value that validates against
 * `schema` (the commonly used subset: object/properties/required/
 * additionalProperties, array/items/prefixItems/minItems/maxItems/uniqueItems,
 * enum/const, string (minLength/maxLength/format), number/integer
 * (minimum/maximum/exclusive bounds/multipleOf), boolean, null, nullable,
 * type arrays, anyOf/oneOf/allOf and local `$ref`s).
 *
 * Strings are built from words that occur in the prompt, and every choice is
 * driven by a hash of the prompt and the value's location in the schema, so
 * the same prompt always gives the same answer and different prompts
 * (different source files) give different answers.
 */

type Schema = Record<string, unknown>;

const MAX_DEPTH = 24;

const STOPWORDS = new Set(
  (
    'the and for with this that from into onto you your are was were will would should could must can may ' +
    'not but all any each every only also than then them they their there these those what when where which ' +
    'who whom why how its our out use used using has have had been being does did doing done just very more ' +
    'most some such other about above below over under again further once here both few own same too per via ' +
    'json schema object string number integer boolean array null true false undefined properties required ' +
    'type types items enum answer return returns respond response following given file files code please ' +
    'const let var function import export default class interface extends implements async await new void ' +
    'public private protected static readonly typeof instanceof else while break continue switch case try ' +
    'catch finally throw yield def self none elif pass lambda'
  ).split(/\s+/),
);

const FALLBACK_WORDS = ['module', 'handler', 'config', 'index', 'parser', 'record', 'service', 'helper'];

/** FNV-1a 32-bit hash. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function mix(a: number, b: number): number {
  let h = (a ^ Math.imul(b, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Words of the prompt, code-like identifiers first, each once, in order of first appearance. */
export function extractWords(prompt: string): string[] {
  const seen = new Set<string>();
  const identifiers: string[] = [];
  const plain: string[] = [];
  for (const match of prompt.matchAll(/[A-Za-z_][A-Za-z0-9_]{2,39}/g)) {
    const word = match[0];
    const lower = word.toLowerCase();
    if (STOPWORDS.has(lower) || seen.has(word)) continue;
    seen.add(word);
    const codeLike = /[a-z][A-Z]|_|\d/.test(word) || /^[A-Z][a-z]+[A-Z]/.test(word);
    (codeLike ? identifiers : plain).push(word);
  }
  return [...identifiers, ...plain];
}

function extractPaths(prompt: string): string[] {
  const out = new Set<string>();
  for (const match of prompt.matchAll(/(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{1,6}\b/g)) {
    if (!match[0].includes('://')) out.add(match[0]);
    if (out.size >= 50) break;
  }
  return [...out];
}

interface Ctx {
  root: unknown;
  promptHash: number;
  words: string[];
  identifiers: string[];
  paths: string[];
}

export interface SampleOptions {
  /** Extra text mixed into the hash (e.g. a request counter) to vary answers for the same prompt. */
  salt?: string;
}

/** Produce a value that validates against `schema`, derived deterministically from `prompt`. */
export function sampleFromSchema(schema: unknown, prompt: string, options: SampleOptions = {}): unknown {
  const words = extractWords(prompt);
  const identifiers = words.filter((w) => /[a-z][A-Z]|_|\d/.test(w) || /^[A-Z][a-z]+[A-Z]/.test(w));
  const ctx: Ctx = {
    root: schema,
    promptHash: hashString(prompt + (options.salt ?? '')),
    words: words.length > 0 ? words.slice(0, 400) : FALLBACK_WORDS,
    identifiers: identifiers.length > 0 ? identifiers.slice(0, 400) : words.length > 0 ? words.slice(0, 400) : FALLBACK_WORDS,
    paths: extractPaths(prompt),
  };
  return sample(ctx, schema, '$', '', 0);
}

function isObject(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function resolveRef(ctx: Ctx, ref: string): unknown {
  if (!ref.startsWith('#')) return {};
  const parts = ref
    .slice(1)
    .split('/')
    .filter((p) => p.length > 0)
    .map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = ctx.root;
  for (const part of parts) {
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node)) node = node[part];
    else return {};
  }
  return node ?? {};
}

/** Merge allOf members (shallow, good enough for generated schemas). */
function mergeAllOf(ctx: Ctx, schema: Schema, depth: number): Schema {
  const { allOf, ...rest } = schema;
  let merged: Schema = { ...rest };
  if (!Array.isArray(allOf)) return merged;
  for (const part0 of allOf) {
    let part: unknown = part0;
    if (isObject(part) && typeof part['$ref'] === 'string') part = resolveRef(ctx, part['$ref']);
    if (!isObject(part)) continue;
    if (Array.isArray(part['allOf']) && depth < MAX_DEPTH) part = mergeAllOf(ctx, part, depth + 1);
    const p = part as Schema;
    const props = { ...(isObject(merged['properties']) ? merged['properties'] : {}), ...(isObject(p['properties']) ? p['properties'] : {}) };
    const required = [
      ...(Array.isArray(merged['required']) ? merged['required'] : []),
      ...(Array.isArray(p['required']) ? p['required'] : []),
    ];
    merged = { ...p, ...merged };
    if (Object.keys(props).length > 0) merged['properties'] = props;
    if (required.length > 0) merged['required'] = [...new Set(required)];
  }
  return merged;
}

function pickType(schema: Schema): string | undefined {
  const t = schema['type'];
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const nonNull = t.find((x) => typeof x === 'string' && x !== 'null');
    if (typeof nonNull === 'string') return nonNull;
    return t.includes('null') ? 'null' : undefined;
  }
  if (isObject(schema['properties']) || schema['additionalProperties'] !== undefined || Array.isArray(schema['required'])) return 'object';
  if (schema['items'] !== undefined || Array.isArray(schema['prefixItems'])) return 'array';
  if (
    num(schema['minimum']) !== undefined ||
    num(schema['maximum']) !== undefined ||
    num(schema['exclusiveMinimum']) !== undefined ||
    num(schema['exclusiveMaximum']) !== undefined ||
    num(schema['multipleOf']) !== undefined
  )
    return 'number';
  return undefined;
}

function sample(ctx: Ctx, schema0: unknown, path: string, key: string, depth: number): unknown {
  if (schema0 === true || schema0 === undefined) return word(ctx, path, 0);
  if (schema0 === false || !isObject(schema0)) return null;
  let schema: Schema = schema0;

  if (depth > MAX_DEPTH) return minimal(schema);

  if (typeof schema['$ref'] === 'string') {
    const { $ref, ...rest } = schema;
    const target = resolveRef(ctx, $ref as string);
    schema = isObject(target) ? { ...target, ...rest } : rest;
    return sample(ctx, schema, path, key, depth + 1);
  }
  if (Array.isArray(schema['allOf'])) schema = mergeAllOf(ctx, schema, depth);

  if ('const' in schema) return schema['const'];
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) {
    const members = schema['enum'];
    return members[h(ctx, path, 'enum') % members.length];
  }

  for (const combinator of ['anyOf', 'oneOf'] as const) {
    const branches = schema[combinator];
    if (Array.isArray(branches) && branches.length > 0) {
      const { [combinator]: _dropped, ...rest } = schema;
      const branch = branches.find((b) => !(isObject(b) && b['type'] === 'null')) ?? branches[0];
      const merged = isObject(branch) ? { ...rest, ...branch } : branch;
      return sample(ctx, merged, path, key, depth + 1);
    }
  }

  const type = pickType(schema);
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return (h(ctx, path, 'bool') & 1) === 1;
    case 'integer':
      return sampleNumber(ctx, schema, path, true);
    case 'number':
      return sampleNumber(ctx, schema, path, false);
    case 'array':
      return sampleArray(ctx, schema, path, key, depth);
    case 'object':
      return sampleObject(ctx, schema, path, depth);
    case 'string':
    default:
      return sampleString(ctx, schema, path, key);
  }
}

function minimal(schema: Schema): unknown {
  const t = schema['type'];
  const types = Array.isArray(t) ? t : [t];
  if (types.includes('null') || schema['nullable'] === true) return null;
  if (types.includes('array')) return [];
  if (types.includes('object')) return {};
  if (types.includes('integer') || types.includes('number')) return num(schema['minimum']) ?? 0;
  if (types.includes('boolean')) return false;
  return '';
}

function h(ctx: Ctx, path: string, salt: string | number): number {
  return mix(ctx.promptHash, hashString(`${path}#${salt}`));
}

function word(ctx: Ctx, path: string, k: number, pool: string[] = ctx.words): string {
  return pool[h(ctx, path, `w${k}`) % pool.length] ?? 'value';
}

/** One word from each pool, distinct where the pools allow it. */
function distinctWords(ctx: Ctx, path: string, pools: string[][]): string[] {
  const out: string[] = [];
  pools.forEach((pool, k) => {
    let idx = h(ctx, path, `w${k}`) % pool.length;
    for (let tries = 0; tries < pool.length && out.includes(pool[idx] ?? ''); tries++) idx = (idx + 1) % pool.length;
    out.push(pool[idx] ?? 'value');
  });
  return out;
}

function lowerFirst(s: string): string {
  return s.length > 0 ? s[0]!.toLowerCase() + s.slice(1) : s;
}

function plausibleString(ctx: Ctx, path: string, key: string): string {
  const k = key.toLowerCase();
  const w = (i: number, pool?: string[]) => word(ctx, path, i, pool);
  if (/path|file|module|location/.test(k)) {
    if (ctx.paths.length > 0) return ctx.paths[h(ctx, path, 'path') % ctx.paths.length] ?? 'src/index.ts';
    return `src/${lowerFirst(w(0, ctx.identifiers))}.ts`;
  }
  if (/url|uri|link|href/.test(k)) return `https://example.com/${encodeURIComponent(lowerFirst(w(0)))}`;
  if (/email/.test(k)) return `${lowerFirst(w(0)).replace(/[^A-Za-z0-9_]/g, '')}@example.com`;
  if (/version/.test(k)) return `${h(ctx, path, 'v') % 5}.${h(ctx, path, 'v2') % 10}.0`;
  if (/date|time|created|updated/.test(k)) return '2024-01-01T00:00:00Z';
  if (/signature/.test(k)) {
    const [a, b, c] = distinctWords(ctx, path, [ctx.identifiers, ctx.words, ctx.words]);
    return `${a}(${lowerFirst(b ?? 'value')}, ${lowerFirst(c ?? 'value')})`;
  }
  if (/summary|description|purpose|explanation|overview|doc|comment|reason|rationale|detail|note|responsibilit/.test(k)) {
    const verbs = ['Handles', 'Provides', 'Implements', 'Coordinates', 'Defines', 'Wraps', 'Builds', 'Validates'];
    const verb = verbs[h(ctx, path, 'verb') % verbs.length] ?? 'Handles';
    const [a, b, c] = distinctWords(ctx, path, [ctx.identifiers, ctx.words, ctx.words]);
    return `${verb} ${a} and ${b} for ${c}.`;
  }
  if (/name|symbol|identifier|^id$|_id$|Id$|class|function|method|export|import|dependenc/.test(k) || /Id$/.test(key)) {
    return w(0, ctx.identifiers);
  }
  if (/tag|keyword|topic|concept|term|label|category|kind|role/.test(k)) return lowerFirst(w(0)).toLowerCase();
  const [a, b] = distinctWords(ctx, path, [ctx.words, ctx.words]);
  return `${a} ${lowerFirst(b ?? 'value')}`;
}

function sampleString(ctx: Ctx, schema: Schema, path: string, key: string): string {
  const format = typeof schema['format'] === 'string' ? schema['format'] : undefined;
  let s: string;
  switch (format) {
    case 'date-time':
      s = '2024-01-01T00:00:00Z';
      break;
    case 'date':
      s = '2024-01-01';
      break;
    case 'time':
      s = '00:00:00Z';
      break;
    case 'email':
      s = `${lowerFirst(word(ctx, path, 0)).replace(/[^A-Za-z0-9_]/g, '') || 'user'}@example.com`;
      break;
    case 'uri':
    case 'url':
      s = `https://example.com/${encodeURIComponent(lowerFirst(word(ctx, path, 0)))}`;
      break;
    case 'uuid': {
      const hex = [0, 1, 2, 3].map((i) => h(ctx, path, `u${i}`).toString(16).padStart(8, '0')).join('');
      s = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
      break;
    }
    default:
      s = plausibleString(ctx, path, key);
  }
  const minLength = num(schema['minLength']) ?? 0;
  const maxLength = num(schema['maxLength']);
  let extra = 3;
  while ([...s].length < minLength) {
    s += ` ${lowerFirst(word(ctx, path, extra++))}`;
    if (extra > 10_000) break;
  }
  if (maxLength !== undefined && [...s].length > maxLength) s = [...s].slice(0, Math.max(0, maxLength)).join('').trimEnd();
  while ([...s].length < minLength) s += 'x';
  return s;
}

function sampleNumber(ctx: Ctx, schema: Schema, path: string, integer: boolean): number {
  let lo = num(schema['minimum']);
  let hi = num(schema['maximum']);
  let loExclusive = false;
  let hiExclusive = false;
  const exMin = schema['exclusiveMinimum'];
  const exMax = schema['exclusiveMaximum'];
  if (typeof exMin === 'number' && (lo === undefined || exMin >= lo)) {
    lo = exMin;
    loExclusive = true;
  } else if (exMin === true && lo !== undefined) loExclusive = true;
  if (typeof exMax === 'number' && (hi === undefined || exMax <= hi)) {
    hi = exMax;
    hiExclusive = true;
  } else if (exMax === true && hi !== undefined) hiExclusive = true;

  const r = h(ctx, path, 'num');
  const step = num(schema['multipleOf']);

  if (integer || (step !== undefined && step > 0)) {
    const unit = step !== undefined && step > 0 ? (integer ? lcmInt(step) : step) : 1;
    let kLo = lo === undefined ? undefined : Math.ceil(lo / unit);
    let kHi = hi === undefined ? undefined : Math.floor(hi / unit);
    if (kLo !== undefined && loExclusive && kLo * unit <= lo!) kLo++;
    if (kHi !== undefined && hiExclusive && kHi * unit >= hi!) kHi--;
    if (kLo === undefined && kHi === undefined) {
      kLo = Math.ceil(1 / unit);
      kHi = kLo + Math.max(1, Math.floor(100 / unit));
    } else if (kLo === undefined) kLo = kHi! - Math.max(1, Math.floor(100 / unit));
    else if (kHi === undefined) kHi = kLo + Math.max(1, Math.floor(100 / unit));
    if (kHi! < kLo) return kLo * unit; // unsatisfiable; best effort
    const span = kHi! - kLo + 1;
    const k = kLo + (r % span);
    const v = k * unit;
    return integer ? Math.round(v) : Number(v.toPrecision(12));
  }

  if (lo === undefined && hi === undefined) return (r % 10000) / 100;
  if (lo === undefined) lo = hi! - 100;
  if (hi === undefined) hi = lo + 100;
  const frac = ((r % 997) + 1) / 999; // strictly inside (0, 1)
  let v = lo + (hi - lo) * frac;
  const rounded = Math.round(v * 100) / 100;
  if (rounded > lo && rounded < hi) v = rounded;
  if (!loExclusive && !hiExclusive && hi === lo) v = lo;
  return v;
}

function lcmInt(step: number): number {
  // integer values that are multiples of `step`
  if (Number.isInteger(step)) return step;
  let m = 1;
  while (!Number.isInteger(Number((m * step).toPrecision(12))) && m < 1_000_000) m++;
  return Number((m * step).toPrecision(12));
}

function sampleArray(ctx: Ctx, schema: Schema, path: string, key: string, depth: number): unknown[] {
  const minItems = Math.max(0, num(schema['minItems']) ?? 0);
  const maxItems = num(schema['maxItems']);
  const prefix = Array.isArray(schema['prefixItems']) ? schema['prefixItems'] : Array.isArray(schema['items']) ? schema['items'] : [];
  const itemSchema = Array.isArray(schema['items']) ? (schema['additionalItems'] ?? {}) : schema['items'];
  let n = Math.max(minItems, prefix.length, 1 + (h(ctx, path, 'len') % 3));
  if (schema['items'] === false && !Array.isArray(schema['items'])) n = Math.min(n, prefix.length);
  if (maxItems !== undefined) n = Math.min(n, maxItems);
  n = Math.max(n, Math.min(minItems, maxItems ?? minItems));
  const unique = schema['uniqueItems'] === true;
  const out: unknown[] = [];
  const seen = new Set<string>();
  const itemKey = singular(key);
  for (let i = 0, attempt = 0; out.length < n && attempt < n * 8 + 8; attempt++) {
    const sub = i < prefix.length ? prefix[i] : itemSchema;
    const value = sample(ctx, sub, `${path}[${attempt}]`, itemKey, depth + 1);
    if (unique) {
      const sig = JSON.stringify(value);
      if (seen.has(sig)) continue;
      seen.add(sig);
    }
    out.push(value);
    i++;
  }
  return out;
}

function singular(key: string): string {
  if (/ies$/.test(key)) return key.replace(/ies$/, 'y');
  if (/s$/.test(key) && !/ss$/.test(key)) return key.slice(0, -1);
  return key;
}

function sampleObject(ctx: Ctx, schema: Schema, path: string, depth: number): Record<string, unknown> {
  const props = isObject(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : [];
  const out: Record<string, unknown> = {};
  for (const [name, sub] of Object.entries(props)) {
    out[name] = sample(ctx, sub, `${path}.${name}`, name, depth + 1);
  }
  const additional = schema['additionalProperties'];
  for (const name of required) {
    if (!(name in out)) out[name] = sample(ctx, isObject(additional) ? additional : {}, `${path}.${name}`, name, depth + 1);
  }
  const minProperties = num(schema['minProperties']) ?? 0;
  let i = 0;
  while (Object.keys(out).length < minProperties && additional !== false && i < minProperties * 4 + 4) {
    const name = lowerFirst(word(ctx, `${path}{}`, i));
    if (!(name in out)) out[name] = sample(ctx, isObject(additional) ? additional : {}, `${path}.${name}`, name, depth + 1);
    i++;
  }
  return out;
}
