import { db } from "@/lib/db/client";

/** A person a record can be assigned to (ADR 0028). */
export interface AssigneeOption {
  id: string;
  name: string;
  email: string;
  role: "owner" | "support";
}

/**
 * Who may be assigned a record: owners and support (the roles that act on records) who are not
 * disabled, by email. Readable by the people who assign, unlike the admin's list of people: it
 * holds nothing but who they are.
 */
export async function listAssignees(): Promise<AssigneeOption[]> {
  const rows = await db().user.findMany({
    where: { role: { in: ["owner", "support"] }, banned: false },
    select: { id: true, name: true, email: true, role: true },
    orderBy: { email: "asc" },
  });
  return rows.map((r) => ({ id: r.id, name: r.name, email: r.email, role: r.role as AssigneeOption["role"] }));
}
