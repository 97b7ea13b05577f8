import { createHash } from 'node:crypto';
import { invalidField } from '#warden/kernel';

const MAX_EMAIL_LENGTH = 254;
/** Deliberately loose (RFC 5322 is not worth enforcing here): one @, no spaces, a dot in the domain. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The form two spellings of one address share: trimmed, NFC, lower-cased (compared case-insensitively). */
export function normalizeEmail(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}

/**
 * Characters no address holds unquoted: control characters (NUL, DEL, the C1 range), format
 * characters (bidirectional overrides, zero widths), spaces and separators of any kind, and RFC
 * 5322's specials besides the one `@`. A quoted local part (`"a b"@x.example`) could hold them, but
 * Warden takes none: invisible or look-alike characters in a person's address make two addresses
 * read as one in the console and the audit log (`"\u0000"@x.example` was accepted).
 */
const NOT_IN_AN_ADDRESS = /[\p{Cc}\p{Cf}\p{Z}\s()<>[\]:;,"\\]/u;

/** The normalized address, or a 400 with pointer /email. */
export function checkedEmail(email: unknown): string {
  if (typeof email !== 'string') throw invalidField('/email', 'An email address is required');
  const normalized = normalizeEmail(email);
  if (NOT_IN_AN_ADDRESS.test(normalized)) {
    throw invalidField('/email', 'Not an email address: no control characters, spaces, quotes or any of ( ) < > [ ] : ; , \\');
  }
  if (!withinTheForm(normalized)) throw invalidField('/email', `Not an email address (at most ${MAX_EMAIL_LENGTH} characters)`);
  return normalized;
}

/**
 * The normalized address when an account may have it (checkedEmail's rule), else null: for
 * addresses others vouch for, such as an IdP's assertion, which are refused in their own terms
 * rather than as a field of a request.
 */
export function accountEmail(email: string): string | null {
  const normalized = normalizeEmail(email);
  return !NOT_IN_AN_ADDRESS.test(normalized) && withinTheForm(normalized) ? normalized : null;
}

function withinTheForm(normalized: string): boolean {
  return normalized.length <= MAX_EMAIL_LENGTH && EMAIL.test(normalized) && normalized.isWellFormed();
}

/**
 * Names an address in stream names, read-model keys and audit events without writing it there:
 * an email is personal data, sealed in the events that carry it. A digest is a pseudonym, not
 * anonymity (a guessed address can be checked against it), which is why only the sealed event
 * holds the address itself.
 */
export function emailDigest(email: string): string {
  return createHash('sha256')
    .update(`warden-user-email\0${normalizeEmail(email)}`, 'utf8')
    .digest('hex');
}
