import type { ReactNode } from "react";
import { AdminNav } from "@/components/admin/admin-nav";
import { AppShell } from "@/components/app-shell";
import { requireUser } from "@/lib/auth";

// As in app/audit: the permission check lives here, so a signed-out visit is a real redirect to
// /login and any role but admin gets the app's 403 (app/forbidden.tsx), recorded. The page
// checks again (the session lookup is cached per request).
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const user = await requireUser("users.manage", "/admin");
  return (
    <AppShell user={user} current="admin">
      <AdminNav />
      {children}
    </AppShell>
  );
}
