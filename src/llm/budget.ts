/**
 * The run's spending limits (`--max-cost`, `--max-calls`). Every model request asks first: its prompt tokens
 * are counted, its answer is assumed as long as the average a file so far (or `budget.expected_output_tokens`
 * a file before the first) times the files it asks about (a packed request asks about several), and a
 * request that would take the run past a limit is refused, as is every request after it.
 * Requests in flight hold their share until they settle with what the provider reports.
 */
import { costOf, formatDollars, type ModelPrice } from './pricing.js';
import type { PromptTokenCounter } from './tokens.js';
import type { TokenUsage } from '../index/types.js';

/** A request the budget refused: never retried; the file keeps its static profile, marked with the reason. */
export class BudgetStop extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BudgetStop';
  }
}

export interface BudgetLimits {
  maxCalls: number | null;
  maxCost: number | null;
  /** Needed with maxCost. */
  price: ModelPrice | null;
  counter: PromptTokenCounter | null;
  expectedOutputTokens: number;
  /** Overrides the reason given once the budget stops (for a collect that must not call at all). */
  reason?: string;
}

export interface Reservation {
  cost: number;
  /** Files the request asks about. */
  files: number;
}

export class RunBudget {
  calls = 0;
  /** Dollars of settled requests. */
  spent = 0;
  /** Why the budget stopped the run, or null while it has not. */
  stopped: string | null = null;
  private reserved = 0;
  private answers = 0;
  private outputTokens = 0;

  constructor(private readonly limits: BudgetLimits) {}

  /** Admits one request with this body, asking about `files` files, or throws BudgetStop. */
  admit(body: Record<string, unknown>, files = 1): Reservation {
    const { maxCalls, maxCost, price, counter } = this.limits;
    if (this.stopped) throw new BudgetStop(this.stopped);
    if (maxCalls !== null && this.calls + 1 > maxCalls) return this.stop(this.limits.reason ?? `--max-calls ${maxCalls} reached`);
    let cost = 0;
    if (maxCost !== null && price && counter) {
      const output = files * (this.answers ? this.outputTokens / this.answers : this.limits.expectedOutputTokens);
      cost = costOf(price, { input: counter.count(body), output });
      if (this.spent + this.reserved + cost > maxCost) {
        return this.stop(this.limits.reason ?? `--max-cost ${formatDollars(maxCost)} reached (${formatDollars(this.spent)} spent)`);
      }
    }
    this.calls++;
    this.reserved += cost;
    return { cost, files };
  }

  /** Replaces a request's share by what it cost; usage is null when the request got no answer. */
  settle(reservation: Reservation, usage: TokenUsage | null): void {
    this.reserved -= reservation.cost;
    if (!usage) return;
    this.answers += reservation.files;
    this.outputTokens += usage.completion_tokens;
    if (this.limits.price) this.spent += costOf(this.limits.price, { input: usage.prompt_tokens, output: usage.completion_tokens });
  }

  private stop(reason: string): never {
    this.stopped = reason;
    throw new BudgetStop(reason);
  }
}
