// Gathers messages into batches for one transaction each (docs/decisions/0021): up to
// `maxMessages`, or whatever arrived within `lingerMs` of the first. Two messages that share a
// key (the runtime gives each its sequenceKey and its effectKey) never go into one batch, nor
// into two batches running at once: the later one waits until the batch of the earlier one has
// answered all its messages, so within a batch no decision depends on another's, and one key's
// messages are decided in the order they came.

export interface BatchOptions {
  /** Messages committed together at most (32). */
  maxMessages?: number;
  /** How long the first message of a batch waits for others before the batch runs anyway, in ms (2). */
  lingerMs?: number;
}

export const DEFAULT_BATCH = { maxMessages: 32, lingerMs: 2 } as const;

/** `batch` of the runtime's options as numbers; null when batching is off. */
export function batchSettings(batch: BatchOptions | boolean | undefined): Required<BatchOptions> | null {
  if (batch === undefined || batch === false) return null;
  const options = batch === true ? {} : batch;
  const maxMessages = options.maxMessages ?? DEFAULT_BATCH.maxMessages;
  const lingerMs = options.lingerMs ?? DEFAULT_BATCH.lingerMs;
  if (!Number.isInteger(maxMessages) || maxMessages < 1)
    throw new Error("batch.maxMessages must be a whole number >= 1");
  if (!(Number.isFinite(lingerMs) && lingerMs >= 0)) throw new Error("batch.lingerMs must be a number >= 0");
  return { maxMessages, lingerMs };
}

interface Waiting<T, R> {
  item: T;
  keys: readonly string[];
  resolve(result: R): void;
  reject(error: unknown): void;
}

/**
 * `run` gets each batch and answers one promise per item, in order; each item's caller gets its
 * own answer as soon as it settles. A batch runs as soon as it is full or lingered; batches run
 * side by side (the transport bounds how many messages are in hand).
 */
export class Batcher<T, R> {
  private forming: Waiting<T, R>[] = [];
  private readonly formingKeys = new Set<string>();
  /** Keys of the batches running, with how many of their messages have no answer yet. */
  private readonly busyKeys = new Map<string, number>();
  /** Items that share a key with one in the forming batch or a running one: placed again when that one is answered. */
  private next: Waiting<T, R>[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly settings: Required<BatchOptions>,
    private readonly run: (items: T[]) => Promise<Promise<R>[]>,
  ) {}

  submit(item: T, keys: readonly string[]): Promise<R> {
    return new Promise<R>((resolve, reject) => this.place({ item, keys, resolve, reject }));
  }

  private place(waiting: Waiting<T, R>): void {
    if (waiting.keys.some((k) => this.formingKeys.has(k) || this.busyKeys.has(k))) {
      this.next.push(waiting);
      return;
    }
    this.forming.push(waiting);
    for (const k of waiting.keys) this.formingKeys.add(k);
    if (this.forming.length >= this.settings.maxMessages) this.flush();
    else this.arm();
  }

  private arm(): void {
    this.timer ??= setTimeout(() => this.flush(), this.settings.lingerMs);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.forming;
    this.forming = [];
    this.formingKeys.clear();
    const next = this.next;
    this.next = [];
    for (const w of batch) for (const k of w.keys) this.busyKeys.set(k, (this.busyKeys.get(k) ?? 0) + 1);
    // Its keys are busy from now on: a message held back for sharing a key goes after this batch.
    if (batch.length > 0) {
      const answered = (w: Waiting<T, R>) => () => this.release(w.keys);
      this.run(batch.map((w) => w.item)).then(
        (answers) =>
          batch.forEach((w, i) =>
            answers[i]!.then(w.resolve, w.reject)
              .catch(() => {})
              .finally(answered(w)),
          ),
        (error: unknown) =>
          batch.forEach((w) => {
            w.reject(error);
            answered(w)();
          }),
      );
    }
    for (const waiting of next) this.place(waiting);
  }

  /** A message of a running batch is answered: its keys are free for the messages held back. */
  private release(keys: readonly string[]): void {
    for (const k of keys) {
      const left = (this.busyKeys.get(k) ?? 1) - 1;
      if (left > 0) this.busyKeys.set(k, left);
      else this.busyKeys.delete(k);
    }
    const next = this.next;
    this.next = [];
    for (const waiting of next) this.place(waiting);
  }
}
