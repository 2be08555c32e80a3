import { type Actor, canAnywhere, canIn, grantsOfUser } from "@/lib/access";
import type { Role } from "@/lib/access/client";
import { isUuid } from "@/lib/domain/ids";
import { conflict, unprocessable } from "@/lib/domain/refusal";
import type { Prisma } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import type { LockedRecord } from "./perform-action";
import type { Tx } from "@/lib/db/client";

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

/**
 * One refusal for every assignee who is not there for this record: nobody by that id or email,
 * someone who may not act on it (another domain, a role that does not act) or a disabled person.
 * Telling them apart would tell a caller of one domain who exists elsewhere, their role and
 * whether they are disabled (GET /api/v1/assignees lists whom the caller may assign). The reason
 * goes to the server's log for whoever runs the console.
 */
function unavailableAssignee(assignee: string, why: string) {
  log.info({ assignee, why }, "assignment refused: the assignee is not available for this record");
  return refuseAssignee(
    "assignee-unavailable",
    "no one by that id or email can be assigned this record (see GET /api/v1/assignees)",
  );
}

async function findPerson(tx: Tx, assignee: string, actor: Actor): Promise<Person> {
  if (assignee === "me" && actor.kind !== "user") {
    throw refuseAssignee("assignee-not-a-person", "a token is not a person: name the person by id or email");
  }
  const id = assignee === "me" ? actor.id : isUuid(assignee) ? assignee : null;
  if (!id && !assignee.includes("@")) throw unavailableAssignee(assignee, "not a person's id or email");
  const person = await tx.user.findFirst({
    where: id ? { id } : { email: { equals: assignee, mode: "insensitive" } },
    select: { id: true, name: true, email: true, role: true, banned: true },
  });
  if (!person) throw unavailableAssignee(assignee, "no such person");
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
    const grants = await grantsOfUser(next.id, tx);
    if (!canAnywhere(grants, "reviews.act"))
      throw unavailableAssignee(assignee, `${next.role} does not act on records`);
    if (!canIn(grants, "reviews.act", record.domain)) {
      throw unavailableAssignee(assignee, `may not act on records of domain ${record.domain ?? "(none)"}`);
    }
    if (next.banned) throw unavailableAssignee(assignee, "disabled");
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
