import { z } from "zod";
import { createKindRegistry, invoiceReminderKind } from "@review-console/contract";
import { type Handler, TemporaryFailure } from "@review-console/consumer";

// A local effect for the broker tests (tests/integration/consumer-rabbitmq, consumer-nats,
// consumer-metrics): a ledger row per entry, written in the message's transaction, a gate to hold
// one mid-way, and accounts that fail in the ways a worker's outcomes tell apart.

export const CREATE_LEDGER = `CREATE TABLE ledger (effect_key text PRIMARY KEY, account text NOT NULL, amount integer NOT NULL)`;

const ledgerKind = {
  kind: "ledger.entry",
  schemas: { "1": z.looseObject({ schema: z.literal("1"), account: z.string().min(1), amount: z.int() }) },
  temporaryReasons: { "account-locked": { limit: 2, delayMs: 50 } },
};

/** The console's kinds and `ledger.entry`. */
export const ledgerRegistry = createKindRegistry([invoiceReminderKind, ledgerKind]);

/**
 * Entries for account `gated` wait inside their transaction until the test opens the gate;
 * account `flaky` fails once with a temporary reason, `broken` always (a review), `slow` takes
 * 150 ms.
 */
export function gatedLedger() {
  const failedOnce = new Set<string>();
  let open!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (entered = resolve));
  const handler: Handler = {
    effect: "local",
    async apply({ tx, envelope, effectKey }) {
      const { account, amount } = envelope.payload as unknown as { account: string; amount: number };
      if (account === "flaky" && !failedOnce.has(effectKey)) {
        failedOnce.add(effectKey);
        throw new TemporaryFailure("account-locked", "the account is locked for a moment");
      }
      if (account === "broken") throw new Error("the ledger refused the entry");
      if (account === "slow") await new Promise((resolve) => setTimeout(resolve, 150));
      if (account === "gated") {
        entered();
        await gate;
      }
      tx.queue(`INSERT INTO ledger (effect_key, account, amount) VALUES ($1, $2, $3)`, [effectKey, account, amount]);
    },
  };
  return { handler, open, reached };
}
