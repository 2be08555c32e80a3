import type { ReactNode } from "react";
import { AppShell } from "@/components/app-shell";
import { requireUser } from "@/lib/auth";

// As in app/audit: the permission check lives here, outside loading.tsx's Suspense boundary, so
// a refusal is a real 403 and a signed-out visit a real redirect. The page checks again.
export default async function OverviewLayout({ children }: { children: ReactNode }) {
  const user = await requireUser("reviews.read", "/overview");
  return (
    <AppShell user={user} current="overview">
      {children}
    </AppShell>
  );
}
