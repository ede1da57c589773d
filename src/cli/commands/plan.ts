/**
 * `coderag plan`: the conversation that writes a target structure. The conversation goes to stderr (the
 * author reads it at the terminal); stdout carries the written file's path only.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { loadConfig } from '../../config/load.js';
import { selectProvider } from '../../llm/select.js';
import { answerLines, listAnswers, terminalAnswers, type AnswerSource } from '../../plan/answers.js';
import { conversationProblem, plan, type PlanEvent } from '../../plan/plan.js';
import { statePathFor } from '../../plan/state.js';
import type { ModelTurn } from '../../plan/turn.js';
import { UsageError } from '../../shared/errors.js';
import { interruptHandler } from '../runControls.js';

export interface PlanFlags {
  query?: string;
  inputs?: string;
  indexes?: string;
  out: string;
  resume: boolean;
  answers?: string;
  maxTurns?: number;
  config?: string;
  provider?: string;
  model?: string;
}

export async function planCommand(flags: PlanFlags): Promise<void> {
  const llm: Record<string, unknown> = {};
  if (flags.provider) llm.model_provider = flags.provider;
  if (flags.model) llm.model = flags.model;
  const { config } = await loadConfig({ configPath: flags.config, overrides: { llm } });
  // With nothing saved, a missing --query or a --resume is said before the model is asked for; a saved file is
  // read, and checked, by plan itself.
  const location = statePathFor(flags.out);
  const problem = existsSync(location) ? null : conversationProblem(false, location, flags);
  if (problem) throw problem;
  const choice = selectProvider(config);
  if (!choice.provider) {
    throw new UsageError('planning needs a model', { hint: 'set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL (a local OpenAI-compatible server), and do not choose --provider static' });
  }
  const provider = choice.provider;
  const stdin = process.stdin;
  if (!flags.answers && !stdin.isTTY) {
    throw new UsageError('no terminal to answer at and no --answers file', { hint: 'run it in a terminal, or pass --answers FILE with one answer per line' });
  }
  const controller = new AbortController();
  const interrupt = interruptHandler(controller);
  const answers: AnswerSource = flags.answers
    ? listAnswers(answerLines(await readAnswers(flags.answers)))
    : terminalAnswers({ input: stdin, output: process.stderr, onInterrupt: interrupt });
  process.on('SIGINT', interrupt);
  process.stderr.write(`${choice.description.replace(/^profiles: /, 'plan: ')}\n`);
  try {
    const result = await plan({
      query: flags.query,
      provider,
      config,
      answers,
      out: flags.out,
      inputsDir: flags.inputs,
      indexesDir: flags.indexes,
      resume: flags.resume,
      maxTurns: flags.maxTurns,
      signal: controller.signal,
      onEvent: (event) => process.stderr.write(describe(event)),
    });
    const { calls, prompt_tokens, completion_tokens } = result.stats;
    process.stderr.write(`${result.files.length} files planned in ${result.turns} turns (${result.ending === 'approved' ? 'approved' : 'turn limit'}); ${calls} model calls this run, ${prompt_tokens} prompt + ${completion_tokens} completion tokens\n`);
    process.stdout.write(`${result.out}\n`);
  } finally {
    process.off('SIGINT', interrupt);
    answers.close?.();
  }
}

async function readAnswers(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    throw new UsageError(`cannot read the answers file ${file}`, { cause });
  }
}

function describe(event: PlanEvent): string {
  switch (event.type) {
    case 'note':
      return `note: ${event.message}\n`;
    case 'resumed':
      return `resuming the conversation in ${event.location} after ${event.turns} answered ${event.turns === 1 ? 'turn' : 'turns'}\n`;
    case 'turn':
      return describeTurn(event.number, event.turn);
    case 'answer':
      return `> ${event.text}\n`;
    case 'written':
      return `wrote ${event.file}\n`;
  }
}

function describeTurn(number: number, turn: ModelTurn): string {
  if (turn.kind === 'question') return `\n[${number}] question: ${turn.message}\n`;
  const width = Math.min(50, Math.max(...turn.files.map((f) => f.path.length)));
  const files = turn.files.map((f) => `  ${f.path.padEnd(width)}  ${f.purpose}${f.draws_on.length ? ` (draws on: ${f.draws_on.join(', ')})` : ''}`);
  return `\n[${number}] proposal: ${turn.message}\n${files.join('\n')}\nAnswer with changes, or approve it: approve, done, SOLUTION APPROVED, or Ctrl+D.\n`;
}
