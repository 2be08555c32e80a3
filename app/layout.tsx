import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import "./globals.css";
import { Providers } from "./providers";

export const metadata: Metadata = {
  title: "Review Console",
  description: "The manual route for task queues",
};

// <meta name="color-scheme">: the browser paints its own parts (the canvas before the CSS
// arrives, scrollbars) in the system's scheme from the first byte; app/globals.css has the colours.
export const viewport: Viewport = { colorScheme: "light dark" };

// Reading the request's headers makes every page render per request, as its nonce requires: a
// page built ahead of time would carry no nonce, and the CSP would block its scripts.
export default async function RootLayout({ children }: { children: ReactNode }) {
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <html lang="en">
      <body>
        <Providers nonce={nonce}>{children}</Providers>
      </body>
    </html>
  );
}
