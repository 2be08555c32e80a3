import { dehydrate, HydrationBoundary, noop, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import { CheckpointStatus } from "@/components/audit/checkpoint-status";
import { isWindow, type Overview } from "@/components/overview/model";
import { OverviewView } from "@/components/overview/overview-view";
import { overviewOptions } from "@/components/overview/queries";
import { latestStoredCheckpoint } from "@/lib/audit";
import { requireUser } from "@/lib/auth";
import { log } from "@/lib/log";
import { overview } from "@/lib/overview";

export const metadata: Metadata = { title: "Overview · Review Console" };

/**
 * The overview (inside the shell of ./layout.tsx). Its figures are read here, straight from the
 * database, and handed to the browser's query cache under the key the client asks for, so the
 * first paint has them; the browser refreshes them. The decision log's latest signed checkpoint
 * is read here too, as on the decision log page: a hint every reader of the overview may see (it
 * names an entry number and a key id, no record).
 */
export default async function OverviewPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requireUser("reviews.read", "/overview");
  const requested = (await searchParams).window;
  const window = typeof requested === "string" && isWindow(requested) ? requested : "24h";
  const queryClient = new QueryClient();
  await queryClient
    .prefetchQuery({
      ...overviewOptions(window),
      queryFn: (): Promise<Overview> => overview({ window }, new Date(), user.grants),
    })
    .catch(noop);
  // The page stays usable without it (e.g. a runtime role not yet granted the table).
  const checkpoint = await latestStoredCheckpoint().catch((error: unknown) => {
    log.error({ err: error }, "reading the latest decision-log checkpoint failed");
    return "unavailable" as const;
  });
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <OverviewView checkpoint={<CheckpointStatus checkpoint={checkpoint} />} />
    </HydrationBoundary>
  );
}
