import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AppShell } from "@/components/app-shell";
import { RecordView } from "@/components/record/record-view";
import type { ReviewDetail } from "@/components/record/types";
import { requireUser } from "@/lib/auth";
import { reviewKeys } from "@/lib/client/query-keys";
import { isUuid } from "@/lib/domain/ids";
import type { Grant } from "@/lib/access/client";
import { mayRead } from "@/lib/access";
import { getReview } from "@/lib/actions";
import { withParsedMessage } from "@/lib/reviews";

interface Props {
  params: Promise<{ id: string }>;
}

export const metadata: Metadata = { title: "Review record · Review Console" };

/** The record as GET /api/v1/reviews/{id} answers it, so the browser's refreshes find the same shape. */
async function loadDetail(id: string, grants: readonly Grant[]): Promise<ReviewDetail | null> {
  if (!isUuid(id)) return null;
  const record = await getReview(id, grants);
  // A record outside the person's domains is not there for them: the same not-found page (ADR 0030).
  if (!record || !mayRead(grants, record.domain)) return null;
  return withParsedMessage(record);
}

export default async function ReviewRecordPage({ params }: Props) {
  const { id } = await params;
  const user = await requireUser("reviews.read", `/reviews/${encodeURIComponent(id)}`);
  const record = await loadDetail(id, user.grants);
  if (!record) notFound();

  // A QueryClient per request; the browser's client picks the record up without a second fetch.
  const queryClient = new QueryClient();
  queryClient.setQueryData(reviewKeys.detail(id), record);

  return (
    <AppShell user={user} current="reviews">
      <HydrationBoundary state={dehydrate(queryClient)}>
        <RecordView id={id} role={user.role} grants={user.grants} userId={user.id} />
      </HydrationBoundary>
    </AppShell>
  );
}
