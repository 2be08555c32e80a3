"use client";

import { PageError } from "@/components/ui/page-error";

// Unexpected failures while rendering /admin (inside its layout's shell).
export default function AdminError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <PageError error={error} retry={retry} title="This page could not be shown">
      Something failed on the server while preparing it. Nothing was changed. Try again; if it keeps failing, check the
      server log.
    </PageError>
  );
}
