import type { ReactNode } from "react";
import { AppShell } from "@/components/app-shell";
import { requireUser } from "@/lib/auth";

// As in app/audit: the permission check lives here, outside loading.tsx's Suspense boundary, so
// a refusal is a real 403 and a signed-out visit a real redirect. Each page checks again with its
// own path (the session lookup is cached per request): a layout is not re-rendered on every
// navigation.
export default async function OperationsLayout({ children }: { children: ReactNode }) {
  const user = await requireUser("operations.read", "/operations");
  return (
    <AppShell user={user} current="operations">
      {children}
    </AppShell>
  );
}
