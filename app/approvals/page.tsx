import type { Metadata } from "next";
import styles from "@/components/approvals/approvals.module.css";
import { ApprovalsView } from "@/components/approvals/approvals-view";
import { PoliciesSection } from "@/components/approvals/policies-section";
import { can } from "@/lib/access/client";
import { requireUser } from "@/lib/auth";

export const metadata: Metadata = { title: "Approvals · Review Console" };

/** Decisions that wait for a second person (docs/decisions/0031-four-eyes-approvals.md); admins set the policies. */
export default async function ApprovalsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requireUser("reviews.read", "/approvals");
  // `request`: where a held bulk operation lands (its approval request); `already`: it was a duplicate.
  const { request, already } = await searchParams;
  return (
    <div className={styles.page}>
      <h1 className={styles.title}>Approvals</h1>
      <p className={styles.lead}>
        Some decisions wait for a second person: whoever asked cannot approve their own request, and approving runs the
        decision exactly as it was asked, once. A request whose record changed meanwhile fails; nothing runs.
      </p>
      <ApprovalsView
        viewerLabel={`user:${user.email}`}
        request={typeof request === "string" ? request : undefined}
        already={already === "1"}
      />
      {can(user.role, "users.manage") ? <PoliciesSection /> : null}
    </div>
  );
}
