/**
 * Few error classes under one base. Each carries an exit code and an optional hint; the CLI's single
 * top-level handler prints `error: message` (plus the hint) and exits with the code.
 */
export class CodeRagError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, options: { cause?: unknown; exitCode?: number; hint?: string } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? 1;
    this.hint = options.hint;
  }
}

/** Bad command-line usage or arguments: exit code 2. */
export class UsageError extends CodeRagError {
  constructor(message: string, options: { cause?: unknown; hint?: string } = {}) {
    super(message, { ...options, exitCode: 2 });
  }
}

/** A configuration file or value that cannot be used. */
export class ConfigError extends CodeRagError {}

/** A model provider that cannot be used at all (bad key, unknown model): the run stops. */
export class ProviderError extends CodeRagError {}

/** The run was cancelled (Ctrl+C): exit code 130, finished work kept. */
export class AbortedError extends CodeRagError {
  constructor(message = 'interrupted', options: { cause?: unknown } = {}) {
    super(message, { ...options, exitCode: 130 });
  }
}

/** A spending limit (--max-cost, --max-calls) stopped the run: exit code 4; the index was written, the rest static. */
export class BudgetExceededError extends CodeRagError {
  constructor(message: string, options: { cause?: unknown; hint?: string } = {}) {
    super(message, { ...options, exitCode: 4 });
  }
}

/** A batch that has not ended yet: exit code 75 (sysexits' EX_TEMPFAIL, "try again later"). */
export class BatchPendingError extends CodeRagError {
  constructor(message: string, options: { cause?: unknown; hint?: string } = {}) {
    super(message, { ...options, exitCode: 75 });
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
