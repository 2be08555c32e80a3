import { randomBytes } from "node:crypto";
import { POST as authPost } from "@/app/api/auth/[...all]/route";
import type { PersonRole } from "@/lib/access/client";
import { createUser } from "@/lib/users";

export interface Person {
  id: string;
  email: string;
  password: string;
  role: PersonRole;
}

/** A new person with a random email and password, created the way `user add` does. */
export async function createPerson(role: PersonRole, label: string = role): Promise<Person> {
  const email = `${label}-${randomBytes(4).toString("hex")}@test.local`;
  const password = randomBytes(12).toString("base64url");
  const result = await createUser({ email, role, password }, "system:test");
  if (!result.ok) throw new Error(`could not create ${email}: ${result.reason}`);
  return { id: result.id, email, password, role };
}

/**
 * Each call a client address of its own (TEST-NET-3, 203.0.113.0/24, and beyond), so that
 * sign-ins in one test do not use up another's login rate limit (5 per minute per IP).
 */
let nextAddress = 1;
export function freshClientIp(): string {
  const n = nextAddress++;
  return `203.0.${113 + Math.floor(n / 250)}.${(n % 250) + 1}`;
}

export interface SignInAnswer {
  status: number;
  body: any;
  /** The Set-Cookie header values, as sent. */
  setCookies: string[];
  /** `name=value` of the session cookie, ready for a Cookie header; null when none was set. */
  cookie: string | null;
}

/** Signs in through Better Auth's route handler, the way the login form does. */
export async function signIn(
  email: string,
  password: string,
  options: { ip?: string; origin?: string | null; url?: string; headers?: Record<string, string> } = {},
): Promise<SignInAnswer> {
  const url = options.url ?? "http://localhost/api/auth/sign-in/email";
  const headers = new Headers({
    "content-type": "application/json",
    "x-forwarded-for": options.ip ?? freshClientIp(),
    ...options.headers,
  });
  const origin = options.origin === undefined ? new URL(url).origin : options.origin;
  if (origin !== null) headers.set("origin", origin);
  const response = await authPost(
    new Request(url, { method: "POST", headers, body: JSON.stringify({ email, password }) }),
  );
  const text = await response.text();
  const setCookies = response.headers.getSetCookie();
  const session = setCookies.find((c) => /^(__Secure-)?review-console\.session_token=[^;]+/.test(c));
  return {
    status: response.status,
    body: text ? JSON.parse(text) : null,
    setCookies,
    cookie: session ? session.split(";")[0]! : null,
  };
}

/** A new person of `role`, signed in: the Cookie header value that authenticates them. */
export async function signedIn(role: PersonRole, label?: string): Promise<Person & { cookie: string }> {
  const person = await createPerson(role, label);
  const answer = await signIn(person.email, person.password);
  if (!answer.cookie) throw new Error(`sign-in failed (${answer.status}): ${JSON.stringify(answer.body)}`);
  return { ...person, cookie: answer.cookie };
}
