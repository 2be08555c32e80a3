"use client";

import { PageError } from "@/components/ui/page-error";

// Unexpected failures while rendering a page under /operations (inside its layout's shell).
export default function OperationsError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <PageError error={error} retry={retry} title="This page could not be shown">
      Something failed on the server while preparing it. Nothing was changed; operations keep running on their own. Try
      again; if it keeps failing, check the server log.
    </PageError>
  );
}
