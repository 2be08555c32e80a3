import type { Metadata } from "next";
import { NewOperationForm } from "@/components/operations/new-operation-form";
import styles from "@/components/operations/operations.module.css";
import { readNewOperationParams } from "@/components/operations/selection-params";
import { Topline } from "@/components/ui/topline";
import { requireUser } from "@/lib/auth";
import { recordScope } from "@/lib/access";
import { countSelection, startAgainProblem } from "@/lib/operations";

export const metadata: Metadata = { title: "New operation · Review Console" };

/** The new-operation form; the queue links here with the selection in the query string. */
export default async function NewOperationPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requireUser("operations.read", "/operations/new");
  const raw = await searchParams;
  const read = readNewOperationParams((key) => {
    const value = raw[key];
    return Array.isArray(value) ? value[0] : value;
  });
  // Starting again on a live operation is refused on create; the form says so before.
  const startAgain = read.selection?.type === "unfinished" ? await startAgainProblem(read.selection.operationId) : null;
  const params = startAgain ? { ...read, selection: null, problem: startAgain } : read;
  // The count before anything is created, with the freeze's condition and cap.
  const count = params.selection
    ? await countSelection(params.selection, { id: user.id }, await recordScope(user.grants))
    : null;
  return (
    <div className={styles.page}>
      <Topline parent={{ href: "/operations", label: "Operations" }} current="New" />
      <h1 className={styles.title}>New bulk operation</h1>
      <NewOperationForm params={params} role={user.role} grants={user.grants} count={count} />
    </div>
  );
}
