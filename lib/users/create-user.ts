import { z } from "zod";
import { appendDecision } from "@/lib/audit";
import { authAdapterFor, hashPassword } from "@/lib/auth";
import { PERSON_ROLES } from "@/lib/access/client";
import { db } from "@/lib/db/client";
import { requireDomain } from "@/lib/domains";
import { refuseScopedGlobalRole } from "@/lib/access/client";
import { Prisma } from "@/lib/generated/prisma/client";

export { PERSON_ROLES, type PersonRole } from "@/lib/access/client";

export const newUserSchema = z.object({
  email: z
    .email()
    .max(320)
    .transform((e) => e.toLowerCase()),
  role: z.enum(PERSON_ROLES),
  password: z.string().min(12, "must have at least 12 characters").max(1024),
});

/** As newUserSchema, but the password may wait: an invited person sets it through a link. */
export const newPersonSchema = newUserSchema.extend({ password: newUserSchema.shape.password.optional() });

export type CreateUserResult = { ok: true; id: string } | { ok: false; reason: "email-taken" };

export interface CreateUserOptions {
  actorRole?: string | null;
  /** Why, for the decision log; absent: "added <email> as <role>". */
  reason?: string;
  /** The first grant's domain (ADR 0029); absent or null: the role in every domain. */
  domain?: string | null;
}

/**
 * Adds a person who signs in with email and password: a Better Auth user (with its `role`) and
 * its `credential` account holding the Argon2id hash, written through Better Auth's own adapter
 * inside our transaction, so the `user.created` decision-log entry commits with them or not at all.
 * Without a password there is no credential account yet: the person is invited and sets one
 * through a one-time link (lib/users/invite-user.ts).
 */
export async function createUser(
  input: z.input<typeof newPersonSchema>,
  actor = "system:cli",
  options: CreateUserOptions = {},
): Promise<CreateUserResult> {
  const { email, role, password } = newPersonSchema.parse(input);
  // The same function Better Auth verifies with (lib/auth/better-auth.ts).
  const passwordHash = password === undefined ? null : await hashPassword(password);
  const domain = options.domain ?? null;
  try {
    const id = await db().$transaction(async (tx) => {
      // A refusal (404) before anything is written: no such domain.
      refuseScopedGlobalRole(role, domain);
      if (domain !== null) await requireDomain(tx, domain);
      const people = authAdapterFor(tx);
      const now = new Date();
      const user = await people.create<Record<string, unknown>, { id: string }>({
        model: "user",
        // The name is Better Auth's required display name; the console shows the email.
        data: { name: email, email, emailVerified: true, role, createdAt: now, updatedAt: now },
      });
      // Authorization reads grants (ADR 0029): the role, in every domain or in the one given.
      await tx.$executeRaw`
        INSERT INTO role_grants (user_id, role, domain, created_by)
        VALUES (${user.id}::uuid, ${role}::"Role", ${domain}, ${actor})`;
      // Better Auth's credential account: accountId is the user's id (how sign-in finds it).
      if (passwordHash !== null) {
        await people.create({
          model: "account",
          data: {
            userId: user.id,
            accountId: user.id,
            providerId: "credential",
            password: passwordHash,
            createdAt: now,
            updatedAt: now,
          },
        });
      }
      await appendDecision(tx, {
        actor,
        actorRole: options.actorRole ?? null,
        action: "user.created",
        reason: options.reason ?? `added ${email} as ${role}${domain === null ? "" : ` in domain ${domain}`}`,
        // `invited`: no password yet; the person sets it through a one-time link.
        details: {
          userId: user.id,
          email,
          role,
          // Present only when scoped: entries of global people keep their shape.
          ...(domain === null ? {} : { domain }),
          ...(passwordHash === null ? { invited: true } : {}),
        },
      });
      return user.id;
    });
    return { ok: true, id };
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      return { ok: false, reason: "email-taken" };
    }
    throw error;
  }
}
