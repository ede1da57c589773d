/**
 * What the model must answer, defined once with zod: the JSON schema sent with each request is generated
 * from it, and every answer is checked against it before it is used. A relationship of an unknown type, or
 * one below the confidence floor, is dropped on its own; an answer without a summary is rejected whole.
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

const profileCore = {
  file_type: text,
  summary: text,
  key_concepts: z.array(text).max(12),
};

export interface ProfileAnswer {
  file_type: string;
  summary: string;
  key_concepts: string[];
  relationships: Array<Omit<FileRelationship, 'repo_file_path'>>;
  /** Relationships dropped for an unknown type, a bad shape or low confidence. */
  rejected_relationships: number;
}

/**
 * The profile answer's request schema and checker, built once per run: relationships are asked for, and
 * checked against the configured types, only when there is a target structure (`types` not null).
 */
export class ProfileAnswerFormat {
  readonly schema: JsonSchema;
  private readonly core;
  private readonly relationship;

  constructor(readonly types: readonly string[] | null, readonly minConfidence: number) {
    const shape = types
      ? z.strictObject({ ...profileCore, relationships: z.array(relationshipShape(types)).max(12) })
      : z.strictObject(profileCore);
    const { $schema: _ignored, ...schema } = z.toJSONSchema(shape, { target: 'draft-7' }) as JsonSchema;
    this.schema = schema;
    this.core = z.object({ ...profileCore, relationships: z.array(z.unknown()).optional() });
    this.relationship = types ? relationshipShape(types).loose() : null;
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
    return {
      file_type: core.data.file_type,
      summary: core.data.summary,
      key_concepts: [...new Set(core.data.key_concepts)],
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
