"use client";

import { Choice } from "@/components/ui/field";
import type { ParamPatch } from "@/components/ui/use-url-params";

/** "Mine": only the records assigned to the signed-in person (`assignee=me`, ADR 0028). Applies at once. */
export function MineToggle({ mine, setParams }: { mine: boolean; setParams: (patch: ParamPatch) => void }) {
  return (
    <Choice
      type="checkbox"
      name="assignee"
      label="Mine (assigned to me)"
      checked={mine}
      onChange={(event) => setParams({ assignee: event.target.checked ? "me" : null })}
    />
  );
}
