"use client";

import { PageError } from "@/components/ui/page-error";

// Unexpected failures while rendering the decision log page (inside its layout's shell).
export default function AuditError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <PageError error={error} retry={retry} title="The decision log could not be shown" backLabel="Go to the queue">
      Something failed on the server while preparing it. Try again; if it keeps failing, check the server log.
    </PageError>
  );
}
