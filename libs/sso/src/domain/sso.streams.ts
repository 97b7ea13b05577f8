import { streamName } from '#warden/kernel';

export const samlAssertionStream = (orgId: string, assertionDigest: string) => streamName('saml_assertion', orgId, assertionDigest);
export const ssoLoginFailureStream = (orgId: string, attemptId: string) => streamName('sso_login_failure', orgId, attemptId);
