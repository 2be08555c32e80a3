import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AppShell } from "@/components/app-shell";
import { RecordView } from "@/components/record/record-view";
import type { ReviewDetail } from "@/components/record/types";
import { requireUser } from "@/lib/auth/session";
import { reviewKeys } from "@/lib/client/query-keys";
import { isUuid } from "@/lib/domain/ids";
import { getReview } from "@/lib/reviews/detail";
import { withParsedMessage } from "@/lib/reviews/message-text";

interface Props {
  params: Promise<{ id: string }>;
}

export const metadata: Metadata = { title: "Review record · Review Console" };

/** The record as GET /api/v1/reviews/{id} answers it, so the browser's refreshes find the same shape. */
async function loadDetail(id: string): Promise<ReviewDetail | null> {
  if (!isUuid(id)) return null;
  const record = await getReview(id);
  return record && withParsedMessage(record);
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
        <RecordView id={id} role={user.role} userId={user.id} />
      </HydrationBoundary>
    </AppShell>
  );
}
