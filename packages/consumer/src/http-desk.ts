import { arrayElements, objectMembers, sliceSpan } from "@review-console/contract";
import type {
  ClaimedReplay,
  ClaimRequest,
  HeldReport,
  OutcomeReceipt,
  RenewRequest,
  ReplayOutcomeReport,
  ReviewDesk,
} from "./desk.ts";

export interface HttpDeskOptions {
  /** The console's address, e.g. `https://review.example.com`. */
  url: string;
  /** An API token with the `consumer` role (`review-console token create --role consumer`). */
  token: string;
  /** How long one request may take. */
  timeoutMs?: number;
}

/** The console answered with an error: its status and `{"error": {code, message}}`. */
export class DeskRequestError extends Error {
  override readonly name = "DeskRequestError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The console's HTTP API as a desk (API: `POST /api/v1/reviews`, `POST /api/v1/replays/claim`,
 * `POST /api/v1/replays/{id}/outcome`). A held message is sent with its text exactly as
 * received, and replays come back with theirs: the JSON is spliced and sliced as text, never
 * parsed and printed again (that would reorder integer-like keys and round long numbers).
 */
export function httpDesk(options: HttpDeskOptions): ReviewDesk {
  const base = options.url.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function post(path: string, body: string): Promise<{ status: number; text: string }> {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${options.token}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (response.ok) return { status: response.status, text };
    let code = "http-error";
    let message = `${path} answered ${response.status}`;
    try {
      const error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
      if (error?.code) code = error.code;
      if (error?.message) message = `${path} answered ${response.status} ${code}: ${error.message}`;
    } catch {
      // Not JSON (a proxy's page): the status says enough.
    }
    throw new DeskRequestError(response.status, code, message);
  }

  return {
    async report(held: HeldReport) {
      // The message goes in as the text it arrived as (not `message`, its parsed form): the
      // console keeps that text.
      const { category, reason, requiredCheck, attempts, lastError, source, rawMessage } = held;
      const fields = {
        category,
        reason,
        requiredCheck,
        attempts,
        ...(lastError === undefined ? {} : { lastError }),
        source,
      };
      const body = `${JSON.stringify(fields).slice(0, -1)},"message":${rawMessage}}`;
      const { text } = await post("/api/v1/reviews", body);
      const answer = JSON.parse(text) as { id: string; attempts: number };
      return { id: answer.id, attempts: answer.attempts };
    },

    async claimReplays(request: ClaimRequest) {
      const { text } = await post("/api/v1/replays/claim", JSON.stringify(request));
      const items = sliceSpan(text, objectMembers(text, 0).get("items"));
      if (items === undefined) throw new Error("the claim answer has no items");
      return arrayElements(items, 0).map((span): ClaimedReplay => {
        const item = items.slice(span[0], span[1]);
        const members = objectMembers(item, 0);
        const value = (name: string) => {
          const raw = sliceSpan(item, members.get(name));
          if (raw === undefined) throw new Error(`a claimed replay has no ${name}`);
          return raw;
        };
        const envelopeText = value("envelope");
        return {
          replayId: JSON.parse(value("replayId")) as string,
          reviewId: JSON.parse(value("reviewId")) as string,
          revisionNumber: JSON.parse(value("revisionNumber")) as number,
          claimExpiresAt: new Date(JSON.parse(value("claimExpiresAt")) as string),
          envelopeText,
          // Consoles before the `message` and `category` members answered with the envelope only.
          messageText: sliceSpan(item, members.get("message")) ?? envelopeText,
          category: members.has("category") ? (JSON.parse(value("category")) as string) : "",
        };
      });
    },

    async renewClaims(request: RenewRequest) {
      const { text } = await post("/api/v1/replays/renew", JSON.stringify(request));
      const { items } = JSON.parse(text) as { items: { replayId: string; claimExpiresAt: string }[] };
      return items.map((item) => ({ replayId: item.replayId, claimExpiresAt: new Date(item.claimExpiresAt) }));
    },

    async reportOutcome(replayId: string, report: ReplayOutcomeReport): Promise<OutcomeReceipt> {
      try {
        await post(`/api/v1/replays/${encodeURIComponent(replayId)}/outcome`, JSON.stringify(report));
        return "recorded";
      } catch (error) {
        // 403 not-claim-holder, 409 not-claimed: the replay is no longer ours to report.
        if (error instanceof DeskRequestError && (error.status === 403 || error.status === 409)) {
          return { refused: { code: error.code, message: error.message } };
        }
        throw error;
      }
    },
  };
}
