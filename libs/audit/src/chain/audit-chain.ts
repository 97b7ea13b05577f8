import { hash } from 'node:crypto';
import { canonicalJsonDigest, type RecordedEvent } from '#warden/kernel';

/**
 * The audit chain (docs/audit.md, "The audit chain"): each organization's events, in log order,
 * linked by hashes. Everything here is pure, and exactly what `warden audit verify` and an
 * auditor's own verifier recompute, so it never changes within a format: a change is a new
 * format (v1 → v2 added the log position to the link and digests credentials; docs/audit.md, "The audit chain").
 */
export const AUDIT_CHAIN_FORMAT = 'warden-audit-chain/v2';
/** The first format, kept to compare an old data directory's links when it is rebuilt under v2. */
export const AUDIT_CHAIN_FORMAT_V1 = 'warden-audit-chain/v1';

const sha256 = (text: string) => hash('sha256', text, 'base64url');

/** The link before an organization's first event. */
export function genesisLink(orgId: string): string {
  return sha256(`${AUDIT_CHAIN_FORMAT}\n${orgId}`);
}

/**
 * What of an event is chained: the event exactly as stored, personal fields still sealed, so
 * forgetting a data key (GDPR deletion) leaves every link intact. Its log position is chained
 * beside it (nextLink), so the position an export shows is covered too.
 */
export interface StoredForm {
  readonly id: string;
  readonly stream: string;
  readonly revision: number;
  readonly type: string;
  readonly data: object;
  readonly metadata: object;
}

export function storedForm(event: RecordedEvent): StoredForm {
  return { id: event.id, stream: event.streamName, revision: event.revision, type: event.type, data: event.data, metadata: event.metadata };
}

/**
 * Credentials in events, which an export must not carry (docs/audit.md, "Credentials"): a
 * credential's value enters the chain only through its SHA-256, so the export shows
 * `{"$sha256": …}` in its place and still verifies. Which values are credentials is part of the
 * chain format: these top-level fields of any event, `hash` of ApiKeyCreated, and every value
 * sealed under the keyring (`{kid, iv, ct, tag}`: private signing keys, TOTP secrets, callback
 * URLs and headers, SSO certificates) within the first DIGEST_DEPTH levels of `data`.
 */
export const CREDENTIAL_FIELDS: readonly string[] = ['passwordHash', 'tokenHash', 'csrfTokenHash', 'lockTokenHash', 'recoveryCodeHashes'];
export const CREDENTIAL_FIELDS_BY_TYPE: Readonly<Record<string, readonly string[]>> = { ApiKeyCreated: ['hash'] };
export const DIGEST_DEPTH = 8;
export const DIGEST_KEY = '$sha256';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isKeyringSealed = (v: unknown): boolean =>
  isObject(v) && typeof v['kid'] === 'string' && typeof v['iv'] === 'string' && typeof v['ct'] === 'string' && typeof v['tag'] === 'string';
const isDigestOnly = (v: unknown): boolean => isObject(v) && Object.keys(v).length === 1 && typeof v[DIGEST_KEY] === 'string';
const digested = (v: unknown) => (isDigestOnly(v) ? v : { [DIGEST_KEY]: canonicalJsonDigest(v) });

/**
 * The event's data with every credential replaced by its digest; a credential already replaced
 * (an export) stays as it is, so the stored and the exported form chain alike.
 */
export function withCredentialsDigested(type: string, data: unknown): unknown {
  if (!isObject(data)) return data;
  const named = CREDENTIAL_FIELDS_BY_TYPE[type];
  // Object.keys and a loop, not Object.entries and a callback: this runs for every event chained.
  const keys = Object.keys(data);
  let copy: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = data[k];
    const r = (CREDENTIAL_FIELDS.includes(k) || named?.includes(k)) && v !== null ? digested(v) : sealedDigested(v, 1);
    if (r !== v) (copy ??= { ...data })[k] = r;
  }
  return copy ?? data;
}

/**
 * `value` with every keyring-sealed value within DIGEST_DEPTH levels digested. Copied only along
 * the paths where something was replaced: almost no event carries a credential, and every event
 * is chained (copying every event's data was a measured share of a flood's CPU).
 */
function sealedDigested(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (isKeyringSealed(value)) return digested(value);
  if (depth >= DIGEST_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const r = sealedDigested(v, depth + 1);
      if (r !== v) (copy ??= [...value])[i] = r;
    }
    return copy ?? value;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  let copy: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const v = object[keys[i]!];
    const r = sealedDigested(v, depth + 1);
    if (r !== v) (copy ??= { ...object })[keys[i]!] = r;
  }
  return copy ?? object;
}

/** SHA-256 (base64url) of the stored form's canonical JSON, credentials digested. */
export function contentDigest(stored: StoredForm): string {
  return digestOf(stored.id, stored.stream, stored.revision, stored.type, stored.data, stored.metadata);
}

/**
 * contentDigest of the stored form with these members, without building it first: the object
 * digested has its members in their canonical (sorted) order, which costs the writer no sorting.
 */
function digestOf(id: string, stream: string, revision: number, type: string, data: object, metadata: object): string {
  return canonicalJsonDigest({ data: withCredentialsDigested(type, data), id, metadata, revision, stream, type });
}

/** link(n) = SHA-256(link(n-1) + "\n" + position(n) + "\n" + digest(n)), base64url. */
export function nextLink(previous: string, position: number, digest: string): string {
  return sha256(`${previous}\n${position}\n${digest}`);
}

/** An event's link after `previous`. */
export function linkOf(previous: string, event: RecordedEvent): string {
  return nextLink(previous, event.position, digestOf(event.id, event.streamName, event.revision, event.type, event.data, event.metadata));
}

/** The first format's rule (docs/audit.md, "Older data directories"): the whole stored form, no position. */
export const chainV1 = {
  genesisLink: (orgId: string) => sha256(`${AUDIT_CHAIN_FORMAT_V1}\n${orgId}`),
  linkOf: (previous: string, event: RecordedEvent) => sha256(`${previous}\n${canonicalJsonDigest(storedForm(event))}`),
};

/** A chain head: the organization's seq-th event, at a log position, and its link. */
export interface ChainHead {
  readonly seq: number;
  readonly position: number;
  readonly link: string;
}

/** The bytes an organization's key signs for a checkpoint of its chain head (v2 links). */
export function checkpointMessage(orgId: string, head: ChainHead): Buffer {
  return Buffer.from(`warden-audit-checkpoint/v2\n${orgId}\n${head.seq}\n${head.position}\n${head.link}`, 'utf8');
}

/** What a checkpoint recorded before v2 signed (its link is a v1 link). */
export function checkpointMessageV1(orgId: string, head: ChainHead): Buffer {
  return Buffer.from(`warden-audit-checkpoint/v1\n${orgId}\n${head.seq}\n${head.position}\n${head.link}`, 'utf8');
}
