import Link from "next/link";
import type { Role } from "@/lib/access/client";
import { unfinishedCount } from "@/lib/operations/client";
import type { OperationView } from "@/lib/operations/client";
import { buttonClassName } from "@/components/ui/button";
import { allowedOperationActions, formatCount } from "./model";
import { newOperationHref } from "./selection-params";

/**
 * On an ended operation: a new operation over what it did not finish, the same action pre-chosen.
 * Nothing is sent from here: the link opens the new-operation form, whose operation is frozen,
 * dry-run and confirmed like any other (lib/operations/start-again.ts).
 */
export function StartAgain({ operation, role }: { operation: OperationView; role: Role }) {
  const left = unfinishedCount(operation.progress.byState);
  if (left === 0 || !allowedOperationActions(role).includes(operation.action)) return null;
  return (
    <p>
      <Link
        className={buttonClassName("default")}
        href={newOperationHref(operation.action, { type: "unfinished", operationId: operation.id })}
        prefetch={false}
      >
        Start again on the {formatCount(left)} {left === 1 ? "record" : "records"} it did not finish
      </Link>
    </p>
  );
}
