/**
 * What the ACS puts in place of a form post larger than WARDEN_SAML_BODY_LIMIT_BYTES: the post was
 * not read, and the sign-in is refused as `response-too-large`. An object, not a symbol: the
 * request body goes through the validation pipe, which passes an object to an `unknown` body as
 * it is and refuses anything else.
 */
export class OversizedSamlPost {
  readonly overBodyLimit = true;
}

/**
 * Fixed bounds on a response's shape, far above what IdPs send (nesting of about 8 levels, a
 * handful of attributes and namespaces per element). xml-crypto collects the namespaces in scope
 * with a quadratic de-duplication (20,000 declarations on the root: 6 s, whatever the key), and
 * canonicalization and xpath work per element grows with its attributes and ancestors.
 */
export const MAX_DEPTH = 32;
export const MAX_ATTRIBUTES_PER_ELEMENT = 64;
export const MAX_NAMESPACES_IN_SCOPE = 64;

/**
 * Fixed bounds on each XML signature the ACS checks (the Response's, its assertion's), checked on
 * the parsed document before xml-crypto reads it: loading a signature runs xpaths over its whole
 * subtree and canonicalizes its SignedInfo, before any look at the signature value, so a stranger's
 * SignedInfo of 300 References with 60 attributes each held the event loop 250 ms a post. IdPs
 * send one Reference (a SAML signature signs one element), two Transforms, and about 20 elements
 * with at most 3 attributes each (a KeyInfo with a certificate chain the most: some 50 nodes
 * pretty-printed); a SignedInfo is under 1 KiB.
 */
/** Nodes of one signature, itself included: elements, text (white space between elements too), comments. */
export const MAX_SIGNATURE_NODES = 96;
export const MAX_SIGNATURE_ATTRIBUTES_PER_ELEMENT = 8;
/** Characters of a SignedInfo's names, attribute names and values and text, together. */
export const MAX_SIGNED_INFO_CHARS = 4096;
/** What node-saml accepts (more is "Invalid signature, too many transforms"). */
export const MAX_SIGNATURE_TRANSFORMS = 2;

export type MarkupProblem = 'too-many-elements' | 'too-complex';

/**
 * Whether an XML document has more than `maxElements` elements, or breaks one of the fixed
 * bounds above, found in one pass over the text, without parsing it, stopping at the first
 * excess. Verifying a response costs time superlinear in its elements (xml-crypto's
 * canonicalization and xpath, xml2js), so their number is bounded before any of that runs.
 * Comments, CDATA sections, processing instructions and declarations are skipped. A malformed
 * document is the parser's to refuse: here it only must not cost more than one pass.
 */
export function markupProblem(xml: string, maxElements: number): MarkupProblem | null {
  let elements = 0;
  /** Namespace declarations of each open element, outermost first. */
  const open: number[] = [];
  let namespacesInScope = 0;
  let at = xml.indexOf('<');
  while (at !== -1) {
    let end: number;
    if (xml.charCodeAt(at + 1) === SLASH) {
      end = xml.indexOf('>', at);
      namespacesInScope -= open.pop() ?? 0;
    } else if (xml.startsWith('<!--', at)) end = endOf(xml, at, '-->');
    else if (xml.startsWith('<![CDATA[', at)) end = endOf(xml, at, ']]>');
    else if (xml.startsWith('<?', at)) end = endOf(xml, at, '?>');
    else if (xml.startsWith('<!', at)) end = xml.indexOf('>', at);
    else {
      if (++elements > maxElements) return 'too-many-elements';
      const tag = startTag(xml, at);
      if (tag === null) return null;
      if (tag.attributes > MAX_ATTRIBUTES_PER_ELEMENT) return 'too-complex';
      if (namespacesInScope + tag.namespaces > MAX_NAMESPACES_IN_SCOPE) return 'too-complex';
      if (!tag.selfClosing) {
        open.push(tag.namespaces);
        namespacesInScope += tag.namespaces;
        if (open.length > MAX_DEPTH) return 'too-complex';
      }
      end = tag.end;
    }
    if (end === -1) return null;
    at = xml.indexOf('<', end + 1);
  }
  return null;
}

const SLASH = 0x2f;
const EQUALS = 0x3d;
const CLOSE = 0x3e;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

/** The index of the last character of `terminator` after `from`, or -1. */
function endOf(xml: string, from: number, terminator: string): number {
  const found = xml.indexOf(terminator, from);
  return found === -1 ? -1 : found + terminator.length - 1;
}

/**
 * The start tag at `from`: where its `>` is (past any inside a quoted value), how many attributes
 * it has (one per `=` outside quotes), how many of them declare a namespace (`xmlns`, `xmlns:p`),
 * and whether it closes itself. Null when it never ends.
 */
function startTag(xml: string, from: number): { end: number; attributes: number; namespaces: number; selfClosing: boolean } | null {
  let quote = 0;
  let attributes = 0;
  let namespaces = 0;
  for (let i = from + 1; i < xml.length; i++) {
    const c = xml.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) quote = c;
    else if (c === EQUALS) {
      attributes++;
      if (declaresNamespace(xml, i)) namespaces++;
    } else if (c === CLOSE) return { end: i, attributes, namespaces, selfClosing: xml.charCodeAt(i - 1) === SLASH };
  }
  return null;
}

/** Whether the attribute name before the `=` at `equals` is `xmlns` or `xmlns:…` (white space allowed around `=`). */
function declaresNamespace(xml: string, equals: number): boolean {
  let nameEnd = equals;
  while (nameEnd > 0 && isSpace(xml.charCodeAt(nameEnd - 1))) nameEnd--;
  let nameStart = nameEnd;
  // Stopping at the previous attribute's `=` or quote keeps the whole tag one pass, whatever it holds.
  while (nameStart > 0 && !endsName(xml.charCodeAt(nameStart - 1))) nameStart--;
  const name = xml.slice(nameStart, nameEnd);
  return name === 'xmlns' || name.startsWith('xmlns:');
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function endsName(c: number): boolean {
  return isSpace(c) || c === EQUALS || c === DOUBLE_QUOTE || c === SINGLE_QUOTE || c === 0x3c;
}
