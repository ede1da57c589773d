/**
 * What the model must answer, defined once with zod: the JSON schema sent with each request is generated
 * from it, and every answer is checked against it before it is used. A request carries one file or a pack
 * of several, and the answer is always `{ files: [...] }`, one entry per file keyed by its path, each
 * checked on its own: a relationship of an unknown type, or one below the confidence floor, is dropped on
 * its own; an entry without a summary is rejected whole, and only that file is asked again.
 */
import { z } from 'zod';
import type { FileRelationship } from '../index/types.js';
import type { JsonSchema } from './provider.js';

const text = z.string().trim().min(1);

function relationshipShape(types: readonly string[]) {
  return z.strictObject({
    target_file_path: text,
    relationship_type: z.enum(types as [string, ...string[]]),
    confidence_score: z.number().min(0).max(1),
    helpful_aspects: z.array(z.string()).max(8),
    potential_contributions: z.array(z.string()).max(8),
    usage_suggestions: z.string(),
  });
}

/** How many of a file's symbols get a one-line description, and how long one may be. */
export const MAX_DESCRIBED_SYMBOLS = 12;
export const MAX_DESCRIPTION_LENGTH = 160;

const descriptionShape = z.strictObject({ name: text, description: text });

// Key order is the order a model writes in: the symbols' descriptions come before the summary built on them.
const profileCore = {
  file_type: text,
  symbols: z.array(descriptionShape).max(MAX_DESCRIBED_SYMBOLS),
  summary: text,
  key_concepts: z.array(text).max(12),
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
  /** The schema of an answer for one or more files: `{ files: [{ path, ...profile }] }`. */
  readonly schema: JsonSchema;
  private readonly core;
  private readonly relationship;

  constructor(readonly types: readonly string[] | null, readonly minConfidence: number) {
    const entry = types
      ? z.strictObject({ path: text, ...profileCore, relationships: z.array(relationshipShape(types)).max(12) })
      : z.strictObject({ path: text, ...profileCore });
    const { $schema: _ignored, ...schema } = z.toJSONSchema(z.strictObject({ files: z.array(entry) }), { target: 'draft-7' }) as JsonSchema;
    this.schema = schema;
    this.core = z.object({ ...profileCore, symbols: z.array(z.unknown()).optional(), relationships: z.array(z.unknown()).optional() });
    this.relationship = types ? relationshipShape(types).loose() : null;
  }

  /**
   * The entries of a packed answer by path, or a string naming why the answer as a whole is unusable. An
   * entry whose path was not asked for is dropped, and a path answered twice counts as not answered.
   */
  entries(value: unknown, paths: readonly string[]): Map<string, unknown> | string {
    const files = (value as { files?: unknown } | null)?.files;
    if (typeof value !== 'object' || value === null || !Array.isArray(files)) return 'answer: expected an object with a files array';
    const asked = new Set(paths);
    const found = new Map<string, unknown>();
    const twice = new Set<string>();
    for (const item of files) {
      const raw = (item as { path?: unknown } | null)?.path;
      const path = typeof raw === 'string' ? raw.trim().replace(/^\.\//, '') : '';
      if (!asked.has(path)) continue;
      if (found.has(path)) twice.add(path);
      found.set(path, item);
    }
    for (const path of twice) found.delete(path);
    return found;
  }

  /** The checked answer, or a string naming what is wrong with it. */
  parse(value: unknown): ProfileAnswer | string {
    const core = this.core.safeParse(value);
    if (!core.success) return core.error.issues.map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ');
    const relationships: ProfileAnswer['relationships'] = [];
    let rejected = 0;
    if (this.relationship) {
      for (const raw of core.data.relationships ?? []) {
        const parsed = this.relationship.safeParse(raw);
        if (parsed.success && parsed.data.confidence_score > this.minConfidence) {
          const { target_file_path, relationship_type, confidence_score, helpful_aspects, potential_contributions, usage_suggestions } = parsed.data;
          relationships.push({ target_file_path, relationship_type, confidence_score, helpful_aspects, potential_contributions, usage_suggestions });
        } else {
          rejected++;
        }
      }
    }
    const descriptions: SymbolDescription[] = [];
    for (const raw of (core.data.symbols ?? []).slice(0, MAX_DESCRIBED_SYMBOLS)) {
      const parsed = descriptionShape.loose().safeParse(raw);
      if (!parsed.success) continue;
      const line = parsed.data.description.split('\n')[0]?.trim() ?? '';
      if (line) descriptions.push({ name: parsed.data.name, description: line.length > MAX_DESCRIPTION_LENGTH ? `${line.slice(0, MAX_DESCRIPTION_LENGTH - 1)}…` : line });
    }
    return {
      file_type: core.data.file_type,
      summary: core.data.summary,
      key_concepts: [...new Set(core.data.key_concepts)],
      descriptions,
      relationships,
      rejected_relationships: rejected,
    };
  }
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
