import type { JsonObject, Upcaster } from '#warden/kernel';

/**
 * SsoSettingsChanged v1 → v2. Issue 12 added password-login, JIT and role-mapping settings to
 * `sso:`; an organization configured before then gets their defaults (password login on, no JIT,
 * no roles from the IdP, signed assertions required), which is how it behaved.
 */
export const ssoSettingsUpcasters: Upcaster[] = [
  {
    eventType: 'SsoSettingsChanged',
    fromVersion: 1,
    upcast(data) {
      const sso = data['sso'] as JsonObject;
      return {
        ...data,
        sso: {
          passwordLogin: true,
          jit: { enabled: false, defaultRoles: [] },
          roleAttribute: null,
          roleMap: {},
          wantAssertionsSigned: true,
          ...sso,
        },
      };
    },
  },
];
