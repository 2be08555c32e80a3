import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AppShell } from "@/components/app-shell";
import { RecordView } from "@/components/record/record-view";
import type { ReviewDetail } from "@/components/record/types";
import { requireUser } from "@/lib/auth/session";
import { reviewKeys } from "@/lib/client/query-keys";
import { getReview } from "@/lib/reviews/detail";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Props {
  params: Promise<{ id: string }>;
}

export const metadata: Metadata = { title: "Review record · Review Console" };

/** The record as GET /api/v1/reviews/{id} answers it, so the browser's refreshes find the same shape. */
async function loadDetail(id: string): Promise<ReviewDetail | null> {
  if (!UUID.test(id)) return null;
  const record = await getReview(id);
  if (!record) return null;
  let message: unknown = null;
  try {
    message = JSON.parse(record.messageText);
  } catch {
    message = null;
  }
  return { ...record, message };
}

export default async function ReviewRecordPage({ params }: Props) {
  const { id } = await params;
  const user = await requireUser("reviews.read", `/reviews/${encodeURIComponent(id)}`);
  const record = await loadDetail(id);
  if (!record) notFound();

  // A QueryClient per request; the browser's client picks the record up without a second fetch.
  const queryClient = new QueryClient();
  queryClient.setQueryData(reviewKeys.detail(id), record);

  return (
    <AppShell user={user} current="reviews">
      <HydrationBoundary state={dehydrate(queryClient)}>
        <RecordView id={id} role={user.role} />
      </HydrationBoundary>
    </AppShell>
  );
}
