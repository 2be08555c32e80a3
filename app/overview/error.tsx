"use client";

import { PageError } from "@/components/ui/page-error";

// Unexpected failures while rendering the overview (inside its layout's shell).
export default function OverviewError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <PageError error={error} retry={retry} title="The overview could not be shown" backLabel="Go to the queue">
      Something failed on the server while preparing it. Try again; if it keeps failing, check the server log.
    </PageError>
  );
}
