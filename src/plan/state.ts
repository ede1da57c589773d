/**
 * The planning conversation's checkpoint: one JSON file beside the output, rewritten atomically after every
 * model answer and every author answer, so a crash or kill -9 loses at most the turn in flight. A state file
 * that cannot be read back is an error naming it, never a silent fresh start.
 */
import { readFile, rm } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../shared/atomicFile.js';
import { CodeRagError } from '../shared/errors.js';
import type { ModelTurn } from './turn.js';

export const STATE_FORMAT = 'coderag-plan-state';
export const STATE_VERSION = 1;

export interface PlanTurn {
  model: ModelTurn;
  /** The author's answer; null while it is awaited. */
  answer: string | null;
}

export interface PlanState {
  format: typeof STATE_FORMAT;
  version: typeof STATE_VERSION;
  query: string;
  /** The input documents and index overview as sent to the model, screened, so a resumed run sees the same. */
  context: string;
  turns: PlanTurn[];
  started_at: string;
  updated_at: string;
}

const fileShape = z.object({ path: z.string(), purpose: z.string(), draws_on: z.array(z.string()) });
const stateShape = z.object({
  format: z.literal(STATE_FORMAT),
  version: z.literal(STATE_VERSION),
  query: z.string().min(1),
  context: z.string(),
  turns: z.array(
    z.object({
      model: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('question'), message: z.string() }),
        z.object({ kind: z.literal('proposal'), message: z.string(), files: z.array(fileShape).min(1) }),
      ]),
      answer: z.string().nullable(),
    }),
  ),
  started_at: z.string(),
  updated_at: z.string(),
});

export interface PlanStateStore {
  /** Where the state lives, for messages. */
  readonly location: string;
  /** The saved conversation, or null when there is none; throws when one exists but cannot be used. */
  load(): Promise<PlanState | null>;
  save(state: PlanState): Promise<void>;
  remove(): Promise<void>;
}

/** The state file of an output file: `target_structure.md` -> `target_structure.md.plan.json`. */
export function statePathFor(outFile: string): string {
  return `${outFile}.plan.json`;
}

export function fileStateStore(file: string): PlanStateStore {
  return {
    location: file,
    async load() {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw new CodeRagError(`cannot read the plan state file ${file}`, { cause: error });
      }
      return parseState(text, file);
    },
    save: (state) => writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`),
    remove: () => rm(file, { force: true }),
  };
}

export function parseState(text: string, file: string): PlanState {
  const corrupt = (why: string, cause?: unknown) =>
    new CodeRagError(`the plan state file ${file} is corrupt (${why})`, {
      cause,
      hint: 'move or delete it to start a new conversation; nothing was overwritten',
    });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw corrupt('not JSON', cause);
  }
  const parsed = stateShape.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw corrupt(`${issue?.path.join('.') || 'state'}: ${issue?.message ?? 'unexpected shape'}`);
  }
  const state = parsed.data as PlanState;
  const open = state.turns.findIndex((t) => t.answer === null);
  if (open !== -1 && open !== state.turns.length - 1) throw corrupt(`turns.${open}: unanswered turn before the last`);
  return state;
}
