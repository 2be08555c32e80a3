"use client";

import { PageError } from "@/components/ui/page-error";

// An unexpected failure while rendering one record.
export default function RecordError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <main id="main" className="rc-shell-main">
      <PageError error={error} retry={retry} title="This record could not be shown">
        Something failed while reading it. Nothing was changed. Try again; the record itself is kept.
      </PageError>
    </main>
  );
}
