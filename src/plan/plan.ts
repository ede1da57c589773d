/**
 * `plan`: build a target structure with its author. The model asks one focused question at a time or
 * proposes a structure; the author answers, until they approve (or the input ends after a proposal, or the
 * turn limit forces a last proposal). The conversation is checkpointed after every model answer and every
 * author answer; the approved structure is written atomically, and the checkpoint then removed.
 */
import { defaultConfig, type Config } from '../config/schema.js';
import { writeFileAtomic } from '../shared/atomicFile.js';
import { askModel, emptyLlmStats, firstLine, refusal, type LlmStats } from '../llm/ask.js';
import type { LlmProvider } from '../llm/provider.js';
import { RequestScheduler } from '../llm/rateControl.js';
import { InvalidAnswerError, statusOf } from '../llm/retry.js';
import { redactSecrets } from '../shared/secrets.js';
import { AbortedError, CodeRagError, UsageError, errorMessage } from '../shared/errors.js';
import type { AnswerSource } from './answers.js';
import { indexesOverview, readInputDocuments } from './context.js';
import { fileStateStore, statePathFor, STATE_FORMAT, STATE_VERSION, type PlanState, type PlanStateStore } from './state.js';
import { loadPlanPrompts, renderPlanPrompt } from './prompt.js';
import { renderTargetStructure } from './structure.js';
import { parseTurn, turnRequestSchema, type ModelTurn, type PlannedFile } from './turn.js';

export type PlanEvent =
  | { type: 'note'; message: string }
  | { type: 'resumed'; turns: number; location: string }
  | { type: 'turn'; number: number; turn: ModelTurn }
  | { type: 'answer'; text: string }
  | { type: 'written'; file: string; ending: PlanEnding };

export type PlanEnding = 'approved' | 'turn_limit';

export interface PlanOptions {
  /** What to build; required for a new conversation, checked against the saved one on resume. */
  query?: string | undefined;
  provider: LlmProvider;
  /** Default: the built-in defaults. */
  config?: Config;
  answers: AnswerSource;
  /** Where the approved structure is written. */
  out: string;
  /** A folder of `.md` and `.txt` documents to plan from. */
  inputsDir?: string | undefined;
  /** A folder of RepoIndex files whose code the plan may draw on. */
  indexesDir?: string | undefined;
  /** Continue the conversation saved beside `out`. */
  resume?: boolean;
  /** Overrides `plan.max_turns`. */
  maxTurns?: number | undefined;
  signal?: AbortSignal;
  onEvent?: (event: PlanEvent) => void;
  /** The checkpoint; default: a file beside `out` (statePathFor). */
  store?: PlanStateStore;
  writeOutput?: (file: string, text: string) => Promise<void>;
  now?: () => Date;
  promptsDir?: string;
}

export interface PlanResult {
  out: string;
  ending: PlanEnding;
  files: PlannedFile[];
  text: string;
  turns: number;
  stats: LlmStats;
}

const APPROVAL = /^(approve|approved|done|solution approved)[.!]*$/i;

export function isApproval(answer: string): boolean {
  return APPROVAL.test(answer.trim());
}

export async function plan(options: PlanOptions): Promise<PlanResult> {
  const config = options.config ?? defaultConfig();
  const { answers } = options;
  const emit = options.onEvent ?? (() => {});
  const now = options.now ?? (() => new Date());
  const signal = options.signal ?? new AbortController().signal;
  const store = options.store ?? fileStateStore(statePathFor(options.out));
  const maxTurns = options.maxTurns ?? config.plan.max_turns;
  const state = await openConversation(options, config, store, now, emit);
  const saved = `the conversation is saved in ${store.location}`;
  const checkpoint = async () => {
    state.updated_at = now().toISOString();
    await store.save(state);
  };

  const prompts = loadPlanPrompts(options.promptsDir);
  const stats = emptyLlmStats();
  const ctx = {
    provider: options.provider,
    config,
    retry: { retries: config.llm.max_retries, baseDelayMs: config.llm.retry_delay * 1000, maxDelayMs: config.llm.max_retry_after * 1000 },
    // One question at a time: a scheduler of one slot, with the provider's headers and limits still heeded.
    scheduler: new RequestScheduler({
      concurrency: 1,
      maxConcurrency: 1,
      pauseMs: config.llm.request_delay * 1000,
      requestsPerMinute: config.llm.requests_per_minute,
      tokensPerMinute: config.llm.tokens_per_minute,
      fallbackPauseMs: Math.max(config.llm.retry_delay * 1000, 100),
    }),
    stats,
    signal,
  };
  const schema = turnRequestSchema();
  const ask = async (final: boolean): Promise<ModelTurn> => {
    const prompt = renderPlanPrompt(prompts, state, final);
    try {
      return await askModel(ctx, { prompt, schema, schemaName: 'plan_turn' }, (value) => parseTurn(value, final));
    } catch (error) {
      throw explainFailure(error, signal, saved, config.llm.max_retries + 1);
    }
  };
  const finish = async (files: PlannedFile[], ending: PlanEnding): Promise<PlanResult> => {
    const text = renderTargetStructure(state.query, files);
    await (options.writeOutput ?? writeFileAtomic)(options.out, text);
    await store.remove();
    emit({ type: 'written', file: options.out, ending });
    return { out: options.out, ending, files, text, turns: state.turns.length, stats };
  };
  const answer = async (turn: ModelTurn): Promise<string | null> => {
    for (;;) {
      const text = await untilAborted(answers.next(turn), signal, saved);
      if (text === null || text.trim()) return text === null ? null : text.trim();
    }
  };

  try {
    for (;;) {
      const last = state.turns.at(-1);
      if (!last || last.answer !== null) {
        // An approval before any proposal, or the turn limit, asks for the final structure.
        const approved = last?.answer != null && isApproval(last.answer);
        const final = approved || state.turns.length + 1 >= maxTurns;
        const turn = await ask(final);
        state.turns.push({ model: turn, answer: null });
        await checkpoint();
        emit({ type: 'turn', number: state.turns.length, turn });
        if (final && turn.kind === 'proposal') {
          if (!approved) emit({ type: 'note', message: `turn limit reached (${maxTurns} turns): writing the last proposal without approval` });
          return await finish(turn.files, approved ? 'approved' : 'turn_limit');
        }
      } else {
        emit({ type: 'turn', number: state.turns.length, turn: last.model });
      }

      const current = state.turns.at(-1)!;
      const reply = await answer(current.model);
      if (reply !== null && !answers.interactive) emit({ type: 'answer', text: reply });
      const proposal = latestProposal(state);
      if (reply === null) {
        if (!proposal) throw new CodeRagError('the input ended before the model proposed a structure', { hint: `${saved}; continue it with --resume` });
        emit({ type: 'note', message: 'input ended after a proposal: taking it as approved' });
        return await finish(proposal, 'approved');
      }
      if (isApproval(reply) && proposal) return await finish(proposal, 'approved');
      if (isApproval(reply)) emit({ type: 'note', message: 'approved before any proposal: asking the model for its final structure' });
      current.answer = redactSecrets(reply).text;
      await checkpoint();
    }
  } catch (error) {
    if (signal.aborted && !(error instanceof CodeRagError)) throw new AbortedError(`interrupted: ${saved}; continue it with --resume`, { cause: error });
    throw error;
  }
}

/**
 * What is wrong with starting or resuming, known before any model is needed (so a caller may ask first, as the
 * CLI does before it chooses a provider): `resume` with nothing saved, a new plan over a saved one, or without a
 * query. Null when nothing is.
 */
export function conversationProblem(saved: boolean, location: string, options: Pick<PlanOptions, 'query' | 'resume'>): UsageError | null {
  if (options.resume) return saved ? null : new UsageError(`no saved conversation to resume: ${location} does not exist`, { hint: 'start one without --resume' });
  if (saved) return new UsageError(`a conversation is already saved in ${location}`, { hint: 'continue it with --resume, or move or delete the file to start over' });
  if (!options.query?.trim()) return new UsageError('--query is required to start a plan', { hint: 'coderag plan --query "what to build" --out target_structure.md' });
  return null;
}

async function openConversation(options: PlanOptions, config: Config, store: PlanStateStore, now: () => Date, emit: (event: PlanEvent) => void): Promise<PlanState> {
  const saved = await store.load();
  const problem = conversationProblem(saved !== null, store.location, options);
  if (problem) throw problem;
  const query = options.query?.trim() ?? '';
  if (saved) {
    // Resuming (conversationProblem allows a saved conversation only then).
    if (query && redactSecrets(query).text !== saved.query) {
      throw new UsageError(`${store.location} holds a conversation about another query`, { hint: 'drop --query to continue it, or move the file to start a new one' });
    }
    if (options.inputsDir || options.indexesDir) emit({ type: 'note', message: 'inputs and indexes were read when the conversation started; --inputs and --indexes are ignored on resume' });
    emit({ type: 'resumed', turns: saved.turns.filter((t) => t.answer !== null).length, location: store.location });
    return saved;
  }
  const limits = { maxFileSize: config.plan.max_input_file_size, maxChars: config.plan.max_input_chars };
  const parts = [
    options.inputsDir ? await readInputDocuments(options.inputsDir, limits) : null,
    options.indexesDir ? await indexesOverview(options.indexesDir) : null,
  ].filter((p) => p !== null);
  for (const part of parts) for (const message of part.notes) emit({ type: 'note', message });
  const redacted = parts.reduce((n, p) => n + p.secretsRedacted, 0);
  if (redacted) emit({ type: 'note', message: `${redacted} secret${redacted === 1 ? '' : 's'} redacted from the inputs` });
  const at = now().toISOString();
  const state: PlanState = {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    query: redactSecrets(query).text,
    context: parts.map((p) => p.text).join(''),
    turns: [],
    started_at: at,
    updated_at: at,
  };
  await store.save(state);
  return state;
}

function latestProposal(state: PlanState): PlannedFile[] | null {
  for (let i = state.turns.length - 1; i >= 0; i--) {
    const turn = state.turns[i]!.model;
    if (turn.kind === 'proposal') return turn.files;
  }
  return null;
}

/** Resolves with the promise, or rejects as soon as the signal aborts (an answer typed later is not awaited). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, saved: string): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortedError(`interrupted: ${saved}; continue it with --resume`));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError(`interrupted: ${saved}; continue it with --resume`));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function explainFailure(error: unknown, signal: AbortSignal, saved: string, tries: number): unknown {
  if (signal.aborted || error instanceof CodeRagError) return error;
  const hint = `${saved}; continue it with --resume`;
  if (error instanceof InvalidAnswerError) {
    return new CodeRagError(`the model answered with neither a question nor a structure, ${tries} ${tries === 1 ? 'time' : 'times'}: ${error.message}`, { cause: error, hint });
  }
  const refused = refusal(error, 'the model provider');
  if (refused) return refused;
  const status = statusOf(error);
  return new CodeRagError(`the model call failed${status ? ` (${status})` : ''}: ${firstLine(errorMessage(error))}`, { cause: error, hint });
}
