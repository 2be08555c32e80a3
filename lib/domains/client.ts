// The part of lib/domains a browser may hold (no database, no server code): client components import
// it from here, the server through ./index.ts, which re-exports it.

export { grantLabel, grantsLabel } from "./grant-label";
export {
  createDomainSchema,
  descriptionSchema,
  domainNameSchema,
  grantRequestSchema,
  kindPatternsSchema,
  removeDomainSchema,
  splitKinds,
  updateDomainSchema,
} from "./schema";
