import type { ReactNode } from "react";
import { AppShell } from "@/components/app-shell";
import { requireUser } from "@/lib/auth";

// The permission check lives here, outside loading.tsx's Suspense boundary, so a refusal is a
// real 403 (forbidden()) and a signed-out visit a real redirect, not a streamed 200. The page
// checks again (the session lookup is cached per request): a layout is not re-rendered on every
// navigation, so it must not be the only guard.
export default async function AuditLayout({ children }: { children: ReactNode }) {
  const user = await requireUser("audit.read", "/audit");
  return (
    <AppShell user={user} current="audit">
      {children}
    </AppShell>
  );
}
