import { randomBytes } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExclusiveCanonicalization, SignedXml } from 'xml-crypto';
import { FixedClock, systemClock } from '#warden/kernel';
import { type WardenConfig } from '#warden/platform';
import { Keyring } from '#warden/storage';
import { authnRequestOf, elementCount, type IdpKeys, makeIdpKeys, samlResponse, type SamlResponseOptions } from '../../../../test/support/saml-idp.js';
import { SsoRefusal } from '../domain/sso-refusal.js';
import { isBoundTo, requestBindingOf, SAML_REQUEST_TTL_MS, SealedRequestIds } from './saml-request-ids.js';
import {
  MAX_DEPTH,
  MAX_NAMESPACES_IN_SCOPE,
  MAX_SIGNATURE_ATTRIBUTES_PER_ELEMENT,
  MAX_SIGNATURE_NODES,
  MAX_SIGNED_INFO_CHARS,
  OversizedSamlPost,
} from './saml-response-limits.js';
import { type SamlOrganization, SamlServiceProvider } from './saml-service-provider.js';

const MAX_ELEMENTS = 200;
const config = { publicUrl: 'http://warden.test:8080', saml: { bodyLimitBytes: 256 * 1024, maxElements: MAX_ELEMENTS, allowSha1: false } } as WardenConfig;
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

  describe('what a response may cost (issue 30, item 2)', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    /** A response with exactly `elements` XML elements, filled up with groups. */
    const withElements = async (elements: number, overrides: Partial<SamlResponseOptions> = {}) => {
      const base = elementCount(await respond({ groups: [], ...overrides }));
      const response = await respond({ groups: Array.from({ length: elements - base }, (_, i) => `g${i}`), ...overrides });
      expect(elementCount(response)).toBe(elements);
      return response;
    };

    it('refuses a response with more elements than WARDEN_SAML_MAX_ELEMENTS before parsing any XML; one at the limit signs in', async () => {
      await expect(provider.verify(acme, await withElements(MAX_ELEMENTS))).resolves.toMatchObject({ email: 'ada@acme.example' });
      const over = await withElements(MAX_ELEMENTS + 1);
      const parse = vi.spyOn(DOMParser.prototype, 'parseFromString');
      expect(await refusal(over)).toBe('too-many-elements');
      expect(parse).not.toHaveBeenCalled();
    });

    it('refuses a response nested too deeply, or with too many namespaces in scope, before parsing any XML', async () => {
      const nested = await respond({
        tamper: (xml) => xml.replace('<saml:AttributeValue>', `<saml:AttributeValue>${'<x>'.repeat(MAX_DEPTH)}${'</x>'.repeat(MAX_DEPTH)}`),
      });
      const namespaces = Array.from({ length: MAX_NAMESPACES_IN_SCOPE }, (_, i) => ` xmlns:p${i}="urn:p${i}"`).join('');
      const declaring = await respond({ tamper: (xml) => xml.replace('<samlp:Response ', `<samlp:Response${namespaces} `) });
      const parse = vi.spyOn(DOMParser.prototype, 'parseFromString');
      expect(await refusal(nested)).toBe('too-complex');
      expect(await refusal(declaring)).toBe('too-complex');
      expect(parse).not.toHaveBeenCalled();
    });

    it('refuses a post over the body limit without reading it', async () => {
      await expect(provider.verify(acme, new OversizedSamlPost())).rejects.toMatchObject({ reason: 'response-too-large', status: 413 });
    });

    it('checks the signature over SignedInfo before canonicalizing what it signs: another key costs no pass over the assertion', async () => {
      const [forged, valid] = [await withElements(MAX_ELEMENTS), await respond()];
      const canonicalized: string[] = [];
      const process = ExclusiveCanonicalization.prototype.process;
      vi.spyOn(ExclusiveCanonicalization.prototype, 'process').mockImplementation(function (this: ExclusiveCanonicalization, node, options) {
        canonicalized.push((node as Element).localName);
        return process.call(this, node, options);
      });
      // Signed by the IdP, checked against another certificate: as if signed with any other key.
      expect(await refusal(forged, { ...acme, settings: { ...acme.settings, cert: otherIdp.cert } })).toBe('bad-signature');
      expect(canonicalized).not.toContain('Assertion');
      // The spy sees what verification canonicalizes: a valid response has its assertion canonicalized.
      await provider.verify(acme, valid);
      expect(canonicalized).toContain('Assertion');
    });
  });

  describe("what a signature may cost before its value is checked (a red team's SignedInfo of 300 References)", () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    /** Counts what xml-crypto is asked to do: signatures loaded, nodes canonicalized. */
    const xmlCryptoWork = () => {
      const loaded = vi.spyOn(SignedXml.prototype, 'loadSignature');
      const canonicalized = vi.spyOn(ExclusiveCanonicalization.prototype, 'process');
      return { loaded: () => loaded.mock.calls.length, canonicalized: () => canonicalized.mock.calls.length };
    };
    const attributes = (n: number) => Array.from({ length: n }, (_, i) => ` a${i}="${i}"`).join('');
    /** The assertion's signature with `extra` inserted in its SignedInfo, before its Reference. */
    const withinSignedInfo = (extra: string) => respond({ tamper: (xml) => xml.replace('<ds:Reference ', `${extra}<ds:Reference `) });

    it('refuses a SignedInfo of many References, each with many attributes, or of more than one, before xml-crypto loads or canonicalizes anything', async () => {
      // Under every bound of the document (elements, attributes per element), as the red team's was.
      const references = (count: number, attributeCount: number) =>
        withinSignedInfo(`<ds:Reference URI="#x"${attributes(attributeCount)}><ds:DigestValue>x</ds:DigestValue></ds:Reference>`.repeat(count));
      // Too many attributes, or nodes, for a signature; a few plain References more than SAML's one.
      const [redTeams, plain] = [await references(50, 60), await references(2, 0)];
      const work = xmlCryptoWork();
      expect(await refusal(redTeams)).toBe('too-complex');
      expect(await refusal(plain)).toBe('bad-signature');
      expect(work.loaded()).toBe(0);
      expect(work.canonicalized()).toBe(0);
      // The spies see the work: a signature by another key, of the usual shape, is loaded and its SignedInfo canonicalized.
      expect(await refusal(await respond({}, otherIdp))).toBe('bad-signature');
      expect(work.loaded()).toBe(1);
      expect(work.canonicalized()).toBeGreaterThan(0);
    });

    it('refuses a signature beyond its bounds (too-complex), or not one Reference and at most two Transforms (bad-signature), unloaded', async () => {
      const transform = '<ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>';
      const cases: Array<[string, string]> = [
        [await withinSignedInfo(`<ds:Object${attributes(MAX_SIGNATURE_ATTRIBUTES_PER_ELEMENT + 1)}/>`), 'too-complex'],
        [await withinSignedInfo(`<ds:Object a="${'x'.repeat(MAX_SIGNED_INFO_CHARS)}"/>`), 'too-complex'],
        [
          await respond({ tamper: (xml) => xml.replace('</ds:KeyInfo>', `${'<ds:KeyName>k</ds:KeyName>'.repeat(MAX_SIGNATURE_NODES / 2)}</ds:KeyInfo>`) }),
          'too-complex',
        ],
        [await respond({ tamper: (xml) => xml.replace('</ds:KeyInfo>', `${'<!-- -->'.repeat(MAX_SIGNATURE_NODES)}</ds:KeyInfo>`) }), 'too-complex'],
        [await respond({ tamper: (xml) => xml.replace('</ds:Transforms>', `${transform}</ds:Transforms>`) }), 'bad-signature'],
        [await respond({ tamper: (xml) => xml.replace(/<ds:Reference [\s\S]*<\/ds:Reference>/, '') }), 'bad-signature'],
      ];
      const work = xmlCryptoWork();
      for (const [response, reason] of cases) expect(await refusal(response)).toBe(reason);
      expect(work.loaded()).toBe(0);
      expect(work.canonicalized()).toBe(0);
    });

    it('accepts what IdPs sign: the Response and its assertion both signed, a certificate chain in KeyInfo, an InclusiveNamespaces prefix list', async () => {
      const shapes: Array<Partial<SamlResponseOptions>> = [
        { sign: 'both', keyInfoCertificates: 3, inclusiveNamespaces: ['xs', 'xsi'] },
        { sign: 'assertion', keyInfoCertificates: 3, inclusiveNamespaces: ['xs'] },
        { sign: 'both' },
      ];
      for (const shape of shapes) await expect(provider.verify(acme, await respond(shape))).resolves.toMatchObject({ email: 'ada@acme.example' });
      const lenient = { ...acme, settings: { ...acme.settings, wantAssertionsSigned: false } };
      await expect(provider.verify(lenient, await respond({ sign: 'response', keyInfoCertificates: 3, inclusiveNamespaces: ['xs'] }))).resolves.toMatchObject({
        email: 'ada@acme.example',
      });
    });
  });

  describe('what node-saml leaves unchecked (issue 30, item 5)', () => {
    const RESPONDER = 'urn:oasis:names:tc:SAML:2.0:status:Responder';

    it('refuses a response whose status is not Success, signed assertion or not (idp-error)', async () => {
      expect(await refusal(await respond({ status: RESPONDER }))).toBe('idp-error');
      expect(await refusal(await respond({ status: RESPONDER, sign: 'none' }))).toBe('idp-error');
    });

    it("compares Destination and Recipient with the organization's ACS URL, as URLs; accepts a response that names neither", async () => {
      expect(await refusal(await respond({ destination: provider.acsUrl('globex') }))).toBe('wrong-destination');
      expect(await refusal(await respond({ recipient: provider.acsUrl('globex') }))).toBe('wrong-recipient');
      expect(await refusal(await respond({ recipient: 'https://warden.test:8080/saml/acs/acme' }))).toBe('wrong-recipient');
      const spelledOtherwise = 'HTTP://Warden.Test:8080/saml/acs/acme/';
      await expect(provider.verify(acme, await respond({ destination: spelledOtherwise, recipient: spelledOtherwise }))).resolves.toMatchObject({
        email: 'ada@acme.example',
      });
      await expect(provider.verify(acme, await respond({ destination: null, recipient: null }))).resolves.toMatchObject({ email: 'ada@acme.example' });
    });

    it('refuses SHA-1 signatures and digests unless WARDEN_SAML_ALLOW_SHA1 is true', async () => {
      expect(await refusal(await respond({ hash: 'sha1' }))).toBe('sha1-signature');
      expect(await refusal(await respond({ hash: 'sha1', sign: 'response' }), { ...acme, settings: { ...acme.settings, wantAssertionsSigned: false } })).toBe(
        'sha1-signature',
      );
      const lenient = new SamlServiceProvider({ ...config, saml: { ...config.saml, allowSha1: true } }, keyring, systemClock);
      const id = (await lenient.loginRedirect(acme)).requestId;
      await expect(lenient.verify(acme, await respond({ hash: 'sha1', inResponseTo: id }))).resolves.toMatchObject({ email: 'ada@acme.example' });
    });
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
