import { actionRequestSchema, needsCheckConfirmation, type ActionRequest } from "@/lib/reviews/client";
import type { PayloadCheck, suppliedEnvelope } from "./correction";
import type { ActionDraft } from "./draft";
import { type FieldErrors, groupIssues } from "./field-errors";
import { UTC, wallClockToIso, zoneLabel } from "@/lib/time-zone";

type SuppliedEnvelope = ReturnType<typeof suppliedEnvelope>;

// The request an action's form sends, built from what the person typed: checked in words a
// person reads first, then against the API's own schema, so nothing is sent that the server
// would refuse for its shape (it checks again). No React here: the form and its tests share it.

export function buildActionRequest(
  draft: ActionDraft,
  correction: { check: PayloadCheck | null; envelope: SuppliedEnvelope | null },
  { now = Date.now(), zone = UTC }: { now?: number; zone?: string } = {},
): { body: ActionRequest } | { errors: FieldErrors } {
  const { action } = draft;
  const body: Record<string, unknown> = { action, expectedVersion: draft.base.version, reason: draft.reason };
  if (needsCheckConfirmation(action)) body.checkDone = draft.checkDone;
  const found: FieldErrors = {};
  if (action === "replay" && draft.runMode === "at") {
    // Typed in the person's zone, as every time on the page (lib/time-zone.ts).
    const iso = wallClockToIso(draft.runAtLocal, zone);
    if (!iso) found.runAt = [`choose the date and time of the replay (${zoneLabel(zone)})`];
    else if (Date.parse(iso) < now - 60_000) found.runAt = ["this time has passed: choose a later one, or Now"];
    else body.runAt = iso;
  }
  if (action === "confirm-applied" || action === "confirm-not-applied") {
    const ref = draft.providerRef.trim();
    if (ref) body.providerRef = ref;
  }
  if (action === "correct-and-replay") {
    const { check, envelope } = correction;
    if (check?.state !== "valid" || !envelope) {
      found.payload = ["go back to the editor: the payload is not valid"];
    } else {
      body.payload = check.payload;
      if (Object.keys(envelope.values).length > 0) body.envelope = envelope.values;
    }
  }
  const parsed = actionRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
    for (const [field, messages] of Object.entries(groupIssues(issues))) {
      found[field] = [...(found[field] ?? []), ...messages];
    }
  }
  if (Object.keys(found).length > 0 || !parsed.success) return { errors: found };
  return { body: parsed.data };
}
