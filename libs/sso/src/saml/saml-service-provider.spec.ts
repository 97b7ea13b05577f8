import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { FixedClock, systemClock } from '#warden/kernel';
import { Keyring, type WardenConfig } from '#warden/platform';
import { authnRequestOf, type IdpKeys, makeIdpKeys, samlResponse, type SamlResponseOptions } from '../../../../test/support/saml-idp.js';
import { SsoRefusal } from '../domain/sso-refusal.js';
import { isBoundTo, requestBindingOf, SAML_REQUEST_TTL_MS, SealedRequestIds } from './saml-request-ids.js';
import { type SamlOrganization, SamlServiceProvider } from './saml-service-provider.js';

const config = { publicUrl: 'http://warden.test:8080' } as WardenConfig;
const keyring = new Keyring([randomBytes(32)]);

describe('SamlServiceProvider (passport-saml MultiSamlStrategy, a test IdP made here)', () => {
  let idp: IdpKeys;
  let otherIdp: IdpKeys;
  let provider: SamlServiceProvider;
  let acme: SamlOrganization;

  beforeAll(async () => {
    [idp, otherIdp] = await Promise.all([makeIdpKeys(), makeIdpKeys('impostor.example')]);
    provider = new SamlServiceProvider(config, keyring, systemClock);
    acme = {
      orgId: 'acme',
      settings: {
        saml_enabled: true,
        sso_url: 'https://test-idp.example/sso',
        cert: idp.cert,
        passwordLogin: true,
        jit: { enabled: false, defaultRoles: [] },
        roleAttribute: 'groups',
        roleMap: {},
        wantAssertionsSigned: true,
      },
    };
  });

  /** A fresh AuthnRequest id, as the login redirect issues it. */
  const requestId = async (org = acme) => (await provider.loginRedirect(org)).requestId;
  const respond = async (overrides: Partial<SamlResponseOptions> = {}, keys = idp) =>
    samlResponse(keys, {
      audience: provider.entityId('acme'),
      acsUrl: provider.acsUrl('acme'),
      inResponseTo: await requestId(),
      email: 'Ada@Acme.example',
      groups: ['moderators'],
      ...overrides,
    });
  const refusal = async (response: string, org = acme) => {
    const error = await provider.verify(org, response).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SsoRefusal);
    return (error as SsoRefusal).reason;
  };

  it('redirects to the IdP with an AuthnRequest for this organization, and names its id', async () => {
    const { location, requestId: id } = await provider.loginRedirect(acme);
    const request = authnRequestOf(location);
    expect(request.id).toBe(id);
    expect(request.destination).toBe('https://test-idp.example/sso');
    expect(request.xml).toContain(`AssertionConsumerServiceURL="http://warden.test:8080/saml/acs/acme"`);
    expect(request.xml).toContain('<saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">http://warden.test:8080/saml/metadata/acme</saml:Issuer>');
  });

  it('accepts a signed assertion: the email (lower-cased), groups, assertion id, expiry and the request it answers', async () => {
    const id = await requestId();
    const identity = await provider.verify(acme, await respond({ assertionId: '_assertion-1', inResponseTo: id }));
    expect(identity).toMatchObject({ email: 'ada@acme.example', groups: ['moderators'], assertionId: '_assertion-1', inResponseTo: id });
    expect(Date.parse(identity.notOnOrAfter!)).toBeGreaterThan(Date.now());
  });

  it('accepts a signed Response around an unsigned assertion only when the organization says so', async () => {
    const response = await respond({ sign: 'response' });
    expect(await refusal(response)).toBe('bad-signature');
    const lenient = { ...acme, settings: { ...acme.settings, wantAssertionsSigned: false } };
    await expect(provider.verify(lenient, await respond({ sign: 'response' }))).resolves.toMatchObject({ email: 'ada@acme.example' });
  });

  it('refuses a response signed by another key (bad signature)', async () => {
    expect(await refusal(await respond({}, otherIdp))).toBe('bad-signature');
  });

  it('refuses a tampered response (the email changed after signing)', async () => {
    const tampered = await respond({ tamper: (xml) => xml.replace('Ada@Acme.example', 'admin@acme.example') });
    expect(await refusal(tampered)).toBe('bad-signature');
  });

  it('refuses an unsigned response', async () => {
    expect(await refusal(await respond({ sign: 'none' }))).toBe('unsigned');
  });

  it('refuses an expired assertion', async () => {
    expect(await refusal(await respond({ validForSeconds: -300 }))).toBe('expired');
  });

  it("refuses an assertion for another organization's audience", async () => {
    expect(await refusal(await respond({ audience: provider.entityId('globex') }))).toBe('wrong-audience');
  });

  it('refuses a response to no request of ours: forged, unsolicited, another organization’s, or stale', async () => {
    expect(await refusal(await respond({ inResponseTo: '_forged' }))).toBe('unknown-request');
    expect(await refusal(await respond({ inResponseTo: null }))).toBe('unknown-request');
    const globex = { ...acme, orgId: 'globex' };
    expect(await refusal(await respond({ inResponseTo: await requestId(globex) }))).toBe('unknown-request');
    const clock = new FixedClock(new Date(Date.now() - SAML_REQUEST_TTL_MS - 1000));
    const stale = new SealedRequestIds('acme', keyring, clock).newId();
    expect(await refusal(await respond({ inResponseTo: stale }))).toBe('unknown-request');
  });

  it('refuses an assertion that names no email', async () => {
    expect(await refusal(await respond({ email: 'not-an-email' }))).toBe('no-email');
  });

  it('serves SP metadata naming the entity id and the ACS URL', async () => {
    const xml = await provider.metadata('acme');
    expect(xml).toContain('entityID="http://warden.test:8080/saml/metadata/acme"');
    expect(xml).toContain('Location="http://warden.test:8080/saml/acs/acme"');
  });
});

describe('request binding (the browser keeps a digest of its request id)', () => {
  const ids = new SealedRequestIds('acme', keyring, systemClock);

  it('binds a request id to its own digest only: not to another request, nor to nothing', () => {
    const mine = ids.newId();
    const theirs = ids.newId();
    const binding = requestBindingOf(mine);
    expect(binding).not.toContain(mine);
    expect(isBoundTo(binding, mine)).toBe(true);
    expect(isBoundTo(binding, theirs)).toBe(false);
    expect(isBoundTo(requestBindingOf(theirs), mine)).toBe(false);
    expect(isBoundTo(null, mine)).toBe(false);
    expect(isBoundTo('', mine)).toBe(false);
    expect(isBoundTo(mine, mine)).toBe(false);
  });
});
