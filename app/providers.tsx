"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { z } from "zod";
import { CspNonceProvider } from "@/components/csp-nonce";

// In the browser zod would probe `new Function` to see whether it may compile its parsers; the
// page's CSP has no 'unsafe-eval', so the probe fails (zod copes) but the browser reports a
// violation. Jitless skips the probe. The server keeps compiling (no CSP applies there).
if (typeof window !== "undefined") z.config({ jitless: true });

// One QueryClient per browser tab (created once per mount, never shared between requests).
export function Providers({ children, nonce }: { children: ReactNode; nonce?: string }) {
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
  return (
    <CspNonceProvider value={nonce}>
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    </CspNonceProvider>
  );
}
