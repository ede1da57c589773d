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

export interface PackLimits {
  /** Prompt tokens of items per pack. */
  tokenBudget: number;
  /** Answer tokens per pack: the answer must fit in max_tokens with room to spare. */
  answerBudget: number;
  maxItems: number;
}

/** How many of `items`, from the front, go into one pack: as many as fit the limits, and at least one. */
export function packLength<I>(items: readonly I[], sizeOf: (item: I) => PackSizes, limits: PackLimits): number {
  let tokens = 0;
  let answer = 0;
  let n = 0;
  for (const item of items) {
    if (n >= limits.maxItems) break;
    const size = sizeOf(item);
    if (n > 0 && (tokens + size.tokens > limits.tokenBudget || answer + size.answerTokens > limits.answerBudget)) break;
    tokens += size.tokens;
    answer += size.answerTokens;
    n++;
  }
  return n;
}

/** Items grouped into packs in order, as the packer groups them when all are waiting (batch runs, dry runs). */
export function groupIntoPacks<I>(items: readonly I[], sizeOf: (item: I) => PackSizes, limits: PackLimits): I[][] {
  const packs: I[][] = [];
  for (let i = 0; i < items.length; ) {
    const n = packLength(items.slice(i), sizeOf, limits);
    packs.push(items.slice(i, i + n));
    i += n;
  }
  return packs;
}

export interface PackerOptions<I> extends PackLimits {
  /** A pack not yet full leaves once no item has joined it for this long. */
  idleMs: number;
  /** … and at the latest once its oldest item has waited this long. */
  maxLingerMs: number;
  /** Packs that may be out at once: the request scheduler's slots now. */
  capacity: () => number;
  sizeOf: (item: I) => PackSizes;
  /** Sends one pack; must settle every item of it, and never reject. */
  send: (items: I[]) => Promise<void>;
  /** Once aborted, everything waiting is sent at once, so `send` settles it (as failed) without delay. */
  signal?: AbortSignal;
}

export class Packer<I> {
  private readonly waiting: Array<{ item: I; at: number }> = [];
  private outstanding = 0;
  private timer: NodeJS.Timeout | null = null;
  private lastArrival = 0;

  constructor(private readonly options: PackerOptions<I>, private readonly now: () => number = Date.now) {
    options.signal?.addEventListener('abort', () => this.flush(), { once: true });
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.waiting.length > 0) this.dispatch();
  }

  add(item: I): void {
    this.lastArrival = this.now();
    this.waiting.push({ item, at: this.lastArrival });
    if (this.options.signal?.aborted) this.flush();
    else this.pump();
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
    const n = packLength(this.waiting.map((w) => w.item), this.options.sizeOf, this.options);
    const pack = this.waiting.splice(0, n).map((w) => w.item);
    this.outstanding++;
    void this.options.send(pack).finally(() => {
      this.outstanding--;
      this.pump();
    });
  }
}
