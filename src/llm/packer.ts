/**
 * A micro-batching queue: callers add one item each (one file to profile) and await its own result; the
 * packer groups the items waiting into packs up to a prompt-token budget, an answer-token budget and an item
 * count, and hands each pack to `send`, which settles every item of it. A pack leaves when it is full, when
 * no item has joined for `idleMs` (nothing more is coming soon), or when its oldest item has waited
 * `maxLingerMs`; and only while fewer packs are out than the request scheduler has slots, so a slot that
 * frees takes everything that queued meanwhile.
 */

export interface PackSizes {
  tokens: number;
  answerTokens: number;
}

export interface PackerOptions<I> {
  /** Prompt tokens of items per pack. */
  tokenBudget: number;
  /** Answer tokens per pack: the answer must fit in max_tokens with room to spare. */
  answerBudget: number;
  maxItems: number;
  /** A pack not yet full leaves once no item has joined it for this long. */
  idleMs: number;
  /** … and at the latest once its oldest item has waited this long. */
  maxLingerMs: number;
  /** Packs that may be out at once: the request scheduler's slots now. */
  capacity: () => number;
  sizeOf: (item: I) => PackSizes;
  /** Sends one pack; must settle every item of it, and never reject. */
  send: (items: I[]) => Promise<void>;
}

export class Packer<I> {
  private readonly waiting: Array<{ item: I; at: number }> = [];
  private outstanding = 0;
  private timer: NodeJS.Timeout | null = null;
  private lastArrival = 0;

  constructor(private readonly options: PackerOptions<I>, private readonly now: () => number = Date.now) {}

  add(item: I): void {
    this.lastArrival = this.now();
    this.waiting.push({ item, at: this.lastArrival });
    this.pump();
  }

  private pump(): void {
    while (this.waiting.length > 0 && this.outstanding < this.options.capacity()) {
      const now = this.now();
      const wait = Math.min(this.options.idleMs - (now - this.lastArrival), this.options.maxLingerMs - (now - (this.waiting[0]?.at ?? 0)));
      if (wait > 0 && !this.full()) {
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => {
          this.timer = null;
          this.pump();
        }, wait);
        return;
      }
      this.dispatch();
    }
  }

  private full(): boolean {
    let tokens = 0;
    let answer = 0;
    for (const [i, { item }] of this.waiting.entries()) {
      const size = this.options.sizeOf(item);
      tokens += size.tokens;
      answer += size.answerTokens;
      if (i + 1 >= this.options.maxItems || tokens >= this.options.tokenBudget || answer >= this.options.answerBudget) return true;
    }
    return false;
  }

  /** Takes items in arrival order while they fit (at least one), and sends them. */
  private dispatch(): void {
    const pack: I[] = [];
    let tokens = 0;
    let answer = 0;
    while (this.waiting.length > 0 && pack.length < this.options.maxItems) {
      const size = this.options.sizeOf((this.waiting[0] as { item: I }).item);
      if (pack.length > 0 && (tokens + size.tokens > this.options.tokenBudget || answer + size.answerTokens > this.options.answerBudget)) break;
      pack.push((this.waiting.shift() as { item: I }).item);
      tokens += size.tokens;
      answer += size.answerTokens;
    }
    this.outstanding++;
    void this.options.send(pack).finally(() => {
      this.outstanding--;
      this.pump();
    });
  }
}
