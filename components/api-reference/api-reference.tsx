"use client";

import type { ApiReferenceReact } from "@scalar/api-reference-react";
import "@scalar/api-reference-react/style.css";
import { type ComponentProps, useEffect, useState } from "react";
import { useCspNonce } from "@/components/csp-nonce";
import styles from "./api-reference.module.css";
import { nonceNewStyles } from "./nonce-new-styles";

type Configuration = ComponentProps<typeof ApiReferenceReact>["configuration"];

/**
 * Scalar with nothing that leaves the console: no fonts from its CDN, no telemetry, no request
 * proxy, no "test request" client or agent (they would send requests the reader did not mean to),
 * no developer toolbar. The document is fetched from this site (`connect-src 'self'`).
 */
export function referenceConfiguration(documentUrl: string): Configuration {
  return {
    url: documentUrl,
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    hideTestRequestButton: true,
    showDeveloperTools: "never",
    agent: { disabled: true },
    documentDownloadType: "json",
    hideDarkModeToggle: true,
    forceDarkModeState: "light",
    theme: "default",
    layout: "modern",
  };
}

/**
 * The API reference. Scalar (a Vue app) adds its theme and toast styles as <style> elements the
 * page's CSP admits only with this request's nonce, so it is loaded only once they get it
 * (./nonce-new-styles.ts), and in the browser only (it needs `window`).
 */
export function ApiReference({ documentUrl }: { documentUrl: string }) {
  const nonce = useCspNonce();
  const [Reference, setReference] = useState<typeof ApiReferenceReact | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    const restore = nonceNewStyles(nonce);
    let live = true;
    import("@scalar/api-reference-react").then(
      (module) => live && setReference(() => module.ApiReferenceReact),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      restore();
    };
  }, [nonce]);

  if (failed) return <p role="alert">The API reference could not be loaded. The document is at {documentUrl}.</p>;
  if (!Reference) return <p aria-busy="true">Loading the API reference…</p>;
  return (
    // data-third-party: axe checks of the console leave Scalar's own markup out (e2e/phone-width.spec.ts).
    <div className={styles.reference} data-third-party="scalar">
      <Reference configuration={referenceConfiguration(documentUrl)} />
    </div>
  );
}
