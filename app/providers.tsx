"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";

// One QueryClient per browser tab (created once per mount, never shared between requests).
export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            // Live enough for a triage queue without hammering the server.
            staleTime: 5_000,
            refetchOnWindowFocus: true,
            retry: (count, error) =>
              count < 2 &&
              !(error instanceof Error && "status" in error && Number((error as { status: number }).status) < 500),
          },
        },
      }),
  );
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
