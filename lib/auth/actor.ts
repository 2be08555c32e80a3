import { appendStandaloneDecision } from "@/lib/audit/append";
import { ApiError } from "@/lib/http/errors";
import { can, type Permission, type Role } from "./roles";
import { findTokenActor } from "./tokens";

export interface Actor {
  kind: "token" | "user";
  id: string;
  /** How the actor appears in history and the decision log, e.g. `token:orders-worker`. */
  label: string;
  role: Role;
}

/** Resolves who is calling. Programs send `Authorization: Bearer <token>`. */
export async function authenticate(request: Request): Promise<Actor> {
  const header = request.headers.get("authorization");
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match?.[1]) throw new ApiError(401, "unauthenticated", "a bearer token is required");
  const token = await findTokenActor(match[1]);
  if (!token) throw new ApiError(401, "unauthenticated", "the token is unknown or revoked");
  return { kind: "token", id: token.id, label: `token:${token.name}`, role: token.role };
}

/** Refuses with 403 unless the role allows it; the refusal itself goes to the decision log. */
export async function authorize(actor: Actor, permission: Permission, request: Request): Promise<void> {
  if (can(actor.role, permission)) return;
  await appendStandaloneDecision({
    actor: actor.label,
    actorRole: actor.role,
    action: "authorization.refused",
    reason: `role ${actor.role} may not ${permission}`,
    details: { method: request.method, path: new URL(request.url).pathname, permission },
  });
  throw new ApiError(403, "forbidden", `role ${actor.role} may not ${permission}`);
}
