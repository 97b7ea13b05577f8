import { describe, expect, it } from 'vitest';
import type { WardenConfig } from '#warden/platform';
import { samlRequestCookieOptions } from './saml-request-cookie.js';

describe('samlRequestCookieOptions', () => {
  it('with TLS: SameSite=None and Secure, so the IdP’s cross-site post carries it; HttpOnly; only to the ACS', () => {
    const options = samlRequestCookieOptions({ publicUrl: 'https://warden.example' } as WardenConfig, 'acme');
    expect(options).toEqual({ httpOnly: true, secure: true, sameSite: 'none', path: '/saml/acs/acme' });
  });

  it('without TLS: SameSite=Lax, not Secure (a browser refuses SameSite=None without Secure)', () => {
    const options = samlRequestCookieOptions({ publicUrl: 'http://localhost:3000' } as WardenConfig, 'acme');
    expect(options).toEqual({ httpOnly: true, secure: false, sameSite: 'lax', path: '/saml/acs/acme' });
  });
});
