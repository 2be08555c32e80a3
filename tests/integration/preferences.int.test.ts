import { describe, expect, it, vi } from "vitest";
import { GET as getPreferences, PUT as putPreferences } from "@/app/api/v1/me/preferences/route";
import { sessionUser } from "@/lib/auth";
import { signedIn } from "../support/auth";
import { call, tokenFor } from "../support/http";
import { setupTestDatabase, withClient } from "../support/database";

// A person's zone for times (docs/decisions/0043-one-time-zone-rule.md): kept with their account,
// read with their session, written by them only, and only a zone the platform knows.

const database = setupTestDatabase();
vi.setConfig({ testTimeout: 60_000 });

const zoneInDatabase = async (id: string) =>
  withClient(
    database.current.url,
    async (c) => (await c.query("SELECT time_zone FROM users WHERE id = $1", [id])).rows[0]?.time_zone,
  );

describe("GET and PUT /api/v1/me/preferences", () => {
  it("starts at UTC, keeps the zone a person chooses, and their session carries it", async () => {
    const person = await signedIn("support");
    const headers = { cookie: person.cookie };
    expect(await call(getPreferences, { headers })).toEqual({
      status: 200,
      body: { preferences: { timeZone: "UTC" } },
    });

    const put = await call(putPreferences, { headers, body: { timeZone: "America/Los_Angeles" } });
    expect(put).toEqual({ status: 200, body: { preferences: { timeZone: "America/Los_Angeles" } } });
    expect(await call(getPreferences, { headers })).toEqual({
      status: 200,
      body: { preferences: { timeZone: "America/Los_Angeles" } },
    });
    // What every page's shell reads (lib/auth/session.ts): the next page renders in this zone.
    expect((await sessionUser(new Headers(headers)))?.timeZone).toBe("America/Los_Angeles");
    expect(await zoneInDatabase(person.id)).toBe("America/Los_Angeles");

    // Another person's choice is theirs alone.
    const other = await signedIn("owner");
    expect((await call(getPreferences, { headers: { cookie: other.cookie } })).body.preferences.timeZone).toBe("UTC");
  });

  it("refuses a zone the platform does not know, naming the field, and changes nothing", async () => {
    const person = await signedIn("auditor");
    const headers = { cookie: person.cookie };
    await call(putPreferences, { headers, body: { timeZone: "Europe/Berlin" } });
    for (const timeZone of ["Mars/Olympus_Mons", "", "x".repeat(65), 3]) {
      const answer = await call(putPreferences, { headers, body: { timeZone } });
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body.error)).toContain("timeZone");
    }
    expect((await call(putPreferences, { headers, body: {} })).status).toBe(400);
    expect(await zoneInDatabase(person.id)).toBe("Europe/Berlin");
  });

  it("a token has no preferences: 403 person-required", async () => {
    const token = await tokenFor("owner");
    const answer = await call(putPreferences, { token, body: { timeZone: "Europe/Berlin" } });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("person-required");
    expect((await call(getPreferences, { token: await tokenFor("consumer") })).status).toBe(403);
  });
});
