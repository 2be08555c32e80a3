import { type Actor } from "@/lib/access";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { MAX_BATCH } from "./schema";
import type { IntakeOutcome, IntakeResult, Report } from "./intake";

// Single-record intake (POST /api/v1/reviews) joined into shared intake statements
// (docs/decisions/0018-intake-coalescing.md). Every decision-log append holds the chain head's
// row lock until its transaction commits, so one statement per request means one commit (one
// WAL flush) after another: with many concurrent clients the requests queue for the lock, not
// for the CPU. Requests of one actor that arrive while that actor's statements are running wait
// for the next statement and go in it together: one statement, one commit, one chain lock for
// all of them, and still one record, one history entry and one hash-chained log entry each.
//
// No timer: a request that finds nothing running is sent at once, so an idle console answers as
// fast as before; the statements grow only while requests actually queue.

/** Each report's record, or (a scoped reporter's report not written) its refusal: the waiter's rejection. */
export type IntakeRunner = (reports: Report[], actor: Actor) => Promise<IntakeOutcome[]>;

interface Waiting {
  report: Report;
  resolve: (result: IntakeResult) => void;
  reject: (error: unknown) => void;
}

interface Lane {
  actor: Actor;
  waiting: Waiting[];
  running: number;
}

export interface IntakeCoalescerOptions {
  /**
   * Statements of one actor running at once (1). Two let the next statement's work overlap the
   * last one's commit, but halve the statements' size: at 32 clients on 2 cores one at a time
   * gave 1,740 records/s at 0.75 ms of CPU per record against 1,550-1,600 at 0.86-0.93 ms
   * (docs/decisions/0035-intake-cost.md): the fixed cost of a statement and its commit outweighs
   * the overlap.
   */
  concurrency?: number;
  /** Reports per statement at most, as a batch request may send. */
  maxReports?: number;
}

export class IntakeCoalescer {
  private readonly lanes = new Map<string, Lane>();
  private readonly concurrency: number;
  private readonly maxReports: number;
  /** Statements sent and how many reports they carried: for tests and the bench. */
  readonly stats = { statements: 0, reports: 0, largest: 0, retriedAlone: 0 };

  constructor(
    private readonly run: IntakeRunner,
    options: IntakeCoalescerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 1;
    this.maxReports = options.maxReports ?? MAX_BATCH;
  }

  /** Records one report as `actor`; resolves with its own result once its statement committed. */
  intake(report: Report, actor: Actor): Promise<IntakeResult> {
    // The actor is written into every row (history, log), and its grants decide which records it
    // may join (ADR 0038), so only one actor's reports, under the same grants, share a statement.
    const key = `${actor.kind}\u0000${actor.id}\u0000${actor.label}\u0000${actor.role}\u0000${JSON.stringify(actor.grants ?? null)}`;
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { actor, waiting: [], running: 0 };
      this.lanes.set(key, lane);
    }
    const promise = new Promise<IntakeResult>((resolve, reject) => lane.waiting.push({ report, resolve, reject }));
    this.pump(key, lane);
    return promise;
  }

  private pump(key: string, lane: Lane): void {
    while (lane.running < this.concurrency && lane.waiting.length > 0) {
      const group = lane.waiting.splice(0, this.maxReports);
      lane.running++;
      void this.send(lane.actor, group).finally(() => {
        lane.running--;
        if (lane.waiting.length > 0) this.pump(key, lane);
        else if (lane.running === 0) this.lanes.delete(key);
      });
    }
  }

  private async send(actor: Actor, group: Waiting[]): Promise<void> {
    this.stats.statements++;
    this.stats.reports += group.length;
    this.stats.largest = Math.max(this.stats.largest, group.length);
    let results: IntakeOutcome[];
    try {
      results = await this.run(
        group.map((w) => w.report),
        actor,
      );
    } catch (error) {
      // The statement (or its transaction) rolled back: nothing of the group was recorded. A
      // database that does not answer fails each request as it would have failed alone (a 503);
      // any other failure may be one report's doing, so each is tried again on its own and gets
      // the answer it would have had without company.
      if (group.length === 1 || isDatabaseUnavailable(error)) {
        for (const w of group) w.reject(error);
        return;
      }
      this.stats.retriedAlone += group.length;
      await Promise.all(group.map((w) => this.run([w.report], actor).then(([result]) => settle(w, result), w.reject)));
      return;
    }
    group.forEach((w, i) => settle(w, results[i]));
  }
}

/** A waiter's answer: its record, the refusal of its report, or an error when nothing came back. */
function settle(w: Waiting, outcome: IntakeOutcome | undefined): void {
  if (!outcome) w.reject(new Error("intake returned nothing"));
  else if ("refused" in outcome) w.reject(outcome.refused);
  else w.resolve(outcome);
}
