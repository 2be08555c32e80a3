import { dehydrate, HydrationBoundary, noop, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import { AppShell } from "@/components/app-shell";
import type { QueuePage } from "@/components/queue/model";
import { QUEUE_PAGE_SIZE, queueListOptions } from "@/components/queue/queries";
import { fromPageParams, readQueueState } from "@/components/queue/queue-params";
import { ReviewQueue } from "@/components/queue/review-queue";
import { requireUser } from "@/lib/auth";
import { recordScope } from "@/lib/access";
import { listReviews, reviewListQuerySchema } from "@/lib/reviews";

export const metadata: Metadata = { title: "Queue · Review Console" };

/**
 * The request's time, the clock the records' ages start from (the browser keeps it ticking).
 * A server component renders once per request, so reading the clock here is not a re-render hazard.
 */
function requestTime(): number {
  return Date.now();
}

/**
 * The queue. The first page of records is read here, straight from the database (no HTTP hop),
 * and handed to the browser's query cache under the key the client asks for, so the first
 * paint already has rows. The counts load in the browser and never hold the table back.
 */
export default async function ReviewsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requireUser("reviews.read", "/reviews");
  const state = readQueueState(fromPageParams(await searchParams));
  const queryClient = new QueryClient();
  if (!state.grouped) {
    const query = reviewListQuerySchema.safeParse({
      ...state.filters,
      sort: state.sort,
      limit: String(QUEUE_PAGE_SIZE),
    });
    // Filters the API would refuse are left to the browser, which shows the API's message.
    if (query.success) {
      await queryClient
        .infiniteQuery({
          ...queueListOptions(state.filters, state.sort),
          // `assignee=me` ("Mine") is the signed-in person, as the API resolves it.
          // The records of the person's domains only (ADR 0030), as the API answers them.
          queryFn: async (): Promise<QueuePage> =>
            listReviews(
              { ...query.data, assigneeId: state.mine ? user.id : undefined },
              await recordScope(user.grants),
            ),
        })
        .catch(noop);
    }
  }
  return (
    <AppShell user={user} current="reviews">
      <HydrationBoundary state={dehydrate(queryClient)}>
        <ReviewQueue initialNow={requestTime()} />
      </HydrationBoundary>
    </AppShell>
  );
}
