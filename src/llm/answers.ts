/**
 * What the model must answer, defined once with zod: the JSON schema sent with each request is generated
 * from it, and every answer is checked against it before it is used. A request carries one file or a pack
 * of several, and the answer is always `{ files: [...] }`, one entry per file, each checked on its own: a
 * relationship of an unknown type, or one below the confidence floor, is dropped on its own; an entry
 * without a summary is rejected whole, and only that file is asked again.
 *
 * The requested shape is as short as its information allows, since answer tokens set a call's time and most
 * of its price: an entry names its file by the number of its file tag (`file: 2`), not by echoing its path;
 * a symbol's line is one string, `"name: what it does"`, not an object repeating `name` and `description`
 * keys; keys are short words; relationships are asked for only with a target structure. Objects stay objects
 * (no positional tuples): OpenAI's strict structured output takes no `prefixItems`, and a named field is
 * harder for a model to misplace. The parser is lenient: it also takes the long keys (`path`, `file_type`,
 * `key_concepts`, `target_file_path`, …), symbols as `{name, description}` objects or a `{name: description}`
 * map, and an entry naming its file by path, as imperfect models send them.
 */
import { z } from 'zod';
import type { FileRelationship } from '../index/types.js';
import type { JsonSchema } from './provider.js';

const text = z.string().trim().min(1);

/** The requested relationship: short keys, each standing for a field of the index's FileRelationship. */
function relationshipShape(types: readonly string[]) {
  return z.strictObject({
    to: text,
    type: z.enum(types as [string, ...string[]]),
    confidence: z.number().min(0).max(1),
    aspects: z.array(z.string()).max(8),
    contributions: z.array(z.string()).max(8),
    usage: z.string(),
  });
}

/** Long key (as the index and earlier prompts name it) -> the requested short key. */
const RELATIONSHIP_ALIASES: Record<string, string> = {
  target_file_path: 'to',
  path: 'to',
  relationship_type: 'type',
  confidence_score: 'confidence',
  helpful_aspects: 'aspects',
  potential_contributions: 'contributions',
  usage_suggestions: 'usage',
};
const ENTRY_ALIASES: Record<string, string> = {
  file_type: 'type',
  key_concepts: 'concepts',
  relationships: 'related',
};

/** How many of a file's symbols get a one-line description, and how long one may be. */
export const MAX_DESCRIBED_SYMBOLS = 12;
export const MAX_DESCRIPTION_LENGTH = 160;

// Key order is the order a model writes in: the symbols' lines come before the summary built on them.
const profileCore = {
  type: text,
  symbols: z.array(text).max(MAX_DESCRIBED_SYMBOLS),
  summary: text,
  concepts: z.array(text).max(12),
};

export interface SymbolDescription {
  /** The symbol's scope path (`Class-method`) or name, as listed in the prompt. */
  name: string;
  description: string;
}

export interface ProfileAnswer {
  file_type: string;
  summary: string;
  key_concepts: string[];
  /** One line per main symbol, bounded; names are checked against the file's symbols before use. */
  descriptions: SymbolDescription[];
  relationships: Array<Omit<FileRelationship, 'repo_file_path'>>;
  /** Relationships dropped for an unknown type, a bad shape or low confidence. */
  rejected_relationships: number;
}

/**
 * The profile answer's request schema and checker, built once per run: relationships are asked for, and
 * checked against the configured types, only when there is a target structure (`types` not null).
 */
export class ProfileAnswerFormat {
  /** The schema of an answer for one or more files: `{ files: [{ file, ...profile }] }`. */
  readonly schema: JsonSchema;
  private readonly core;
  private readonly relationship;

  constructor(readonly types: readonly string[] | null, readonly minConfidence: number) {
    const file = z.number().int().min(1);
    const entry = types
      ? z.strictObject({ file, ...profileCore, related: z.array(relationshipShape(types)).max(12) })
      : z.strictObject({ file, ...profileCore });
    const { $schema: _ignored, ...schema } = z.toJSONSchema(z.strictObject({ files: z.array(entry) }), { target: 'draft-7' }) as JsonSchema;
    this.schema = schema;
    this.core = z.object({ ...profileCore, symbols: z.unknown().optional(), related: z.array(z.unknown()).optional() });
    this.relationship = types ? relationshipShape(types).loose() : null;
  }

  /**
   * The entries of a packed answer by path (`paths` in the order of the request's file tags), or a string
   * naming why the answer as a whole is unusable. An entry names its file by tag number, or by path; one
   * naming a file not asked for is dropped, and a file answered twice counts as not answered.
   */
  entries(value: unknown, paths: readonly string[]): Map<string, unknown> | string {
    const files = (value as { files?: unknown } | null)?.files;
    if (typeof value !== 'object' || value === null || !Array.isArray(files)) return 'answer: expected an object with a files array';
    const asked = new Set(paths);
    const found = new Map<string, unknown>();
    const twice = new Set<string>();
    for (const item of files) {
      const path = entryPath(item, paths);
      if (path === null || !asked.has(path)) continue;
      if (found.has(path)) twice.add(path);
      found.set(path, item);
    }
    for (const path of twice) found.delete(path);
    return found;
  }

  /** The checked answer, or a string naming what is wrong with it. */
  parse(value: unknown): ProfileAnswer | string {
    const core = this.core.safeParse(renamed(value, ENTRY_ALIASES));
    if (!core.success) return core.error.issues.map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ');
    const relationships: ProfileAnswer['relationships'] = [];
    let rejected = 0;
    if (this.relationship) {
      for (const raw of core.data.related ?? []) {
        const parsed = this.relationship.safeParse(renamed(raw, RELATIONSHIP_ALIASES));
        if (parsed.success && parsed.data.confidence > this.minConfidence) {
          const { to, type, confidence, aspects, contributions, usage } = parsed.data;
          relationships.push({ target_file_path: to, relationship_type: type, confidence_score: confidence, helpful_aspects: aspects, potential_contributions: contributions, usage_suggestions: usage });
        } else {
          rejected++;
        }
      }
    }
    const descriptions: SymbolDescription[] = [];
    for (const { name, description } of symbolLines(core.data.symbols).slice(0, MAX_DESCRIBED_SYMBOLS)) {
      const line = description.split('\n')[0]?.trim() ?? '';
      if (name && line) descriptions.push({ name, description: line.length > MAX_DESCRIPTION_LENGTH ? `${line.slice(0, MAX_DESCRIPTION_LENGTH - 1)}…` : line });
    }
    return {
      file_type: core.data.type,
      summary: core.data.summary,
      key_concepts: [...new Set(core.data.concepts)],
      descriptions,
      relationships,
      rejected_relationships: rejected,
    };
  }
}

/**
 * The path an entry is about: `file` as the number of a file tag (1 for the request's first), or a path
 * under `file` or `path` (`./` and surrounding space dropped). Null when it names neither.
 */
function entryPath(item: unknown, paths: readonly string[]): string | null {
  const entry = item as { file?: unknown; path?: unknown } | null;
  for (const raw of [entry?.file, entry?.path]) {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
    if (Number.isInteger(n)) return paths[n - 1] ?? null;
    if (typeof raw === 'string' && raw.trim()) return raw.trim().replace(/^\.\//, '');
  }
  return null;
}

/** A copy of an object with long keys under their short names; a short key already present wins. */
function renamed(value: unknown, aliases: Record<string, string>): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const short = aliases[key] ?? key;
    if (!(short in out) || short === key) out[short] = v;
  }
  return out;
}

/**
 * The symbol lines of an answer, in the forms models send them: `"name: what it does"` strings (as asked, or
 * with ` - ` for the colon), `{name, description}` objects, or one `{name: description}` map. Anything else
 * is left out.
 */
function symbolLines(raw: unknown): SymbolDescription[] {
  const pairs: Array<[unknown, unknown]> = Array.isArray(raw)
    ? raw.map((item): [unknown, unknown] => {
        if (typeof item === 'string') {
          const sep = /:\s|\s[-–—]\s/.exec(item);
          return sep && sep.index > 0 ? [item.slice(0, sep.index), item.slice(sep.index + sep[0].length)] : [null, null];
        }
        const o = item as { name?: unknown; description?: unknown } | null;
        return [o?.name, o?.description];
      })
    : typeof raw === 'object' && raw !== null ? Object.entries(raw) : [];
  return pairs.flatMap(([name, description]) =>
    typeof name === 'string' && typeof description === 'string' && name.trim() && description.trim() ? [{ name: name.trim().replace(/^`|`$/g, ''), description: description.trim() }] : [],
  );
}

const prefilterShape = z.strictObject({ selected: z.array(z.number().int().min(1)) });

export function prefilterRequestSchema(): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(prefilterShape, { target: 'draft-7' }) as JsonSchema;
  return schema;
}

export function parsePrefilterAnswer(value: unknown): number[] | string {
  const parsed = z.object({ selected: z.array(z.number().int()) }).safeParse(value);
  return parsed.success ? parsed.data.selected : parsed.error.issues.map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ');
}
