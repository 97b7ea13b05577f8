import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { generate } from 'selfsigned';
import { SignedXml } from 'xml-crypto';

/** A signing identity of a test IdP: an RSA key pair and its self-signed certificate, made in the test. */
export interface IdpKeys {
  readonly privateKey: string;
  readonly cert: string;
}

export async function makeIdpKeys(commonName = 'test-idp.example'): Promise<IdpKeys> {
  const pems = await generate([{ name: 'commonName', value: commonName }], { keySize: 2048, algorithm: 'sha256' });
  return { privateKey: pems.private, cert: pems.cert };
}

export interface SamlResponseOptions {
  /** The SP's entity id for the organization (audience). */
  readonly audience: string;
  /** The ACS URL (Destination, Recipient, unless given apart). */
  readonly acsUrl: string;
  /** The AuthnRequest id answered; null for an unsolicited response. */
  readonly inResponseTo: string | null;
  readonly email: string;
  /** Values of the `groups` attribute (absent when undefined). */
  readonly groups?: readonly string[];
  /** What is signed: the assertion (most IdPs), the whole response, both (the assertion, then the response around it), or nothing. */
  readonly sign?: 'assertion' | 'response' | 'both' | 'none';
  /** The signatures' KeyInfo holds this many certificates, as an IdP that sends its chain (default: 1, its own). */
  readonly keyInfoCertificates?: number;
  /** An InclusiveNamespaces PrefixList on the exclusive c14n transform, as Okta and ADFS write (`xs`). */
  readonly inclusiveNamespaces?: readonly string[];
  /** Seconds from now until the assertion's NotOnOrAfter (negative: already expired). */
  readonly validForSeconds?: number;
  /** Changes the signed XML after signing (a tampered response). */
  readonly tamper?: (signedXml: string) => string;
  readonly assertionId?: string;
  readonly issuer?: string;
  /** The Response's top-level StatusCode (default: Success). */
  readonly status?: string;
  /** The Response's Destination (default: acsUrl; null leaves it out). */
  readonly destination?: string | null;
  /** The SubjectConfirmationData's Recipient (default: acsUrl; null leaves it out). */
  readonly recipient?: string | null;
  /** The hash of the signature and of its digest (default: sha256). */
  readonly hash?: 'sha256' | 'sha1';
  /** The AuthnStatement's AuthnInstant, when the IdP authenticated the user (default: a minute before the assertion's validity). */
  readonly authnInstant?: string;
}

const iso = (offsetSeconds: number) => new Date(Date.now() + offsetSeconds * 1000).toISOString();
const xmlId = () => '_' + randomBytes(16).toString('hex');
const escapeXml = (text: string) => text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);

/**
 * A SAML 2.0 Response as an IdP posts it to the ACS (base64 of the XML), signed with xml-crypto
 * (RSA-SHA256, exclusive c14n, enveloped signature) the way common IdPs sign.
 */
export function samlResponse(keys: IdpKeys, options: SamlResponseOptions): string {
  const issuer = options.issuer ?? 'https://test-idp.example/metadata';
  const validFor = options.validForSeconds ?? 300;
  const notOnOrAfter = iso(validFor);
  const notBefore = iso(Math.min(validFor, 0) - 120);
  const inResponseTo = options.inResponseTo === null ? '' : ` InResponseTo="${escapeXml(options.inResponseTo)}"`;
  const attribute = (name: string, value: string | null | undefined) => (value === null ? '' : ` ${name}="${escapeXml(value ?? options.acsUrl)}"`);
  const groups =
    options.groups === undefined
      ? ''
      : `<saml:AttributeStatement><saml:Attribute Name="groups">${options.groups
          .map((g) => `<saml:AttributeValue>${escapeXml(g)}</saml:AttributeValue>`)
          .join('')}</saml:Attribute></saml:AttributeStatement>`;
  const assertion =
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${options.assertionId ?? xmlId()}" Version="2.0" IssueInstant="${iso(Math.min(validFor, 0) - 60)}">` +
    `<saml:Issuer>${escapeXml(issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escapeXml(options.email)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}"${attribute('Recipient', options.recipient)}${inResponseTo}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${escapeXml(options.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${escapeXml(options.authnInstant ?? iso(Math.min(validFor, 0) - 60))}" SessionIndex="${xmlId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    groups +
    `</saml:Assertion>`;
  const response =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${xmlId()}" Version="2.0" IssueInstant="${iso(0)}"${attribute('Destination', options.destination)}${inResponseTo}>` +
    `<saml:Issuer>${escapeXml(issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${escapeXml(options.status ?? 'urn:oasis:names:tc:SAML:2.0:status:Success')}"/></samlp:Status>` +
    assertion +
    `</samlp:Response>`;
  const sign = options.sign ?? 'assertion';
  const how = { hash: options.hash ?? 'sha256', keyInfoCertificates: options.keyInfoCertificates ?? 1, inclusiveNamespaces: options.inclusiveNamespaces ?? [] };
  let xml = response;
  if (sign === 'assertion' || sign === 'both') xml = signed(xml, keys, 'Assertion', how);
  if (sign === 'response' || sign === 'both') xml = signed(xml, keys, 'Response', how);
  if (options.tamper) xml = options.tamper(xml);
  return Buffer.from(xml, 'utf8').toString('base64');
}

/** The XML signature algorithms of each hash: the signature's and the digest's. */
const ALGORITHMS = {
  sha256: { signature: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', digest: 'http://www.w3.org/2001/04/xmlenc#sha256' },
  sha1: { signature: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1', digest: 'http://www.w3.org/2000/09/xmldsig#sha1' },
} as const;

/** Signs the element named `element`, the signature placed after its Issuer (where SAML wants it). */
function signed(
  xml: string,
  keys: IdpKeys,
  element: 'Assertion' | 'Response',
  how: { hash: keyof typeof ALGORITHMS; keyInfoCertificates: number; inclusiveNamespaces: readonly string[] },
): string {
  const certificate = keys.cert.replace(/-----[A-Z ]+-----|\s/g, '');
  const sig = new SignedXml({
    privateKey: keys.privateKey,
    publicCert: keys.cert,
    signatureAlgorithm: ALGORITHMS[how.hash].signature,
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    getKeyInfoContent: (args) => {
      const p = args?.prefix ? `${args.prefix}:` : '';
      return `<${p}X509Data>${`<${p}X509Certificate>${certificate}</${p}X509Certificate>`.repeat(how.keyInfoCertificates)}</${p}X509Data>`;
    },
  });
  sig.addReference({
    xpath: `//*[local-name(.)='${element}']`,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: ALGORITHMS[how.hash].digest,
    inclusiveNamespacesPrefixList: [...how.inclusiveNamespaces],
  });
  sig.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `//*[local-name(.)='${element}']/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return sig.getSignedXml();
}

/**
 * The XML elements of a response (base64, as posted), counted by the test independently of the
 * server's count: every `<` that opens a tag (the test IdP writes no comments or CDATA).
 */
export function elementCount(samlResponseBase64: string): number {
  return (
    Buffer.from(samlResponseBase64, 'base64')
      .toString('utf8')
      .match(/<[A-Za-z_]/g)?.length ?? 0
  );
}

/** The AuthnRequest a login redirect carries (HTTP-Redirect binding: deflated, base64, in SAMLRequest). */
export function authnRequestOf(location: string): { id: string; xml: string; destination: string } {
  const url = new URL(location);
  const encoded = url.searchParams.get('SAMLRequest');
  if (!encoded) throw new Error(`No SAMLRequest in ${location}`);
  const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const id = /\bID="([^"]+)"/.exec(xml)?.[1];
  if (!id) throw new Error(`No ID in the AuthnRequest ${xml}`);
  return { id, xml, destination: `${url.origin}${url.pathname}` };
}
