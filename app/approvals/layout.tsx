import type { ReactNode } from "react";
import { AppShell } from "@/components/app-shell";
import { requireUser } from "@/lib/auth";

// As in app/admin: the permission check lives here (a signed-out visit redirects to /login).
export default async function ApprovalsLayout({ children }: { children: ReactNode }) {
  const user = await requireUser("reviews.read", "/approvals");
  return (
    <AppShell user={user} current="approvals">
      {children}
    </AppShell>
  );
}
