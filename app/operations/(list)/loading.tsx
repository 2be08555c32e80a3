import { PageSkeleton } from "@/components/ui/page-skeleton";

// Inside the shell of ./layout.tsx, which is already on screen.
export default function Loading() {
  return <PageSkeleton label="Loading operations…" columns={6} />;
}
