import {
  type ConsumerOptions,
  ConsumerRuntime,
  createConsumer,
  type ReviewDesk,
  type RuntimeOptions,
} from "@review-console/consumer";
import { type Actor } from "@/lib/access";
import { Refusal } from "@/lib/domain/refusal";
import { recordForbidden } from "@/lib/audit";
import { log } from "@/lib/log";
import { claimDueReplays, renewClaims, reportReplayOutcome } from "@/lib/replays";
import { intakeReports, reportSchema } from "@/lib/reviews";

// The console's own processes (the demo, the crash test, the benchmarks, the tests) run the
// consumer package in-process: the same runtime a worker elsewhere runs, with a desk that calls
// the code behind the console's API directly instead of over HTTP (ADR 0014).

/** The actor a consumer writes as here: a token-like identity with the `consumer` role. */
export function consumerActor(name: string): Actor {
  return { kind: "token", id: `consumer:${name}`, label: `consumer:${name}`, role: "consumer" };
}

/**
 * The desk of a consumer named `name`, in this process: intake, claims and outcomes as
 * `POST /api/v1/reviews`, `/replays/claim` and `/replays/{id}/outcome` run them, under the
 * actor `consumer:<name>`. A refused outcome is recorded like the API records it.
 */
export function inProcessDesk(name: string): ReviewDesk {
  const actor = consumerActor(name);
  return {
    async report(held) {
      const { rawMessage, ...report } = held;
      // The schema POST /api/v1/reviews parses the same report with: the same checks either way.
      const input = reportSchema.parse(report);
      const [result] = await intakeReports([{ input, rawMessage }], actor);
      if (!result) throw new Error("intake returned no record");
      return { id: result.id, attempts: result.attempts };
    },
    claimReplays: (request) => claimDueReplays(request, actor),
    renewClaims: (request) => renewClaims(request, actor),
    async reportOutcome(replayId, report) {
      try {
        await reportReplayOutcome(replayId, report, actor);
        return "recorded";
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        const path = `/api/v1/replays/${replayId}/outcome`;
        await recordForbidden(error, {
          actor,
          route: "POST /api/v1/replays/[replayId]/outcome",
          method: "POST",
          path,
          fetchSite: null,
        });
        return { refused: { code: error.code, message: error.message } };
      }
    },
  };
}

type InProcess<T extends RuntimeOptions> = Omit<T, "desk" | "logger"> & Partial<Pick<T, "desk" | "logger">>;

/** A consumer's options here: the desk and the logger are this process's unless given. */
export type InProcessConsumerOptions = InProcess<ConsumerOptions>;

/** createConsumer with this process's desk and the console's logger. */
export function createInProcessConsumer(options: InProcessConsumerOptions) {
  return createConsumer({ desk: inProcessDesk(options.name), logger: log, ...options });
}

/** A bare runtime with this process's desk and the console's logger. */
export function inProcessRuntime(options: InProcess<RuntimeOptions>): ConsumerRuntime {
  return new ConsumerRuntime({ desk: inProcessDesk(options.name), logger: log, ...options });
}
