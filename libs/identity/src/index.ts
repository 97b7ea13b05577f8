export { IdentityModule, type IdentityOptions } from './identity.module.js';
export { CreateOrganizationCommand } from './commands/create-organization/create-organization.command.js';
export { CreateApiKeyCommand, type CreatedApiKey } from './commands/create-api-key/create-api-key.command.js';
export { RotateApiKeyCommand } from './commands/rotate-api-key/rotate-api-key.command.js';
export { RevokeApiKeyCommand } from './commands/revoke-api-key/revoke-api-key.command.js';
export { ListApiKeysQuery, type ApiKeySummary } from './queries/list-api-keys/list-api-keys.query.js';
export { GetOrganizationQuery, type OrganizationView } from './queries/get-organization/get-organization.query.js';
export { ConfigureOrganizationCommand } from './commands/configure-organization/configure-organization.command.js';
export { CreateUserCommand, type CreateUserOptions } from './commands/create-user/create-user.command.js';
export { SetUserPasswordCommand } from './commands/set-user-password/set-user-password.command.js';
export { ChangeUserRolesCommand } from './commands/change-user-roles/change-user-roles.command.js';
export { DisableUserCommand } from './commands/disable-user/disable-user.command.js';
export { OpenConsoleSessionCommand, type OpenedConsoleSession } from './commands/open-console-session/open-console-session.command.js';
export { CloseConsoleSessionCommand } from './commands/close-console-session/close-console-session.command.js';
export { PasswordLoginCommand } from './commands/password-login/password-login.command.js';
export { FindUserByEmailQuery } from './queries/find-user-by-email/find-user-by-email.query.js';
export { ListUsersQuery } from './queries/list-users/list-users.query.js';
export { GetUserQuery } from './queries/get-user/get-user.query.js';
export type { UserView } from './queries/user-view.js';
export { CheckSecondFactorCommand, type SecondFactorCheck } from './commands/check-second-factor/check-second-factor.command.js';
export {
  StartSecondFactorEnrollmentCommand,
  type SecondFactorEnrollment,
} from './commands/start-second-factor-enrollment/start-second-factor-enrollment.command.js';
export { ConfirmSecondFactorCommand } from './commands/confirm-second-factor/confirm-second-factor.command.js';
export { DisableSecondFactorCommand } from './commands/disable-second-factor/disable-second-factor.command.js';
export { GetSecondFactorStatusQuery, type SecondFactorStatus } from './queries/get-second-factor-status/get-second-factor-status.query.js';
export { SecondFactorEnforcement } from './second-factor-enforcement.js';
// Failed sign-ins counted per key in the read store; SSO's ACS counts its refusals with it (docs/sso.md, "Limits").
export { clientNetworkKey, LoginThrottle } from './login-throttle.js';
// The port identity declares and the SSO module provides (docs/architecture.md, "Ports").
export { PASSWORD_LOGIN_POLICY, type PasswordLoginPolicy } from './password-login.port.js';
export { InviteUserCommand, type Invitation } from './commands/invite-user/invite-user.command.js';
export { AcceptInvitationCommand } from './commands/accept-invitation/accept-invitation.command.js';
export { ApplyUsersCommand, type UsersApplyReport } from './commands/apply-users/apply-users.command.js';
export { RecordInvestigationViewCommand } from './commands/record-investigation-view/record-investigation-view.command.js';
export * from './contracts.js';
