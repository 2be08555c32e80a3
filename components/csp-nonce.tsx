"use client";

import { createContext, useContext } from "react";

// This request's CSP nonce (proxy.ts), for client code that adds <style> elements itself:
// CodeMirror does, and the page's Content-Security-Policy admits only those that carry it.
const NonceContext = createContext<string | undefined>(undefined);

export const CspNonceProvider = NonceContext.Provider;

export function useCspNonce(): string | undefined {
  return useContext(NonceContext);
}
