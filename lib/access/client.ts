// The isomorphic face of the one authority (docs/decisions/0037-one-access-module.md): the role
// and permission table, grants, and the rules that read them, with no database and no server
// code, so client components can ask the same questions the server answers. The server's face
// is ./index.ts (it re-exports these too); anything else of lib/access is its own business,
// and lint refuses an import of it from outside (eslint.config.mjs).

export { isPersonRole, PERSON_ROLES, type PersonRole } from "./person-roles";
export { globalGrant, type Grant } from "./grant";
export { can, PERMISSIONS, type Permission, ROLES, type Role } from "./roles";
export { canAnywhere, canIn, domainsWhere } from "./rules";
export { GLOBAL_ONLY_PERMISSIONS, GLOBAL_ONLY_ROLES, holdsPermission, refuseScopedGlobalRole } from "./scope-rules";
