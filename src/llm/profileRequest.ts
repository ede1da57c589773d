/**
 * The one place profile requests are built, for live calls, packed calls and batch submissions alike:
 *
 *   system prompt | shared prefix (instructions, answer format, focus, target structure) | file parts
 *
 * The shared prefix is the same bytes in every request of a run, so providers serve it from their prompt
 * cache; each file's part follows (`<file n="2" path="...">` with the parser's skeleton and a screened excerpt;
 * `n` is the part's place in its request, which the answer's entries name instead of echoing the path).
 * A request for one file is a pack of one: the answer format is the same, so single and packed requests share
 * their prefix too. `buildProfileRequest(shared, parts)` gives the provider-neutral request; `openai.ts`'s
 * `chatCompletionBody` and `anthropic.ts`'s `messagesBody` turn it into the exact wire body.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config/schema.js';
import type { CodeSymbol, FileRole } from '../index/types.js';
import type { ProfileAnswerFormat } from './answers.js';
import { MAX_DESCRIBED_SYMBOLS } from './answers.js';
import { renderPrompt, type PromptSet } from './prompts.js';
import type { StructuredRequest } from './provider.js';
import { redactSecrets } from '../shared/secrets.js';

export interface ProfileRequestContext {
  prompts: PromptSet;
  config: Config;
  targetStructure: string | null;
  focus: string | null;
  answerFormat: ProfileAnswerFormat;
}

/** Everything of a profile request but its file parts; built once per run. */
export interface SharedPrefix {
  system: string;
  prefix: string;
  schema: StructuredRequest['schema'];
  schemaName: string;
  cacheKey: string;
  maxTokens: number;
  temperature: number;
  /** Answer tokens a file's entry is expected to take, before its symbols. */
  answerTokensPerFile: number;
}

/** The parser's facts a file part shows. */
export interface FileFacts {
  path: string;
  language: string;
  role: FileRole;
  lines_of_code: number;
  symbols: readonly CodeSymbol[];
  dependencies: readonly string[];
}

export interface FilePart {
  path: string;
  text: string;
  /** Estimated prompt tokens of the part. */
  tokens: number;
  /** Estimated answer tokens of the file's entry. */
  answerTokens: number;
  secretsRedacted: number;
}

/** The documented rough estimate of ~4 characters a token; exact counts come back in each response's usage. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const MAX_SKELETON_LINES = 60;
/**
 * A symbol's `"name: line"` string; with `answerTokensPerFile` (200 with a target structure, 80 without),
 * what the earlier long shape's estimates (22, 260 and 110) come to without its keys and the echoed path.
 */
const ANSWER_TOKENS_PER_SYMBOL = 16;
/** Left in a part's text for its number, which is known once the part has its place in a request. */
const FILE_NUMBER = '{{n}}';

export function sharedPrefix(ctx: ProfileRequestContext): SharedPrefix {
  const { llm, relationships } = ctx.config;
  const prefix = `${renderPrompt(ctx.prompts.profile, {
    focus: ctx.focus ? renderPrompt(ctx.prompts.focus, { focus: ctx.focus }) : '',
    relationships: ctx.targetStructure
      ? renderPrompt(ctx.prompts.relationships, {
          target_structure: ctx.targetStructure,
          relationship_types: Object.entries(relationships.relationship_types).map(([t, w]) => `${t} (weight ${w})`).join(', '),
          min_confidence: String(relationships.min_confidence_score),
        })
      : '',
  })}\n\n`;
  const schema = ctx.answerFormat.schema;
  const cacheKey = `coderag-profile-${createHash('sha256').update(llm.system_prompt).update('\0').update(prefix).update('\0').update(JSON.stringify(schema)).digest('hex').slice(0, 24)}`;
  return {
    system: llm.system_prompt,
    prefix,
    schema,
    schemaName: 'file_profiles',
    cacheKey,
    maxTokens: llm.max_tokens,
    temperature: llm.temperature,
    answerTokensPerFile: ctx.targetStructure ? 200 : 80,
  };
}

/**
 * One file's part: its path, the parser's skeleton and imports, and a secret-screened head of its content.
 * For a chunk of a long file, `chunk` names the lines it covers, and `facts` carries the chunk's own path
 * (`file#2`) and symbols.
 */
export function buildFilePart(
  facts: FileFacts,
  content: string,
  ctx: Pick<ProfileRequestContext, 'prompts' | 'config'>,
  shared: Pick<SharedPrefix, 'answerTokensPerFile'>,
  chunk?: { index: number; count: number; startLine: number; endLine: number },
): FilePart {
  const limit = ctx.config.file_analysis.max_content_length;
  const head = content.length > limit ? content.slice(0, limit) : content;
  const excerpt = redactSecrets(head);
  const skeletonText = facts.symbols
    .slice(0, MAX_SKELETON_LINES)
    .map((s) => `- ${s.kind} ${s.ast_path} (${s.start_line}-${s.end_line})${s.doc ? `: ${s.doc}` : ''}`)
    .join('\n');
  const skeleton = redactSecrets(skeletonText || '(none found)');
  const more = facts.symbols.length > MAX_SKELETON_LINES ? `\n- … and ${facts.symbols.length - MAX_SKELETON_LINES} more` : '';
  const text = `${renderPrompt(ctx.prompts.file, {
    n: FILE_NUMBER,
    file_path: facts.path,
    language: facts.language,
    role: facts.role.replace('_', ' '),
    lines_of_code: String(facts.lines_of_code),
    skeleton: `${skeleton.text}${more}`,
    imports: facts.dependencies.slice(0, 30).join(', ') || '(none)',
    excerpt_note: chunk
      ? ` (lines ${chunk.startLine}-${chunk.endLine}, part ${chunk.index} of ${chunk.count} of this file)`
      : content.length > limit ? ` (first ${limit} of ${content.length} characters)` : '',
    excerpt: excerpt.text,
  })}\n`;
  return {
    path: facts.path,
    text,
    tokens: estimateTokens(text),
    answerTokens: shared.answerTokensPerFile + ANSWER_TOKENS_PER_SYMBOL * Math.min(facts.symbols.length, MAX_DESCRIBED_SYMBOLS),
    secretsRedacted: excerpt.count + skeleton.count,
  };
}

/** The request for one or more file parts, in the order given; `signal` is the caller's to add. */
export function buildProfileRequest(shared: SharedPrefix, parts: readonly FilePart[]): Omit<StructuredRequest, 'signal'> {
  return {
    system: shared.system,
    prefix: shared.prefix,
    prompt: parts.map((p, i) => p.text.replace(FILE_NUMBER, String(i + 1))).join('\n'),
    schema: shared.schema,
    schemaName: shared.schemaName,
    cacheKey: shared.cacheKey,
    maxTokens: shared.maxTokens,
    temperature: shared.temperature,
  };
}
