import { AppShell } from "@/components/app-shell";
import { PageSkeleton } from "@/components/ui/page-skeleton";

// Shown while a page under /reviews renders on the server: the same frame, so nothing jumps.
export default function Loading() {
  return (
    <AppShell user={null}>
      <PageSkeleton label="Loading the queue…" />
    </AppShell>
  );
}
