import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { POST as abortRoute } from "@/app/api/v1/operations/[operationId]/abort/route";
import { POST as confirmRoute } from "@/app/api/v1/operations/[operationId]/confirm/route";
import { POST as dryRunRoute } from "@/app/api/v1/operations/[operationId]/dry-run/route";
import { GET as itemsRoute } from "@/app/api/v1/operations/[operationId]/items/route";
import { GET as logRoute } from "@/app/api/v1/operations/[operationId]/log/route";
import { POST as pauseRoute } from "@/app/api/v1/operations/[operationId]/pause/route";
import { POST as resumeRoute } from "@/app/api/v1/operations/[operationId]/resume/route";
import { GET as getRoute } from "@/app/api/v1/operations/[operationId]/route";
import { POST as createRoute } from "@/app/api/v1/operations/route";
import { type Actor } from "@/lib/access";
import type { Role } from "@/lib/access/client";
import type { Consumer } from "@review-console/consumer";
import { createInProcessConsumer } from "@/testing/worker/in-process";
import { emailReminderHandler } from "@/testing/worker/demo/reminder-handler";
import { eventually } from "@/testing/worker/harness";
import { createKindRegistry, invoiceReminderKind } from "@review-console/contract";
import { dispatchDue } from "@/lib/actions";
import type { OperationItemView, OperationView } from "@/lib/operations";
import { intakeReports } from "@/lib/reviews";
import { call, tokenFor } from "./http";

// Shared by tests/integration/operations-*.int.test.ts: records made through the real intake,
// the operations API called in-process, the dispatcher driven from the test, and a consumer of a
// kind of the test's own (so its claims never take another test's replays).

export const newTag = () => randomBytes(5).toString("hex");

export const consumerActor: Actor = {
  kind: "token",
  id: "test-consumer",
  label: "token:operations-test-consumer",
  role: "consumer",
};

/** An envelope of `kind` (the invoice.reminder shape); `n` is the sequence, keys derive from `key`. */
export function envelope(kind: string, key: string, n: number, extra: Record<string, unknown> = {}) {
  return {
    id: `msg-${key}-${n}`,
    kind,
    effectKey: `${key}:reminder-${n}`,
    sequenceKey: key,
    sequence: n,
    payload: { schema: "2021-03", invoiceId: key },
    ...extra,
  };
}

/**
 * Reports held sequence-gap records through the real intake, in the given order (which is their
 * `seq` order, the order an operation dispatches them in). `errorClass` is sent as the records'
 * own error class, so one test's records form a cause of their own.
 */
export async function reportGaps(
  envelopes: unknown[],
  errorClass: string,
  category = "sequence-gap",
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < envelopes.length; i += 500) {
    const chunk = envelopes.slice(i, i + 500);
    const results = await intakeReports(
      chunk.map((message) => ({
        input: {
          category: category as "sequence-gap",
          reason: category,
          requiredCheck: "find the missing predecessor",
          attempts: 1,
          lastError: `${errorClass} predecessor missing`,
          errorClass,
          source: { transport: "redis-streams", queue: "invoices", consumer: "billing-worker" },
          message,
        },
      })),
      consumerActor,
    );
    ids.push(...results.map((r) => r.id));
  }
  return ids;
}

/** The operations API as one role sees it (tokens are made on first use, per role). */
export function operationsApi() {
  const tokens = new Map<Role, string>();
  const token = async (role: Role) => {
    if (!tokens.has(role)) tokens.set(role, await tokenFor(role));
    return tokens.get(role)!;
  };
  const path = (id: string, tail = "") => `/api/v1/operations/${id}${tail}`;
  const api = {
    token,
    create: async (body: unknown, role: Role = "owner") =>
      call(createRoute, { token: await token(role), path: "/api/v1/operations", body }),
    get: async (id: string, role: Role = "owner") =>
      call(getRoute, { token: await token(role), path: path(id), params: { operationId: id } }),
    dryRun: async (id: string, role: Role = "owner") =>
      call(dryRunRoute, {
        token: await token(role),
        path: path(id, "/dry-run"),
        params: { operationId: id },
        body: {},
      }),
    confirm: async (id: string, body: unknown, role: Role = "owner") =>
      call(confirmRoute, { token: await token(role), path: path(id, "/confirm"), params: { operationId: id }, body }),
    control: async (
      control: "pause" | "resume" | "abort",
      id: string,
      reason: string,
      role: Role = "owner",
      extra: Record<string, unknown> = {},
    ) => {
      const handler = { pause: pauseRoute, resume: resumeRoute, abort: abortRoute }[control];
      return call(handler, {
        token: await token(role),
        path: path(id, `/${control}`),
        params: { operationId: id },
        body: { reason, ...extra },
      });
    },
    items: async (id: string, query = "", role: Role = "owner") =>
      call(itemsRoute, { token: await token(role), path: path(id, `/items?${query}`), params: { operationId: id } }),
    log: async (id: string, query = "", role: Role = "auditor") =>
      call(logRoute, { token: await token(role), path: path(id, `/log?${query}`), params: { operationId: id } }),

    /** GET the operation, expecting 200. */
    async view(id: string): Promise<OperationView> {
      const res = await api.get(id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as OperationView;
    },

    /** Every item, following the cursor. */
    async allItems(id: string, query = ""): Promise<OperationItemView[]> {
      const out: OperationItemView[] = [];
      let cursor: string | null = null;
      do {
        const res = await api.items(id, `limit=500${query ? `&${query}` : ""}${cursor ? `&cursor=${cursor}` : ""}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        out.push(...res.body.items);
        cursor = res.body.nextCursor;
      } while (cursor);
      return out;
    },

    /** Creates, dry-runs and confirms; returns the dry run's view and the running view. */
    async start(body: Record<string, unknown>): Promise<{ id: string; planned: OperationView; dryRun: OperationView }> {
      const created = await api.create({ action: "replay", reason: "incident 42: predecessors arrived", ...body });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.id as string;
      const dry = await api.dryRun(id);
      expect(dry.status, JSON.stringify(dry.body)).toBe(200);
      const confirmed = await api.confirm(id, {
        expectedVersion: dry.body.version,
        dryRunAt: dry.body.dryRun.at,
        checkDone: true,
      });
      expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
      expect(confirmed.body.state).toBe("running");
      return { id, planned: created.body, dryRun: dry.body };
    },
  };
  return api;
}

/** Runs dispatch rounds in this process until `probe` holds (or fails after `timeoutMs`). */
export async function dispatchUntil<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  what = "the dispatcher",
): Promise<T> {
  return eventually(
    async () => {
      const wait = await dispatchDue();
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      if (Number.isFinite(wait) && wait > 0) await new Promise((r) => setTimeout(r, Math.min(wait, 50)));
      return undefined;
    },
    timeoutMs,
    what,
  );
}

/**
 * A consumer of a kind of the test's own, with invoice.reminder's schemas, sending each effect to
 * `providerUrl`. Not started: the test calls `replays!.runOnce()` to claim and run what is due now.
 */
export function kindConsumer(kind: string, providerUrl: string, limit = 10): Consumer {
  return createInProcessConsumer({
    name: `ops-${kind}`,
    handlers: { [kind]: emailReminderHandler(providerUrl) },
    registry: createKindRegistry([{ ...invoiceReminderKind, kind }]),
    effectLeaseMs: 5000,
    gapGraceMs: 0,
    replays: { pollMs: 20, leaseSeconds: 30, limit },
  });
}
