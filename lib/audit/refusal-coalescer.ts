// Repeats of one refusal, counted instead of written (docs/decisions/0010-refusals-in-the-log.md).
// Pure: the clock and the writer are given, so the rule is tested without a database or waiting.

export interface RefusalRepeats<E> {
  /** The first refusal of the window: the entry written at once. */
  first: E;
  /** How many more came within the window (at least 1: a window without repeats writes nothing more). */
  count: number;
  /** When the first and the last of those repeats came (epoch ms). */
  firstAt: number;
  lastAt: number;
  /** Distinct values of what differed between repeats (record ids, paths), at most MAX_DISTINCT each. */
  reviewIds: (string | null)[];
  paths: string[];
}

interface Window<E> {
  openedAt: number;
  first: E;
  count: number;
  firstAt: number;
  lastAt: number;
  reviewIds: Set<string | null>;
  paths: Set<string>;
  timer: ReturnType<typeof setTimeout> | null;
}

/** Enough to show an auditor what the repeats were about without growing with a flood. */
export const MAX_DISTINCT = 20;
/** Open windows kept at most; past that the oldest is closed early (written, never dropped). */
export const MAX_WINDOWS = 10_000;

export interface CoalescerOptions<E> {
  windowMs: number;
  now?: () => number;
  /** Writes the summary of a window's repeats; called once per window that had any. */
  flush: (repeats: RefusalRepeats<E>) => void;
  /** False in tests that close windows by hand. */
  timers?: boolean;
}

export class RefusalCoalescer<E> {
  private readonly windows = new Map<string, Window<E>>();
  private readonly now: () => number;

  constructor(private readonly options: CoalescerOptions<E>) {
    this.now = options.now ?? Date.now;
  }

  /**
   * One refusal under `key`: "write" when it opens a window (the caller writes it now), "counted"
   * when it repeats one within `windowMs` of the window's first (written later, as a count).
   */
  offer(key: string, entry: E, about: { reviewId?: string | null; path?: string }): "write" | "counted" {
    const at = this.now();
    const open = this.windows.get(key);
    if (open && at - open.openedAt < this.options.windowMs) {
      if (open.count === 0) open.firstAt = at;
      open.count += 1;
      open.lastAt = at;
      if (open.reviewIds.size < MAX_DISTINCT) open.reviewIds.add(about.reviewId ?? null);
      if (about.path !== undefined && open.paths.size < MAX_DISTINCT) open.paths.add(about.path);
      return "counted";
    }
    if (open) this.close(key); // its timer is late; its repeats come before this new window
    if (this.windows.size >= MAX_WINDOWS) this.close(this.windows.keys().next().value!);
    const timer = this.options.timers === false ? null : setTimeout(() => this.close(key), this.options.windowMs);
    // A pending count must not keep a finishing process (a CLI, a test run) alive.
    if (timer && typeof timer === "object" && "unref" in timer) timer.unref();
    this.windows.set(key, {
      openedAt: at,
      first: entry,
      count: 0,
      firstAt: at,
      lastAt: at,
      reviewIds: new Set(),
      paths: new Set(),
      timer,
    });
    return "write";
  }

  /** Ends the window of `key`, writing its repeats (if any). */
  close(key: string): void {
    const window = this.windows.get(key);
    if (!window) return;
    this.windows.delete(key);
    if (window.timer) clearTimeout(window.timer);
    if (window.count === 0) return;
    this.options.flush({
      first: window.first,
      count: window.count,
      firstAt: window.firstAt,
      lastAt: window.lastAt,
      reviewIds: [...window.reviewIds],
      paths: [...window.paths],
    });
  }

  /** Ends every window now (tests, and a process that stops). */
  closeAll(): void {
    for (const key of [...this.windows.keys()]) this.close(key);
  }

  get openWindows(): number {
    return this.windows.size;
  }
}
