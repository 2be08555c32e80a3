import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "./fixtures";

// Signing in and out in a real browser against `next start`. The UI sign-ins of this file share
// one client address (127.0.0.1) and so one login rate limit (5 per minute): keep them few.

test("a wrong password shows an error and keeps you on /login (keyboard only)", async ({ page, createPerson }) => {
  const person = await createPerson("owner");
  await page.goto("/login");
  await expect(page.getByRole("heading", { name: "Review Console" })).toBeVisible();
  // The button is enabled once the page is interactive (before that, Enter does nothing).
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  // The email field has focus on arrival; Tab reaches the password, Enter submits.
  await expect(page.getByLabel("Email")).toBeFocused();
  await page.keyboard.type(person.email);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Password")).toBeFocused();
  await page.keyboard.type("not-the-password");
  await page.keyboard.press("Enter");

  // (Next adds a route announcer, also an alert: pick ours by its text.)
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();
  await expect(page.getByLabel("Password")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Password")).toBeFocused();
  await expect(page).toHaveURL(/\/login$/);
  const cookies = await page.context().cookies();
  expect(cookies.filter((c) => c.name.includes("session_token"))).toEqual([]);
});

test("the login page passes an automated accessibility check", async ({ page }) => {
  await page.goto("/login");
  await expect(page.getByLabel("Email")).toBeVisible();
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
});

test("the right password lands an owner on the overview with an HttpOnly session cookie", async ({
  page,
  createPerson,
}) => {
  const person = await createPerson("owner");
  await page.goto("/login");
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/overview$/);

  const session = (await page.context().cookies()).find((c) => c.name === "review-console.session_token");
  expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", secure: false, path: "/" });
  // HttpOnly: scripts on the page cannot read it.
  expect(await page.evaluate(() => document.cookie)).not.toContain("session_token");

  // The browser's own same-origin POST passes the cross-site rule and reaches authorization
  // (an owner may not report records: 403 forbidden, not 403 cross-site).
  const answer = await page.evaluate(async () => {
    const response = await fetch("/api/v1/reviews", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    return { status: response.status, body: await response.json() };
  });
  expect(answer).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
});

test("sign out ends the session and returns to /login", async ({ page, loginAs, request, baseURL }) => {
  const person = await loginAs("support");
  await page.goto("/login");
  await expect(page.getByText(`You are signed in as ${person.email}`)).toBeVisible();
  const session = (await page.context().cookies()).find((c) => c.name === "review-console.session_token");
  expect(session).toBeDefined();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByLabel("Email")).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
  expect((await page.context().cookies()).filter((c) => c.name.includes("session_token"))).toEqual([]);

  // The session is gone on the server too: the old cookie no longer opens the API.
  const replay = await request.get(`${baseURL}/api/v1/reviews`, {
    headers: { cookie: `${session!.name}=${session!.value}` },
  });
  expect(replay.status()).toBe(401);
});

test("a signed-out visit to /reviews goes to /login and back after signing in", async ({ page, createPerson }) => {
  await page.goto("/reviews");
  await expect(page).toHaveURL(/\/login\?next=%2Freviews$/);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  const person = await createPerson("auditor");
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByLabel("Password").press("Enter");
  await expect(page).toHaveURL(/\/reviews$/);
});

test("a page the role may not open shows the forbidden page", async ({ page, loginAs }) => {
  await loginAs("support"); // support may not read the decision log
  await page.goto("/audit");
  // (The status is 403 unless the page streams: /audit has a loading.tsx, so its 200 is sent
  // before the page decides.)
  await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
  await expect(page.getByText("The attempt has been recorded in the decision log.")).toBeVisible();
});
