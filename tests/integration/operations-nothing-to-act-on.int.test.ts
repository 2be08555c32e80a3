/**
 * An operation whose dry run acts on no record is not started: it would end "completed" with 0
 * applied and read as a success. The confirm is a 409 naming what the dry run found; the
 * operation stays planned and can be aborted.
 */
import { describe, expect, it } from "vitest";
import { setupTestDatabase } from "../support/database";
import { envelope, newTag, operationsApi, reportGaps } from "../support/operations";

setupTestDatabase();
const api = operationsApi();

describe("confirming an operation with nothing to act on", () => {
  it("is refused with a 409 naming the dry run's verdicts; a note, which acts on every record, starts", async () => {
    const tag = newTag();
    const kind = `ops.none.${tag}`;
    // Effect-result-unknown records: a replay does not fit them (not-eligible) until someone
    // confirms the provider's side.
    const unknown = await reportGaps(
      [envelope(kind, `inv-${tag}-a`, 1), envelope(kind, `inv-${tag}-b`, 1)],
      `none-${tag}`,
      "effect-result-unknown",
    );
    const created = await api.create({ action: "replay", reason: "try", selection: { type: "ids", ids: unknown } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect((await api.dryRun(id)).status).toBe(200);
    const op = (await api.get(id)).body;
    expect(op.dryRun.counts).toEqual({ "not-eligible": 2 });

    const refused = await api.confirm(id, { expectedVersion: op.version, dryRunAt: op.dryRun.at, checkDone: true });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "nothing-to-act-on",
      message: "the dry run found no record this replay would act on (2 not-eligible); nothing was started",
    });
    expect((await api.get(id)).body.state).toBe("planned");

    // A note acts on every record: it starts.
    const note = await api.create({ action: "note", reason: "seen", selection: { type: "ids", ids: unknown } });
    await api.dryRun(note.body.id);
    const noted = (await api.get(note.body.id)).body;
    const started = await api.confirm(note.body.id, {
      expectedVersion: noted.version,
      dryRunAt: noted.dryRun.at,
      checkDone: true,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
  });
});
