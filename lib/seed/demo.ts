import { dryRunOperation, createOperation } from "@/lib/operations";
import { randomBytes } from "node:crypto";
import { createApiToken } from "@/lib/auth";
import { ROLES, type Role } from "@/lib/access/client";
import { db } from "@/lib/db/client";
import { intakeReports } from "@/lib/reviews";
import { createUser, PERSON_ROLES } from "@/lib/users";
import { demoScenarios } from "./demo-scenarios";

export interface DemoCredentials {
  users: { email: string; role: string; password: string }[];
  tokens: { role: Role; token: string }[];
}

/** True when the database has never been seeded (or used): no users and no records. */
export async function isEmpty(): Promise<boolean> {
  const [users, records] = await Promise.all([db().user.count(), db().reviewRecord.count()]);
  return users === 0 && records === 0;
}

/** Demo users and tokens (one per role) and a data set covering every category and reason. */
export async function seedDemo(): Promise<DemoCredentials> {
  const credentials: DemoCredentials = { users: [], tokens: [] };
  for (const role of PERSON_ROLES) {
    const email = `${role}@demo.local`;
    const password = randomBytes(12).toString("base64url");
    await createUser({ email, role, password }, "system:demo-seed");
    credentials.users.push({ email, role, password });
  }
  for (const role of ROLES) {
    const { token } = await createApiToken(`demo-${role}`, role, "system:demo-seed");
    credentials.tokens.push({ role, token });
  }
  const scenarios = demoScenarios();
  const client = db();
  for (const s of scenarios) {
    if (s.sequenceState) {
      await client.sequenceState.create({
        data: { sequenceKey: s.sequenceState.sequenceKey, lastSequence: BigInt(s.sequenceState.lastSequence) },
      });
    }
    if (s.journal) {
      await client.effectJournal.create({
        data: { ...s.journal, sequence: BigInt(s.journal.sequence), kind: "invoice.reminder" },
      });
    }
  }
  await intakeReports(
    scenarios.map((s) => ({ input: s.report })),
    { kind: "token", id: "demo-seed", label: "system:demo-seed", role: "consumer" },
  );
  await planDemoOperation();
  return credentials;
}

/**
 * A bulk replay of the held gaps, frozen and dry-run but not confirmed: /operations shows what
 * one looks like before anyone starts it (docs/operations.md).
 */
async function planDemoOperation(): Promise<void> {
  const owner = { kind: "user", id: "demo-seed", label: "user:owner@demo.local", role: "owner" } as const;
  const id = await createOperation(
    {
      action: "replay",
      reason: "Demo: replay the held gaps once their predecessors have arrived",
      selection: { type: "filter", filter: { category: ["sequence-gap"], status: ["open"] } },
    },
    owner,
  );
  await dryRunOperation(id, owner);
}
