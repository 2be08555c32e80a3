import { appendDecision, appendStandaloneDecision, type DecisionEntry } from "@/lib/audit/append";
import type { Refusal } from "@/lib/domain/refusal";
import type { Prisma } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import { RefusalCoalescer, type RefusalRepeats } from "./refusal-coalescer";

// Every refused authorization is built here, once (docs/decisions/0010-refusals-in-the-log.md):
// it always goes to the application log (pino); to the hash-chained decision log only when the
// actor named in it really sent the request, and then a flood of the same refusal becomes one
// entry at once and one entry with the count of its repeats.

/** Repeats within this long of a window's first refusal are counted, not written one by one. */
export const REFUSAL_WINDOW_SECONDS = 60;

/** Who was refused, as the log names them (an access Actor fits): a person's refusals may be coalesced. */
export interface RefusedActor {
  kind: "token" | "user";
  label: string;
  role: string;
}

export interface RefusedAuthorization {
  actor: RefusedActor;
  /**
   * What makes two refusals "the same", with the actor and the reason: the route as a pattern
   * (`POST /api/v1/reviews/[id]/actions`, never the concrete path, so that varying an id in the
   * path cannot open a new window each time), or `page` for a page refused by its permission.
   */
  route: string;
  /** Why, for people: `role consumer may not reviews.read`. Bounded text (no ids), part of the key. */
  reason: string;
  method?: string;
  path?: string;
  reviewId?: string | null;
  effectKey?: string | null;
  /** More of what was refused (`permission`, `action`, `operationId`, ...), after method and path. */
  details?: Record<string, Prisma.InputJsonValue | null>;
  /** The browser's `Sec-Fetch-Site` on a request authenticated by the session cookie. */
  fetchSite?: string | null;
  /** A request the cross-site rule refused: another site made the person's browser send it. */
  crossSite?: boolean;
}

/** Where a refusal went: written to the chain now, counted for a later entry, or only to pino. */
export type RefusalFate = "written" | "counted" | "application-log";

type Tx = Parameters<typeof appendDecision>[0];

/**
 * Whether the actor named in the refusal is the one who sent it. A bearer token carries no
 * ambient credential: its holder sent it. A session cookie rides along with whatever the
 * person's browser is made to request, so a cookie refusal counts as theirs only when the
 * browser says it came from this console's own pages (`same-origin`) or from the person
 * (`none`: typed, bookmarked). Without the header (no browser, or one from before 2023) it counts
 * too: nothing says otherwise, and that is how every refusal was written before.
 */
function sentByActor(refusal: RefusedAuthorization): boolean {
  if (refusal.crossSite) return false;
  if (refusal.actor.kind !== "user") return true;
  const site = refusal.fetchSite?.trim().toLowerCase();
  return !site || site === "same-origin" || site === "none";
}

function entryOf(refusal: RefusedAuthorization): DecisionEntry {
  return {
    actor: refusal.actor.label,
    actorRole: refusal.actor.role,
    action: "authorization.refused",
    reviewId: refusal.reviewId ?? null,
    effectKey: refusal.effectKey ?? null,
    reason: refusal.reason.slice(0, 500),
    details: {
      ...(refusal.method !== undefined ? { method: refusal.method } : {}),
      ...(refusal.path !== undefined ? { path: refusal.path } : {}),
      ...refusal.details,
    },
  };
}

/**
 * The entry that stands for a window's repeats: the first refusal's entry with `count` (how many
 * more came), the time of the first and last of them, and what varied (record ids, paths).
 */
export function repeatsEntry(repeats: RefusalRepeats<DecisionEntry>): DecisionEntry {
  const { first } = repeats;
  const sameRecord = repeats.reviewIds.length === 1 && repeats.reviewIds[0] === (first.reviewId ?? null);
  const details = { ...(first.details as Record<string, Prisma.InputJsonValue | null>) };
  if (repeats.paths.length > 1 || (repeats.paths[0] !== undefined && repeats.paths[0] !== details.path)) {
    delete details.path;
    details.paths = repeats.paths;
  }
  if (!sameRecord) details.reviewIds = repeats.reviewIds;
  return {
    ...first,
    reviewId: sameRecord ? (first.reviewId ?? null) : null,
    effectKey: sameRecord ? (first.effectKey ?? null) : null,
    details: {
      ...details,
      count: repeats.count,
      firstAt: new Date(repeats.firstAt).toISOString(),
      lastAt: new Date(repeats.lastAt).toISOString(),
      windowSeconds: REFUSAL_WINDOW_SECONDS,
    },
  };
}

interface RefusalState {
  coalescer: RefusalCoalescer<DecisionEntry>;
  /** Summary writes under way, so flushRefusals() can wait for them. */
  pending: Set<Promise<void>>;
}

// One per process, on globalThis: Next bundles route handlers and pages separately, and a
// module-level map would give each bundle windows of its own.
const STATE = Symbol.for("review-console.refusals");

function state(): RefusalState {
  const holder = globalThis as unknown as Record<symbol, RefusalState | undefined>;
  let current = holder[STATE];
  if (!current) {
    const pending = new Set<Promise<void>>();
    current = {
      pending,
      coalescer: new RefusalCoalescer<DecisionEntry>({
        windowMs: REFUSAL_WINDOW_SECONDS * 1000,
        flush: (repeats) => {
          const entry = repeatsEntry(repeats);
          const write = appendStandaloneDecision(entry)
            .catch((error: unknown) => {
              // The count is not lost: each refusal is in the application log as well.
              log.error({ err: error, entry }, "repeated refusals could not be written to the decision log");
            })
            .finally(() => pending.delete(write));
          pending.add(write);
        },
      }),
    };
    holder[STATE] = current;
  }
  return current;
}

/**
 * Records one refused authorization: always to the application log; to the decision log when
 * the actor sent it (see sentByActor), the first of a window at once (in `tx` when given, e.g.
 * a refusal decided under a row lock) and its repeats later as one entry with their count.
 */
export async function recordRefusal(refusal: RefusedAuthorization, tx?: Tx): Promise<RefusalFate> {
  const entry = entryOf(refusal);
  let fate: RefusalFate = "application-log";
  if (sentByActor(refusal)) {
    const key = `${entry.actor}\n${refusal.route}\n${entry.reason}`;
    const offered = state().coalescer.offer(key, entry, { reviewId: entry.reviewId, path: refusal.path });
    fate = offered === "write" ? "written" : "counted";
  }
  log[refusal.crossSite ? "warn" : "info"](
    { ...entry, route: refusal.route, fetchSite: refusal.fetchSite ?? null, fate },
    fate === "application-log" ? "authorization refused (not written under the actor's name)" : "authorization refused",
  );
  if (fate === "written") await (tx ? appendDecision(tx, entry) : appendStandaloneDecision(entry));
  return fate;
}

/** Writes the counts of every open window now and waits for them (tests; a process that stops). */
export async function flushRefusals(): Promise<void> {
  const { coalescer, pending } = state();
  coalescer.closeAll();
  await Promise.all([...pending]);
}

/** Who was refused, and where: what the decision-log entry of a refused authorization needs. */
export interface RefusedRequest {
  actor: RefusedActor;
  /** The route as a pattern (`POST /api/v1/reviews/[id]/actions`), or `page`. */
  route: string;
  method: string;
  path?: string;
  /** The browser's `Sec-Fetch-Site`, for a request authenticated by the session cookie. */
  fetchSite: string | null;
}

export function refusedRequest(request: Request, actor: RefusedRequest["actor"], route: string): RefusedRequest {
  return {
    actor,
    route,
    method: request.method,
    path: new URL(request.url).pathname,
    fetchSite: request.headers.get("sec-fetch-site"),
  };
}

/**
 * Records a `forbidden` refusal as `authorization.refused` (the only place that entry is made
 * from a refusal): the application log always, the decision log when the actor sent it.
 */
export async function recordForbidden(refusal: Refusal, where: RefusedRequest): Promise<void> {
  if (refusal.kind !== "forbidden") return;
  const about = refusal.authorization ?? {};
  await recordRefusal({
    actor: where.actor,
    route: where.route,
    reason: about.reason ?? refusal.message,
    method: where.method,
    ...(where.path !== undefined ? { path: where.path } : {}),
    reviewId: about.reviewId ?? null,
    effectKey: about.effectKey ?? null,
    details: about.details ?? {},
    fetchSite: where.fetchSite,
    crossSite: about.crossSite ?? false,
  });
}
