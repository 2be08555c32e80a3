import { z } from "zod";
import { hashPassword } from "@/lib/auth/passwords";
import { appendDecision } from "@/lib/audit/append";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/generated/prisma/client";

// People sign in with one of these; `consumer` is for programs (tokens) only.
export const PERSON_ROLES = ["owner", "support", "auditor", "admin"] as const;
export type PersonRole = (typeof PERSON_ROLES)[number];

export const newUserSchema = z.object({
  email: z
    .email()
    .max(320)
    .transform((e) => e.toLowerCase()),
  role: z.enum(PERSON_ROLES),
  password: z.string().min(12, "must have at least 12 characters").max(1024),
});

export type CreateUserResult = { ok: true; id: string } | { ok: false; reason: "email-taken" };

export async function createUser(
  input: z.input<typeof newUserSchema>,
  actor = "system:cli",
): Promise<CreateUserResult> {
  const { email, role, password } = newUserSchema.parse(input);
  const passwordHash = await hashPassword(password);
  try {
    const user = await db().$transaction(async (tx) => {
      const created = await tx.user.create({ data: { email, role, passwordHash } });
      await appendDecision(tx, {
        actor,
        action: "user.created",
        reason: `added ${email} as ${role}`,
        details: { email, role },
      });
      return created;
    });
    return { ok: true, id: user.id };
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      return { ok: false, reason: "email-taken" };
    }
    throw error;
  }
}
