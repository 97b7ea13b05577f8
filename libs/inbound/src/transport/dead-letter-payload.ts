import type { ErrorBodyItem } from '#warden/kernel';

/** The longest a string of a cut dead letter's entry keeps (a pointer into a deep or long-named field). */
const MAX_FIELD_CHARS = 512;

const cut = (text: string | undefined): string | undefined =>
  text === undefined || text.length <= MAX_FIELD_CHARS ? text : `${text.slice(0, MAX_FIELD_CHARS - 1)}…`;

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * The dead letter's body as it is published, within `maxBytes` (what the broker takes: NATS's
 * `max_payload`, less room for the headers). A broker refuses a larger message, and the original
 * would then be handed back for ever instead of dead-lettered. The body is whole when it fits (the
 * usual case: errorBodyOf lists at most 100 problems); otherwise each entry's strings are cut and
 * the entries that fit are kept, in order, with a last one saying how many were left out.
 */
export function deadLetterPayload(body: { errors: readonly ErrorBodyItem[] }, maxBytes: number): string {
  const whole = JSON.stringify(body);
  if (bytes(whole) <= maxBytes) return whole;
  const entries = body.errors.map((e) => {
    const detail = cut(e.detail);
    const pointer = cut(e.pointer);
    return { ...e, title: cut(e.title)!, ...(detail !== undefined ? { detail } : {}), ...(pointer !== undefined ? { pointer } : {}) };
  });
  const last = body.errors[0];
  const closing = (left: number): ErrorBodyItem => ({
    status: last?.status ?? 400,
    type: last?.type ?? ['/errors/invalid-user-input'],
    title: 'More problems',
    detail: `${left} more entr${left === 1 ? 'y' : 'ies'} not listed: the dead letter was cut to what the broker takes`,
  });
  const kept: ErrorBodyItem[] = [];
  // `{"errors":[` + entries joined by commas + `]}`: sizes added up instead of serializing again per entry.
  let size = bytes('{"errors":[]}') + bytes(JSON.stringify(closing(entries.length)));
  for (const entry of entries) {
    const more = bytes(JSON.stringify(entry)) + 1;
    if (size + more > maxBytes) break;
    kept.push(entry);
    size += more;
  }
  return JSON.stringify({ errors: kept.length === entries.length ? kept : [...kept, closing(entries.length - kept.length)] });
}
