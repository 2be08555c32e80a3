import type { ReactNode } from "react";
import { AppShell } from "@/components/app-shell";
import { requireUser } from "@/lib/auth";

// Every signed-in person may read the API's reference (the document itself is public at
// /api/openapi.json); a signed-out visit is a real redirect to /login, as in app/audit.
export default async function ApiReferenceLayout({ children }: { children: ReactNode }) {
  const user = await requireUser(undefined, "/api-reference");
  return (
    <AppShell user={user} current="api-reference">
      {children}
    </AppShell>
  );
}
