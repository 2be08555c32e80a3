import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

// Domains on the admin page (docs/decisions/0029-domains.md) in a real browser against `next
// start`: an admin adds a domain, grants a person owner of it, and the person then sees the
// grant in their header, without signing in again (grants are read per request). axe on the page.

const tag = () => Math.random().toString(36).slice(2, 8);

function personRow(page: Page, email: string) {
  return page.getByRole("region", { name: "People" }).getByRole("row").filter({ hasText: email });
}

test("an admin adds a domain and grants a person owner of it; the person's header shows owner · the domain", async ({
  page,
  browser,
  loginAs,
  createPerson,
  server,
}) => {
  await loginAs("admin");
  const person = await createPerson("support");
  const name = `pay-${tag()}`;

  await page.goto("/admin");
  const domains = page.getByRole("region", { name: "Domains" });
  await domains.getByRole("button", { name: "Add a domain…" }).click();
  const add = page.getByRole("dialog", { name: "Add a domain" });
  await add.getByLabel("Name").fill(name);
  await add.getByLabel("Kinds").fill(`card-${name}.charge, invoice-${name}.*`);
  await add.getByLabel("Reason (required)").fill("the payments team owns its queue");
  await add.getByRole("button", { name: "Add the domain" }).click();
  await expect(add).toBeHidden();
  await expect(domains.getByRole("status")).toHaveText(`Domain ${name} added.`);
  const row = domains.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText(`card-${name}.charge, invoice-${name}.*`);

  // Its kinds changed.
  await row.getByRole("button", { name: `Change the domain ${name}` }).click();
  const edit = page.getByRole("dialog", { name: `Change the domain ${name}` });
  await edit.getByLabel("Kinds").fill(`card-${name}.*`);
  await edit.getByLabel("Reason (required)").fill("every card kind");
  await edit.getByRole("button", { name: "Save the kinds" }).click();
  await expect(edit).toBeHidden();
  await expect(row).toContainText(`card-${name}.*`);

  // The person, signed in elsewhere, holds support everywhere.
  const context = await browser.newContext({ baseURL: server.baseURL });
  const signIn = await context.request.post(`${server.baseURL}/api/auth/sign-in/email`, {
    data: { email: person.email, password: person.password },
    headers: { origin: server.baseURL, "x-forwarded-for": `198.19.${Math.floor(Math.random() * 250)}.7` },
  });
  expect(signIn.status(), await signIn.text()).toBe(200);
  const theirs = await context.newPage();
  await theirs.goto("/reviews");
  await expect(theirs.getByTitle("Your role")).toHaveText("support");

  await personRow(page, person.email)
    .getByRole("button", { name: `Grant ${person.email} a role` })
    .click();
  const grant = page.getByRole("dialog", { name: `Grant ${person.email} a role` });
  await grant.getByLabel("Role").selectOption("owner");
  await grant.getByLabel("Where").selectOption(name);
  await grant.getByLabel("Reason (required)").fill("owns payments now");
  await grant.getByRole("button", { name: "Grant", exact: true }).click();
  await expect(grant).toBeHidden();
  await expect(page.getByRole("region", { name: "People" }).getByRole("status")).toHaveText(
    `${person.email} now holds owner · ${name}.`,
  );
  await expect(page.getByRole("list", { name: `Grants of ${person.email}` })).toContainText(`owner · ${name}`);
  await expect(row).toContainText(`${person.email} (owner)`);

  // No new sign-in: the next request reads the grants.
  await theirs.reload();
  await expect(theirs.getByTitle("Your roles, by domain")).toHaveText(`support, owner · ${name}`);
  await context.close();

  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations, JSON.stringify(axe.violations, null, 2)).toEqual([]);
});
