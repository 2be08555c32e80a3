// Lookups by key joined into one query: calls made while `concurrency` queries are already
// running wait and go together in the next query. Nothing is cached and no call joins a query
// that was already sent: each answer comes from a query sent after the call was made, so it sees
// everything committed before the call (a revoked token is refused at once, as without joining).
// No timer: with nothing running, a call's query is sent at once.

export class BatchedLookup<K, V> {
  private waiting = new Map<K, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>();
  private running = 0;
  /** Queries sent and keys they carried: for tests and the bench. */
  readonly stats = { queries: 0, calls: 0 };

  constructor(
    private readonly load: (keys: K[]) => Promise<Map<K, V>>,
    private readonly options: { concurrency?: number; maxKeys?: number } = {},
  ) {}

  find(key: K): Promise<V | undefined> {
    this.stats.calls++;
    const promise = new Promise<V | undefined>((resolve, reject) => {
      const callers = this.waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
    });
    this.pump();
    return promise;
  }

  private pump(): void {
    const concurrency = this.options.concurrency ?? 2;
    const maxKeys = this.options.maxKeys ?? 1000;
    while (this.running < concurrency && this.waiting.size > 0) {
      const batch = new Map<K, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>();
      for (const [key, callers] of this.waiting) {
        if (batch.size >= maxKeys) break;
        batch.set(key, callers);
      }
      for (const key of batch.keys()) this.waiting.delete(key);
      this.running++;
      this.stats.queries++;
      void this.load([...batch.keys()])
        .then(
          (found) => {
            for (const [key, callers] of batch) for (const c of callers) c.resolve(found.get(key));
          },
          (error: unknown) => {
            for (const callers of batch.values()) for (const c of callers) c.reject(error);
          },
        )
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}
