import { type Actor, canAnywhere, canIn } from "@/lib/access";
import type { Role } from "@/lib/access/roles";
import type { Grant } from "@/lib/access/grant";
import { isUuid } from "@/lib/domain/ids";
import { conflict, unprocessable } from "@/lib/domain/refusal";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { LockedRecord, Tx } from "./perform-action";

// Assignment (ADR 0028): who looks after a record. It changes no effect, journal or sequence;
// it is still an action, so it checks the version, bumps it and is logged with its reason.

interface Person {
  id: string;
  name: string;
  email: string;
  role: Role;
  banned: boolean;
}

/** A person as history, the log, the list and the detail show them. */
export function personRef(person: { id: string; name: string; email: string }): Prisma.InputJsonObject {
  return { id: person.id, name: person.name, email: person.email };
}

function refuseAssignee(code: string, problem: string) {
  return unprocessable(code, `assignee: ${problem}`, { issues: [{ path: "assignee", message: problem }] });
}

async function findPerson(tx: Tx, assignee: string, actor: Actor): Promise<Person> {
  if (assignee === "me" && actor.kind !== "user") {
    throw refuseAssignee("assignee-not-a-person", "a token is not a person: name the person by id or email");
  }
  const id = assignee === "me" ? actor.id : isUuid(assignee) ? assignee : null;
  if (!id && !assignee.includes("@")) throw refuseAssignee("assignee-unknown", "not a person's id or email");
  const person = await tx.user.findFirst({
    where: id ? { id } : { email: { equals: assignee, mode: "insensitive" } },
    select: { id: true, name: true, email: true, role: true, banned: true },
  });
  if (!person) throw refuseAssignee("assignee-unknown", `no person ${assignee}`);
  return person as Person;
}

export async function assign(
  tx: Tx,
  record: LockedRecord,
  assignee: string | null,
  actor: Actor,
): Promise<{ toStatus: LockedRecord["status"]; details: Prisma.InputJsonObject }> {
  const previous = record.assigneeId
    ? await tx.user.findUnique({ where: { id: record.assigneeId }, select: { id: true, name: true, email: true } })
    : null;
  let next: Person | null = null;
  if (assignee !== null) {
    next = await findPerson(tx, assignee, actor);
    // Someone who cannot act on the record cannot look after it: in its domain (ADR 0030), as
    // their grants are now. A disabled person cannot sign in.
    const grants = await tx.$queryRaw<Grant[]>`
      SELECT DISTINCT role::text AS role, domain FROM role_grants WHERE user_id = ${next.id}::uuid`;
    if (!canAnywhere(grants, "reviews.act")) {
      throw refuseAssignee(
        "assignee-cannot-act",
        `${next.email} is ${next.role}: only owners and support act on records`,
      );
    }
    if (!canIn(grants, "reviews.act", record.domain)) {
      const where = record.domain === null ? "records in no domain" : `records of domain ${record.domain}`;
      throw refuseAssignee("assignee-cannot-act", `${next.email} may not act on ${where}`);
    }
    if (next.banned) throw refuseAssignee("assignee-disabled", `${next.email} is disabled`);
  }
  if ((next?.id ?? null) === (record.assigneeId ?? null)) {
    throw conflict(
      "no-change",
      next ? `the record is already assigned to ${next.email}` : "the record is not assigned to anyone",
    );
  }
  await tx.$executeRaw`
    UPDATE review_records SET assignee_id = ${next?.id ?? null}::uuid WHERE id = ${record.id}::uuid`;
  return {
    toStatus: record.status,
    details: { assignee: next ? personRef(next) : null, previousAssignee: previous ? personRef(previous) : null },
  };
}
