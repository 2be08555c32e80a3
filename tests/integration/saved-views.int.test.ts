import { describe, expect, it, vi } from "vitest";
import { GET as listViews, POST as saveView } from "@/app/api/v1/views/route";
import { DELETE as deleteView, PUT as changeView } from "@/app/api/v1/views/[viewId]/route";
import { MAX_VIEWS_PER_PERSON } from "@/lib/views";
import { signedIn } from "../support/auth";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// Saved views of the queue (docs/decisions/0047-saved-views.md): a person's filters and sort
// under a name, checked by the queue list's own rules, theirs alone or shared with the team.

const database = setupTestDatabase();
vi.setConfig({ testTimeout: 60_000 });

const viewsInDatabase = async (ownerId: string) =>
  withClient(
    database.current.url,
    async (c) =>
      (await c.query("SELECT name, query, shared FROM saved_views WHERE owner_id = $1 ORDER BY name", [ownerId])).rows,
  );

const as = (person: { cookie: string }) => ({ headers: { cookie: person.cookie } });

describe("/api/v1/views", () => {
  it("saves a view in canonical form, lists it, changes and deletes it", async () => {
    const person = await signedIn("support");
    const saved = await call(saveView, {
      ...as(person),
      body: {
        name: "  Card charges, most tried  ",
        query: "?sort=-attempts&kind=%20card.charge%20&status=resolved,open,open&cursor=abc&limit=20",
      },
    });
    expect(saved.status).toBe(201);
    expect(saved.body.view).toMatchObject({
      name: "Card charges, most tried",
      // Known order, each value once, text trimmed, the page (cursor, limit) dropped.
      query: "status=open,resolved&kind=card.charge&sort=-attempts",
      shared: false,
      mine: true,
      owner: { id: person.id, email: person.email },
    });
    const id = saved.body.view.id as string;

    expect((await call(listViews, as(person))).body.views.map((v: any) => v.id)).toEqual([id]);

    const changed = await call(changeView, {
      ...as(person),
      params: { viewId: id },
      body: { name: "Charges", shared: true, query: "status=all&view=groups" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.view).toMatchObject({ name: "Charges", shared: true, query: "status=all&view=groups" });
    expect(await viewsInDatabase(person.id)).toEqual([
      { name: "Charges", query: "status=all&view=groups", shared: true },
    ]);

    // Only what is given changes.
    const unshared = await call(changeView, { ...as(person), params: { viewId: id }, body: { shared: false } });
    expect(unshared.body.view).toMatchObject({ name: "Charges", shared: false, query: "status=all&view=groups" });

    const deleted = await call(deleteView, { ...as(person), params: { viewId: id } });
    expect(deleted.status).toBe(200);
    expect(deleted.body.view.id).toBe(id);
    expect(await viewsInDatabase(person.id)).toEqual([]);
    expect((await call(deleteView, { ...as(person), params: { viewId: id } })).status).toBe(404);
  });

  it("lists one's own views, then the team's shared ones, never another's private view", async () => {
    const ana = await signedIn("owner", "ana");
    const ben = await signedIn("auditor", "ben");
    const shared = await call(saveView, {
      ...as(ana),
      body: { name: "Gaps", query: "category=sequence-gap", shared: true },
    });
    const secret = await call(saveView, { ...as(ana), body: { name: "Mine", query: "assignee=me" } });
    const own = await call(saveView, { ...as(ben), body: { name: "Zeta", query: "" } });
    expect([shared.status, secret.status, own.status]).toEqual([201, 201, 201]);

    const seen = (await call(listViews, as(ben))).body.views;
    expect(seen.map((v: any) => [v.name, v.mine])).toEqual([
      ["Zeta", true],
      ["Gaps", false],
    ]);
    expect(seen[1].owner).toEqual({ id: ana.id, name: expect.any(String), email: ana.email });
    expect(seen.map((v: any) => v.id)).not.toContain(secret.body.view.id);
  });

  it("refuses a query the queue would not take, naming `query`, and stores nothing", async () => {
    const person = await signedIn("owner");
    const bad = [
      "status=shipped", // not a status
      "sort=-nonsense", // not an order
      "q=x", // the search needs 2 characters
      "colour=red", // not a parameter of the queue
      "status=open&status=resolved", // given twice
      "view=table", // the grouped view is the only other view
      "assignee=somebody",
    ];
    for (const query of bad) {
      const answer = await call(saveView, { ...as(person), body: { name: `bad ${query}`, query } });
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.issues[0].path, query).toBe("query");
      expect(answer.body.error.message, query).toMatch(/^query: /);
    }
    const view = (await call(saveView, { ...as(person), body: { name: "ok", query: "" } })).body.view;
    const change = await call(changeView, {
      ...as(person),
      params: { viewId: view.id },
      body: { query: "limit=x&kind=" },
    });
    expect(change.status).toBe(400);
    expect(change.body.error.issues[0].path).toBe("query");
    expect(await viewsInDatabase(person.id)).toEqual([{ name: "ok", query: "", shared: false }]);
  });

  it("refuses a name twice, an empty or long name, and an empty change, naming the field", async () => {
    const person = await signedIn("support");
    await call(saveView, { ...as(person), body: { name: "Open", query: "" } });
    const twice = await call(saveView, { ...as(person), body: { name: "Open ", query: "kind=a" } });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({ code: "name-taken", issues: [{ path: "name" }] });
    for (const name of ["", "   ", "x".repeat(81)]) {
      const answer = await call(saveView, { ...as(person), body: { name, query: "" } });
      expect(answer.status).toBe(400);
      expect(answer.body.error.issues[0].path).toBe("name");
    }
    const other = (await call(saveView, { ...as(person), body: { name: "Other", query: "" } })).body.view;
    const rename = await call(changeView, { ...as(person), params: { viewId: other.id }, body: { name: "Open" } });
    expect(rename.status).toBe(409);
    expect((await call(changeView, { ...as(person), params: { viewId: other.id }, body: {} })).status).toBe(400);
    expect((await viewsInDatabase(person.id)).map((v) => v.name)).toEqual(["Open", "Other"]);
  });

  it(`keeps at most ${MAX_VIEWS_PER_PERSON} views a person, naming the field beyond`, async () => {
    const person = await signedIn("support");
    await withClient(database.current.url, (c) =>
      c.query(
        `INSERT INTO saved_views (owner_id, name, query) SELECT $1, 'view ' || n, '' FROM generate_series(1, $2) n`,
        [person.id, MAX_VIEWS_PER_PERSON - 1],
      ),
    );
    expect((await call(saveView, { ...as(person), body: { name: "last", query: "" } })).status).toBe(201);
    const beyond = await call(saveView, { ...as(person), body: { name: "one more", query: "" } });
    expect(beyond.status).toBe(409);
    expect(beyond.body.error).toMatchObject({ code: "view-limit", issues: [{ path: "name" }] });
    expect(await viewsInDatabase(person.id)).toHaveLength(MAX_VIEWS_PER_PERSON);
  });

  it("only the owner changes or deletes a view: 403 for a shared one, 404 for a private one", async () => {
    const owner = await signedIn("owner");
    const other = await signedIn("owner");
    const shared = (await call(saveView, { ...as(owner), body: { name: "Team", query: "", shared: true } })).body.view;
    const mine = (await call(saveView, { ...as(owner), body: { name: "Me", query: "" } })).body.view;

    const change = await call(changeView, { ...as(other), params: { viewId: shared.id }, body: { shared: false } });
    expect(change.status).toBe(403);
    expect(change.body.error.code).toBe("not-owner");
    expect((await call(deleteView, { ...as(other), params: { viewId: shared.id } })).body.error.code).toBe("not-owner");
    expect((await call(changeView, { ...as(other), params: { viewId: mine.id }, body: { name: "x" } })).status).toBe(
      404,
    );
    expect((await call(deleteView, { ...as(other), params: { viewId: mine.id } })).status).toBe(404);
    expect((await call(deleteView, { ...as(other), params: { viewId: "not-a-uuid" } })).status).toBe(404);
    expect(await viewsInDatabase(owner.id)).toEqual([
      { name: "Me", query: "", shared: false },
      { name: "Team", query: "", shared: true },
    ]);
  });

  it("a token has no views: 403 person-required", async () => {
    const token = await tokenFor("owner");
    for (const answer of [
      await call(listViews, { token }),
      await call(saveView, { token, body: { name: "x", query: "" } }),
      await call(changeView, { token, params: { viewId: "00000000-0000-4000-8000-000000000000" }, body: {} }),
    ]) {
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe("person-required");
    }
  });
});
