import AxeBuilder from "@axe-core/playwright";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { type Credentials, expect, type TestServer, test } from "./fixtures";

// The admin page (/admin, docs/decisions/0011-people-and-tokens.md) in a real browser against
// `next start`: tokens created (shown once), used and revoked; people disabled and given another
// role while they have a page open in a browser of their own; and axe on the page.

let address = 0;
/** A client address (RFC 2544 benchmarking range) per API sign-in: a login budget of its own. */
const nextAddress = () => `198.18.${Math.floor(++address / 250) % 250}.${(address % 250) + 1}`;

/** Signs `person` in inside `context` (a browser of their own) through the API. */
async function signInElsewhere(context: BrowserContext, server: TestServer, person: Credentials) {
  return context.request.post(`${server.baseURL}/api/auth/sign-in/email`, {
    data: { email: person.email, password: person.password },
    headers: { origin: server.baseURL, "x-forwarded-for": nextAddress() },
  });
}

/** A second browser with `person` signed in and the queue open. */
async function openSessionOf(browser: Browser, server: TestServer, person: Credentials): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.baseURL });
  const answer = await signInElsewhere(context, server, person);
  expect(answer.status(), await answer.text()).toBe(200);
  const page = await context.newPage();
  await page.goto("/reviews");
  await expect(page.getByRole("heading", { level: 1, name: "Review queue" })).toBeVisible();
  return page;
}

const tag = () => Math.random().toString(36).slice(2, 8);

function personRow(page: Page, email: string) {
  return page.getByRole("region", { name: "People" }).getByRole("row").filter({ hasText: email });
}

async function giveReason(page: Page, dialogName: string, reason: string, submit: string) {
  const dialog = page.getByRole("dialog", { name: dialogName });
  await dialog.getByLabel("Reason (required)").fill(reason);
  await dialog.getByRole("button", { name: submit }).click();
  await expect(dialog).toBeHidden();
}

test("an admin creates a token, which works, then revokes it, which makes it a 401", async ({
  page,
  loginAs,
  playwright,
  server,
}) => {
  await loginAs("admin");
  await page.goto("/reviews");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Administration" })).toBeVisible();

  const name = `e2e-worker-${tag()}`;
  const tokens = page.getByRole("region", { name: "API tokens" });
  await tokens.getByRole("button", { name: "Create a token…" }).click();
  const create = page.getByRole("dialog", { name: "Create a token" });
  await create.getByLabel("Name").fill(name);
  await create.getByLabel("Role").selectOption("owner");
  await create.getByLabel("Expires").selectOption("30");
  await create.getByLabel("Reason (required)").fill("the e2e worker reads the queue");
  await create.getByRole("button", { name: "Create the token" }).click();

  const shown = page.getByRole("dialog", { name: `Token ${name} created` });
  const secret = await shown.getByLabel(`Token ${name}`).inputValue();
  expect(secret).toMatch(/^rct_[A-Za-z0-9_-]{43}$/);
  await expect(shown).toContainText("It is shown only now");
  await shown.getByRole("button", { name: "Done" }).click();
  await expect(tokens.getByRole("status")).toHaveText(`Token ${name} created.`);
  const row = tokens.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText("active");
  await expect(row).toContainText("never"); // not used yet

  // A program with the token: no cookies, only the header.
  const program = await playwright.request.newContext({ baseURL: server.baseURL });
  const bearer = { authorization: `Bearer ${secret}` };
  expect((await program.get("/api/v1/reviews?limit=1", { headers: bearer })).status()).toBe(200);
  await page.reload();
  await expect(row.getByRole("cell").nth(6)).not.toHaveText("never");

  await row.getByRole("button", { name: `Revoke the token ${name}` }).click();
  await giveReason(page, `Revoke the token ${name}`, "the worker moved to another token", "Revoke");
  await expect(tokens.getByRole("status")).toHaveText(`Token ${name} revoked.`);
  await expect(row).toContainText("revoked");
  const refused = await program.get("/api/v1/reviews?limit=1", { headers: bearer });
  expect(refused.status()).toBe(401);
  await program.dispose();
});

test("disabling a person ends their open session: their next page load goes to /login", async ({
  page,
  browser,
  loginAs,
  createPerson,
  server,
}) => {
  await loginAs("admin");
  const person = await createPerson("owner");
  const theirs = await openSessionOf(browser, server, person);

  await page.goto("/admin");
  await personRow(page, person.email)
    .getByRole("button", { name: `Disable ${person.email}` })
    .click();
  await giveReason(page, `Disable ${person.email}`, "left the team", "Disable");
  const people = page.getByRole("region", { name: "People" });
  await expect(people.getByRole("status")).toHaveText(`${person.email} is disabled. 1 open session(s) ended.`);
  await expect(personRow(page, person.email)).toContainText("disabled");
  await expect(personRow(page, person.email)).toContainText("left the team");

  await theirs.reload();
  await expect(theirs).toHaveURL(/\/login\?next=%2Freviews/);
  const again = await signInElsewhere(theirs.context(), server, person);
  expect(again.status()).toBe(403);
  await theirs.context().close();
});

test("changing a person's role ends their session; they come back with the new role", async ({
  page,
  browser,
  loginAs,
  createPerson,
  server,
}) => {
  await loginAs("admin");
  const person = await createPerson("support");
  const theirs = await openSessionOf(browser, server, person);
  const nav = theirs.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Decision log" })).toHaveCount(0);

  await page.goto("/admin");
  await personRow(page, person.email)
    .getByRole("button", { name: `Change the role of ${person.email}` })
    .click();
  const dialog = page.getByRole("dialog", { name: `Change the role of ${person.email}` });
  await dialog.getByLabel("New role").selectOption("owner");
  await dialog.getByLabel("Reason (required)").fill("takes over the invoices queue");
  await dialog.getByRole("button", { name: "Change the role" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("region", { name: "People" }).getByRole("status")).toHaveText(
    `${person.email} is now owner. 1 open session(s) ended.`,
  );
  await expect(personRow(page, person.email).getByRole("cell").nth(1)).toHaveText("owner");

  await theirs.reload();
  await expect(theirs).toHaveURL(/\/login/);
  expect((await signInElsewhere(theirs.context(), server, person)).status()).toBe(200);
  await theirs.goto("/reviews");
  await expect(theirs.getByTitle("Your role")).toHaveText("owner");
  await expect(nav.getByRole("link", { name: "Decision log" })).toBeVisible();
  await theirs.context().close();
});

test("only admins see and open /admin: others get the 403 page", async ({ page, loginAs }) => {
  await loginAs("owner");
  await page.goto("/reviews");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveCount(0);
  const response = await page.goto("/admin");
  expect(response?.status()).toBe(403);
  await expect(page.getByRole("heading", { level: 1, name: "Not allowed" })).toBeVisible();
});

test("on a phone the People table keeps each email on one line and scrolls inside its frame", async ({
  page,
  loginAs,
  createPerson,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const person = await createPerson("support");
  await loginAs("admin");
  await page.goto("/admin");
  const cell = personRow(page, person.email).getByRole("cell", { name: person.email, exact: true });
  await expect(cell).toBeVisible();
  // One line box for the whole address: table cells may break anywhere, an email must not.
  const lines = await cell.evaluate((td) => {
    const range = document.createRange();
    range.selectNodeContents(td);
    return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
  });
  expect(lines).toBe(1);
  const pageWidth = await page.evaluate(() => document.scrollingElement!.scrollWidth);
  expect(pageWidth).toBeLessThanOrEqual(390);
});

/** Serious and critical violations, one line each with the elements they were found on. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

test("the admin page, its dialogs and the set-password page have no serious or critical accessibility violation", async ({
  page,
  loginAs,
  createPerson,
}) => {
  await loginAs("admin");
  const person = await createPerson("auditor");
  // Content in both tables: a token, a disabled person, an invited one.
  expect(
    (
      await page.request.post("/api/v1/tokens", {
        data: { name: `axe-${tag()}`, role: "consumer", expiresInDays: 7, reason: "axe check" },
      })
    ).status(),
  ).toBe(201);
  await page.goto("/admin");
  await personRow(page, person.email)
    .getByRole("button", { name: `Disable ${person.email}` })
    .click();
  await giveReason(page, `Disable ${person.email}`, "axe check", "Disable");

  const invitee = `axe-${tag()}@e2e.local`;
  await page.getByRole("button", { name: "Invite a person…" }).click();
  const invite = page.getByRole("dialog", { name: "Invite a person" });
  await invite.getByLabel("Email").fill(invitee);
  await invite.getByLabel("Role").selectOption("support");
  await invite.getByLabel("Reason (required)").fill("joins support");
  expect(await seriousViolations(page)).toEqual([]);
  await invite.getByRole("button", { name: "Invite" }).click();
  const linkDialog = page.getByRole("dialog", { name: `${invitee} is invited` });
  const link = await linkDialog.getByLabel("Link to set a password").inputValue();
  expect(new URL(link).pathname).toBe("/set-password");
  expect(await seriousViolations(page)).toEqual([]);
  await linkDialog.getByRole("button", { name: "Done" }).click();
  await expect(personRow(page, invitee)).toContainText("no password yet");
  await expect(page.getByRole("region", { name: "API tokens" }).getByRole("row")).not.toHaveCount(0);
  expect(await seriousViolations(page)).toEqual([]);

  // The invited person opens the link in a browser of their own and sets a password.
  const theirs = await page.context().browser()!.newContext();
  const setPage = await theirs.newPage();
  await setPage.goto(link);
  await expect(setPage.getByRole("heading", { level: 1, name: "Set your password" })).toBeVisible();
  await expect(setPage).toHaveURL(/\/set-password$/);
  expect(await seriousViolations(setPage)).toEqual([]);
  await setPage.getByLabel("New password").fill("a good long password 7");
  await setPage.getByLabel("The same password again").fill("a good long password 7");
  await setPage.getByRole("button", { name: "Set the password" }).click();
  await expect(setPage.getByText("Your password is set.")).toBeVisible();
  await theirs.close();
  await page.reload();
  await expect(personRow(page, invitee)).toContainText("active");
});
