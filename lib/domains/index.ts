// lib/domains: Ownership domains: their kind patterns, the grants that scope people and tokens to
// them, and managing them. Its face (docs/decisions/0049-modules-in-order.md): what other code may
// import of it, with the browser-safe part from ./client.ts.

export * from "./client";
export { type DomainView } from "./domain-view";
export { createDomain, getDomainView, listDomains, removeDomain, requireDomain, updateDomain } from "./manage";
