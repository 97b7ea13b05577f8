import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { findAncestorNs, SignedXml } from 'xml-crypto';
import type { SsoRefusalReason } from '../domain/sso.events.js';
import { isEndpoint } from './acs-endpoint.js';
import { MAX_SIGNATURE_ATTRIBUTES_PER_ELEMENT, MAX_SIGNATURE_NODES, MAX_SIGNATURE_TRANSFORMS, MAX_SIGNED_INFO_CHARS } from './saml-response-limits.js';

/*
 * Checks run on a SAML Response before node-saml sees it, on a DOM of their own (linear to build:
 * the elements and the shape are bounded before, see markupProblem): what node-saml does not
 * check (the status, the Destination, SHA-1), and the signature over SignedInfo, which node-saml
 * checks only after the costly part. Loaded with passport-saml, on the first SAML request (the
 * CLI composes the SSO module and never signs anyone in).
 */

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/** The Response element, parsed as node-saml parses (xmldom, errors fatal); null when not well-formed or not a Response. */
export function parseResponse(xml: string): Element | null {
  let failed = false;
  const fail = () => {
    failed = true;
  };
  try {
    const doc = new DOMParser({ locator: {}, errorHandler: { error: fail, fatalError: fail } }).parseFromString(xml, 'text/xml');
    const root = doc?.documentElement;
    return failed || !root || root.localName !== 'Response' ? null : root;
  } catch {
    return null;
  }
}

/**
 * `idp-error` unless the Response's top-level status is Success. node-saml looks at the status
 * only when the response carries no assertion, so a failure status around a validly signed
 * assertion signed the user in. Checked before the signature: some IdPs do not sign failures,
 * and a refusal cannot be abused.
 */
export function statusProblem(response: Element): SsoRefusalReason | null {
  const status = childElements(response).find((e) => e.localName === 'Status');
  const code = status === undefined ? undefined : childElements(status).find((e) => e.localName === 'StatusCode');
  if (code === undefined) return 'malformed-response';
  return code.getAttribute('Value') === SUCCESS ? null : 'idp-error';
}

/**
 * `wrong-destination` when the Response names a Destination other than this organization's ACS
 * (node-saml does not compare it). Without one it is accepted: SAML requires it only on a signed
 * Response, and the assertion's audience and Recipient name this organization anyway.
 */
export function destinationProblem(response: Element, acsUrl: string): SsoRefusalReason | null {
  if (!response.hasAttribute('Destination')) return null;
  return isEndpoint(response.getAttribute('Destination') ?? '', acsUrl) ? null : 'wrong-destination';
}

/**
 * `bad-signature` unless every signature node-saml will check (the Response's own, and its
 * assertion's) carries a SignedInfo signed by the organization's certificate; `sha1-signature`
 * when one of them uses SHA-1, for the signature or a digest, unless `allowSha1`
 * (WARDEN_SAML_ALLOW_SHA1): collisions for SHA-1 can be made, and xml-crypto accepts it. Null
 * otherwise, or when there is no signature there (node-saml then refuses the response itself,
 * cheaply).
 *
 * xml-crypto checks a signature by canonicalizing and digesting every element it references
 * (the whole assertion: superlinear in its elements) and only then checks the SignatureValue over
 * SignedInfo (a few hundred bytes). Here that last step runs first, with xml-crypto's own pieces,
 * so a response signed with any other key is refused before the expensive part; the references
 * are left to node-saml's full check, which follows.
 */
export function signatureProblem(response: Element, cert: string, options: { allowSha1: boolean }): SsoRefusalReason | null {
  const signatures = signaturesToCheck(response);
  if (signatures.length === 0) return null;
  // Every signature's size first, before xml-crypto reads any (docs/sso.md, "Limits").
  for (const signature of signatures) {
    const shape = signatureShapeProblem(signature);
    if (shape !== null) return shape;
  }
  const key = new X509Certificate(cert).toString();
  // xml-crypto takes the namespaces in scope from the document's first SignedInfo, for every
  // signature; found here by a walk rather than its `//*` xpath, which is superlinear.
  // (`.` from that element selects it: typed for a document, findAncestorNs takes any node.)
  const firstSignedInfo = firstElementNamed(response, 'SignedInfo') ?? response;
  const ancestorNamespaces = findAncestorNs(firstSignedInfo as unknown as Document, '.');
  for (const signature of signatures) {
    const problem = signedInfoProblem(signature, key, ancestorNamespaces, options.allowSha1);
    if (problem !== null) return problem;
  }
  return null;
}

/**
 * What one signature may be before xml-crypto reads it: loading it runs xpaths over its whole
 * subtree and canonicalizes its SignedInfo, before the signature value is looked at, so these
 * bound what a signature made with any key costs (saml-response-limits.ts). `too-complex` past
 * MAX_SIGNATURE_NODES nodes, MAX_SIGNATURE_ATTRIBUTES_PER_ELEMENT attributes on one element or
 * MAX_SIGNED_INFO_CHARS characters of SignedInfo; `bad-signature` unless SignedInfo holds exactly
 * one Reference and the signature at most MAX_SIGNATURE_TRANSFORMS Transforms, which node-saml
 * requires as well (it refuses anything else as an invalid signature). One walk, stopping at the
 * first excess, so at most MAX_SIGNATURE_NODES nodes are examined, whatever the signature holds.
 */
export function signatureShapeProblem(signature: Element): SsoRefusalReason | null {
  let nodes = 1;
  let signedInfoChars = 0;
  let references = 0;
  let transforms = 0;
  const pending: Array<{ element: Element; inSignedInfo: boolean }> = [{ element: signature, inSignedInfo: false }];
  while (pending.length > 0) {
    const { element, inSignedInfo } = pending.pop()!;
    const { attributes } = element;
    if (attributes.length > MAX_SIGNATURE_ATTRIBUTES_PER_ELEMENT) return 'too-complex';
    const isSignedInfo = element.parentNode === signature && element.localName === 'SignedInfo';
    const signedInfo = inSignedInfo || isSignedInfo;
    if (signedInfo) {
      signedInfoChars += element.nodeName.length;
      for (let i = 0; i < attributes.length; i++) signedInfoChars += attributes[i]!.name.length + attributes[i]!.value.length;
    }
    // As xml-crypto counts them: SignedInfo's children of that name.
    if (element.localName === 'Reference' && element.parentNode?.parentNode === signature && inSignedInfo) references++;
    if (element.localName === 'Transform' && element.namespaceURI === DSIG) transforms++;
    for (let child = element.firstChild; child !== null; child = child.nextSibling) {
      if (++nodes > MAX_SIGNATURE_NODES) return 'too-complex';
      if (child.nodeType === ELEMENT_NODE) pending.push({ element: child as Element, inSignedInfo: signedInfo });
      else if (signedInfo && (child.nodeType === TEXT_NODE || child.nodeType === CDATA_SECTION_NODE)) signedInfoChars += (child as Text).data.length;
    }
    if (signedInfoChars > MAX_SIGNED_INFO_CHARS) return 'too-complex';
  }
  return references === 1 && transforms <= MAX_SIGNATURE_TRANSFORMS ? null : 'bad-signature';
}

/** An algorithm URI of SHA-1: `…#sha1` (digest), `…#rsa-sha1`, `…#dsa-sha1`, `…#hmac-sha1`. */
const isSha1 = (algorithm: string | undefined) => algorithm !== undefined && /(^|[#-])sha1$/i.test(algorithm);

/** The signatures node-saml verifies: a direct child of the Response, and of its assertions. */
function signaturesToCheck(root: Element): Element[] {
  const assertions = childElements(root).filter((e) => e.localName === 'Assertion');
  return [root, ...assertions].flatMap((parent) => childElements(parent).filter((e) => e.localName === 'Signature' && e.namespaceURI === DSIG));
}

function childElements(parent: Element): Element[] {
  const children: Element[] = [];
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType === ELEMENT_NODE) children.push(node as Element);
  }
  return children;
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;

/** The first element in document order (from `root` on) with this local name. */
function firstElementNamed(root: Element, localName: string): Element | null {
  const pending: Node[] = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.nodeType !== ELEMENT_NODE) continue;
    if ((node as Element).localName === localName) return node as Element;
    for (let child = node.lastChild; child !== null; child = child.previousSibling) pending.push(child);
  }
  return null;
}

/** SignatureValue as xml-crypto reads it: the first text of the first SignatureValue, without line breaks. */
function signatureValueOf(signature: Element): string {
  const value = firstElementNamed(signature, 'SignatureValue');
  for (let child = value?.firstChild ?? null; child !== null; child = child.nextSibling) {
    if (child.nodeType === TEXT_NODE) return (child as Text).data.replace(/\r?\n/g, '');
  }
  return '';
}

/**
 * xml-crypto 6's check of SignedInfo (what its checkSignature does last), through its public
 * pieces; its algorithms first.
 */
function signedInfoProblem(
  signature: Element,
  key: string,
  ancestorNamespaces: ReturnType<typeof findAncestorNs>,
  allowSha1: boolean,
): SsoRefusalReason | null {
  const signed = new SignedXml({ publicCert: key });
  try {
    signed.loadSignature(signature);
    if (!allowSha1 && (isSha1(signed.signatureAlgorithm) || signed.getReferences().some((r) => isSha1(r.digestAlgorithm)))) return 'sha1-signature';
    const Algorithm = signed.signatureAlgorithm === undefined ? undefined : signed.SignatureAlgorithms[signed.signatureAlgorithm];
    const signedInfo = childElements(signature).find((e) => e.localName === 'SignedInfo') ?? null;
    if (Algorithm === undefined || signed.canonicalizationAlgorithm === undefined || signedInfo === null) return 'bad-signature';
    const canonical = signed.getCanonXml([signed.canonicalizationAlgorithm], signedInfo, { ancestorNamespaces });
    return new Algorithm().verifySignature(canonical, key, signatureValueOf(signature)) === true ? null : 'bad-signature';
  } catch {
    // A signature xml-crypto cannot even load (no SignedInfo, no algorithm) verifies nothing.
    return 'bad-signature';
  }
}
