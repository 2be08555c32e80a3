// The one authority (docs/decisions/0037-one-access-module.md): who is acting, and may they do
// this to these records. Every path asks here — HTTP routes, intake, approvals when they run,
// bulk operations at their freeze and per item, automatic replay, the CLI — and no other module
// computes roles or grants. Client components import the isomorphic parts directly
// (./roles, ./person-roles, ./grant, ./rules, ./scope-rules): this face pulls in the server's.
// Granting and revoking a person's roles is lib/users/role-grants.ts: it writes, and pauses and
// withdraws what ran on a lost grant (lib/operations, lib/approvals), which read this face.

export { type Actor, authorize, grantsOf, systemActor } from "./actor";
export { actorRef, changeActorOf, CLI_ACTOR, type ChangeActor } from "./actor-ref";
export { globalGrant, type Grant } from "./grant";
export { grantsOfUser } from "./grants";
export { may, type Target } from "./may";
export { isPersonRole, PERSON_ROLES, type PersonRole } from "./person-roles";
export { invalidateDomainPatterns } from "./domain-patterns";
export { reportDomainRefusal } from "./report-scope";
export { can, PERMISSIONS, type Permission, ROLES, type Role } from "./roles";
export { canAnywhere, canIn, domainsWhere } from "./rules";
export {
  ALL_RECORDS,
  domainOfColumn,
  domainOfKind,
  domainsRefused,
  kindsOfDomains,
  mayRead,
  NO_DOMAIN,
  operationScopeCondition,
  type RecordScope,
  recordScope,
  scopeCondition,
} from "./scope";
export { GLOBAL_ONLY_PERMISSIONS, GLOBAL_ONLY_ROLES, holdsPermission, refuseScopedGlobalRole } from "./scope-rules";
export { personBehind, type Standing, standingOf } from "./standing";
