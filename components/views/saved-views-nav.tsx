import { dehydrate, HydrationBoundary, noop, QueryClient } from "@tanstack/react-query";
import { Suspense } from "react";
import { listViewsOf } from "@/lib/views";
import { savedViewsOptions } from "./queries";
import { ViewsMenu } from "./views-menu";

/**
 * The navigation's saved views, read here with the page (no HTTP hop) and handed to the
 * browser's query cache, so the first HTML already has them. Not read, the menu asks the API.
 */
export async function SavedViewsNav({ personId }: { personId: string }) {
  const queryClient = new QueryClient();
  await queryClient
    .prefetchQuery({ ...savedViewsOptions(), queryFn: async () => ({ views: await listViewsOf(personId) }) })
    .catch(noop);
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      {/* The menu reads the URL (which view is current); the boundary keeps that out of a static render. */}
      <Suspense fallback={<span className="rc-visually-hidden">Views</span>}>
        <ViewsMenu />
      </Suspense>
    </HydrationBoundary>
  );
}
