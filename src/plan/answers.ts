/**
 * Where the author's answers come from: a terminal prompt, a list (an `--answers` file, one answer per line),
 * or anything else a library caller supplies. `null` means the input ended (Ctrl+D, the end of the file).
 */
import { createInterface } from 'node:readline';
import type { ModelTurn } from './turn.js';

export interface AnswerSource {
  /** The author's answer to the turn just shown, or null when the input has ended. */
  next(turn: ModelTurn): Promise<string | null>;
  /** Whether answers are typed by a person as they go (the loop echoes the others, for a readable log). */
  readonly interactive: boolean;
  close?(): void;
}

/** Answers from a list, in order; then the end of input. */
export function listAnswers(answers: readonly string[]): AnswerSource {
  let next = 0;
  return {
    interactive: false,
    next: async () => (next < answers.length ? (answers[next++] ?? null) : null),
  };
}

/** The lines of an answers file, blank ones dropped. */
export function answerLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

export interface TerminalOptions {
  input: NodeJS.ReadableStream;
  /** Where the prompt and echo go (stderr: stdout carries results only). */
  output: NodeJS.WritableStream;
  /** Ctrl+C at the prompt: the terminal is in raw mode, so it arrives here rather than as a signal. */
  onInterrupt: () => void;
  prompt?: string;
}

/** Answers typed at a terminal prompt; Ctrl+D ends the input. */
export function terminalAnswers(options: TerminalOptions): AnswerSource {
  const rl = createInterface({ input: options.input, output: options.output, terminal: true });
  let closed = false;
  rl.on('close', () => {
    closed = true;
  });
  rl.on('SIGINT', options.onInterrupt);
  return {
    interactive: true,
    next: () =>
      new Promise<string | null>((resolve) => {
        if (closed) return resolve(null);
        const onClose = () => resolve(null);
        rl.once('close', onClose);
        rl.question(options.prompt ?? '> ', (answer) => {
          rl.off('close', onClose);
          resolve(answer);
        });
      }),
    close: () => rl.close(),
  };
}
