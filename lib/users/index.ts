// lib/users: People: creating and inviting them, their roles and grants, disabling, password resets
// and preferences. Its face (docs/decisions/0049-modules-in-order.md): what other code may import
// of it.

export { type AssigneeOption, listAssignees } from "./assignees";
export { createUser, newUserSchema, PERSON_ROLES, type PersonRole } from "./create-user";
export { disableUser } from "./disable-user";
export { enableUser } from "./enable-user";
export { inviteUser } from "./invite-user";
export { getUserView, listUsers } from "./list-users";
export { inviteSchema, preferencesSchema, reasonOnlySchema, setRoleSchema } from "./people-schema";
export { type PersonView } from "./person-view";
export { personOf, preferencesOf, setPreferences } from "./preferences";
export { resetPassword } from "./reset-password";
export { grantRole, revokeRole } from "./role-grants";
export { setUserRole } from "./set-user-role";
