import { type Actor } from "@/lib/access";
import { db } from "@/lib/db/client";
import { isUuid } from "@/lib/domain/ids";
import { conflict, forbidden, notFound } from "@/lib/domain/refusal";
import { Prisma } from "@/lib/generated/prisma/client";
import { personOf } from "@/lib/users";
import type { SavedView } from "./response-schemas";
import { type CreateViewInput, MAX_VIEWS_PER_PERSON, type UpdateViewInput } from "./schema";

// Saved views of the queue (docs/decisions/0047-saved-views.md): a person's own, and the ones
// others shared. Only the owner changes or deletes one. A view belongs to a person: a token is
// refused (`403 person-required`) before anything is read.

const SAVED_VIEWS = "saved views";

const withOwner = { owner: { select: { id: true, name: true, email: true } } } as const;
type Row = Prisma.SavedViewGetPayload<{ include: typeof withOwner }>;

function viewOf(row: Row, personId: string): SavedView {
  return {
    id: row.id,
    name: row.name,
    query: row.query,
    shared: row.shared,
    mine: row.ownerId === personId,
    owner: row.owner,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The caller's views by name, then the shared views of others (not of disabled people) by name. */
export async function listViews(actor: Actor): Promise<SavedView[]> {
  return listViewsOf(personOf(actor, SAVED_VIEWS));
}

/** The same for a person already known to be one: every page's navigation reads it with the session. */
export async function listViewsOf(personId: string): Promise<SavedView[]> {
  const rows = await db().savedView.findMany({
    where: { OR: [{ ownerId: personId }, { shared: true, owner: { banned: false } }] },
    include: withOwner,
    orderBy: [{ name: "asc" }, { id: "asc" }],
  });
  const views = rows.map((row) => viewOf(row, personId));
  return [...views.filter((v) => v.mine), ...views.filter((v) => !v.mine)];
}

const nameTaken = (name: string) =>
  conflict("name-taken", `name: you have a view called "${name}" already`, {
    issues: [{ path: "name", message: "you have a view of this name already" }],
  });

/** A unique violation of (owner_id, name): the only unique index a change of a view can break. */
function isNameTaken(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

export async function createView(actor: Actor, input: CreateViewInput): Promise<SavedView> {
  const personId = personOf(actor, SAVED_VIEWS);
  try {
    return await db().$transaction(async (tx) => {
      // The person's row, locked: two saves at once cannot both be the 50th.
      await tx.$queryRaw`SELECT 1 FROM users WHERE id = ${personId}::uuid FOR UPDATE`;
      const count = await tx.savedView.count({ where: { ownerId: personId } });
      if (count >= MAX_VIEWS_PER_PERSON) {
        throw conflict(
          "view-limit",
          `name: you have ${MAX_VIEWS_PER_PERSON} saved views, the most one person keeps; delete one first`,
          { issues: [{ path: "name", message: `at most ${MAX_VIEWS_PER_PERSON} saved views` }] },
        );
      }
      const row = await tx.savedView.create({
        data: { ownerId: personId, name: input.name, query: input.query, shared: input.shared ?? false },
        include: withOwner,
      });
      return viewOf(row, personId);
    });
  } catch (error) {
    if (isNameTaken(error)) throw nameTaken(input.name);
    throw error;
  }
}

/**
 * The caller's own view `viewId`. Another person's private view, like an unknown id, is a 404
 * (its existence is not theirs to learn); a shared one they can see but not change is a 403.
 */
async function ownView(personId: string, viewId: string): Promise<Row> {
  const row = isUuid(viewId) ? await db().savedView.findUnique({ where: { id: viewId }, include: withOwner }) : null;
  if (!row || (row.ownerId !== personId && !row.shared)) throw notFound("no saved view with this id");
  if (row.ownerId !== personId) {
    throw forbidden("not-owner", "only its owner may change or delete a saved view", {
      reason: "only its owner may change or delete a saved view",
      details: { rule: "saved-view-owner" },
    });
  }
  return row;
}

export async function updateView(actor: Actor, viewId: string, change: UpdateViewInput): Promise<SavedView> {
  const personId = personOf(actor, SAVED_VIEWS);
  await ownView(personId, viewId);
  try {
    // Owner in the condition too: a view deleted meanwhile is a 404, never another's row.
    const { count } = await db().savedView.updateMany({
      where: { id: viewId, ownerId: personId },
      data: { name: change.name, query: change.query, shared: change.shared },
    });
    if (count === 0) throw notFound("no saved view with this id");
  } catch (error) {
    if (isNameTaken(error)) throw nameTaken(change.name ?? "");
    throw error;
  }
  return viewOf(await ownView(personId, viewId), personId);
}

export async function deleteView(actor: Actor, viewId: string): Promise<SavedView> {
  const personId = personOf(actor, SAVED_VIEWS);
  const row = await ownView(personId, viewId);
  const { count } = await db().savedView.deleteMany({ where: { id: viewId, ownerId: personId } });
  if (count === 0) throw notFound("no saved view with this id");
  return viewOf(row, personId);
}
