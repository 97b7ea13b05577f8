import { RE2JS } from 're2js';
import * as z from 'zod';
import { basicCredentialsProblem, CLIENT_MANAGED_HEADERS, hasUserInfo, idProblem } from '#warden/kernel';
import { PENALTIES } from '../catalog.model.js';
import { errorMessage } from './config-problems.js';

/**
 * Characters that reorder or hide text and have no use inside an identifier: the bidirectional
 * controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), the zero-width space and
 * invisible operators (U+200B, U+2060–U+2064), the byte-order mark and the soft hyphen. The
 * zero-width joiner and non-joiner (U+200D, U+200C) are allowed: emoji sequences and Persian or
 * Indic words need them.
 */
const HIDDEN_CHARACTER = /[\u00AD\u061C\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;

/**
 * An id of the configuration (item type, action, rule, policy, queue, bank …): what a customer's
 * id may be (idProblem: at most MAX_ID_LENGTH, well-formed, no control characters: it reaches
 * stream names, keys and paths), without whitespace, and without characters that reorder or hide
 * text (a right-to-left override or a zero-width space would make two ids look alike in the
 * console and in a review of the file).
 */
export const idSchema = z.string().superRefine((id, ctx) => {
  const problem = idProblem(id);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `must be an id: ${problem}`, input: id });
  else if (/\s/.test(id)) ctx.addIssue({ code: 'custom', message: 'must be a non-empty string without whitespace', input: id });
  else if (HIDDEN_CHARACTER.test(id))
    ctx.addIssue({ code: 'custom', message: 'must be an id: expected no invisible or direction-changing characters (such as U+200B or U+202E)', input: id });
});
export const nameSchema = z.string().regex(/\S/, 'must not be blank');
export const nullableText = z.string().nullable().default(null);
export const flag = z.boolean().default(false);
export const idList = z.array(idSchema).default([]);
export const penaltySchema = z.enum(PENALTIES).default('NONE');
export const positiveInt = z.number().int().positive();
export const jsonObjectSchema = z.record(z.string(), z.unknown());
export const httpUrlSchema = z.string().refine(isHttpUrl, 'must be an absolute http(s) URL');
/**
 * The terms one text bank or one TEXT_CONTAINS condition may list. Past some 10,000 terms they are
 * matched on the rules' regex thread; RE2 needs seconds to compile a few hundred thousand (300,000:
 * 4.9 s, within a match's deadline of 10 s) and refuses some 600,000 as too large (docs/rules.md,
 * "Evaluation"), so a list that could not be matched is refused when it is applied.
 */
export const MAX_TERMS = 100_000;
export const termsSchema = z.array(z.string().min(1)).max(MAX_TERMS);

export const regexSchema = z.string().superRefine((pattern, ctx) => {
  const error = re2SyntaxError(pattern);
  if (error !== null) ctx.addIssue({ code: 'custom', message: `invalid regular expression: ${error}`, input: pattern });
});

/** What is said of a secret that is not a string: zod's own problem would quote the value. */
const NOT_A_STRING_SECRET = 'must be a string (quote it; the value is not shown, it may hold a secret)';

/** A string that may be a secret (a token): a value of another type is refused without being quoted. */
export const secretStringSchema = z.custom<string>((value) => typeof value === 'string', { message: NOT_A_STRING_SECRET });

/** RFC 9110 token: what an HTTP header name may be (a name with a space or colon would be refused only when sent). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * What a header value may hold: printable ASCII, spaces and tabs. The HTTP client refuses control
 * characters and anything above U+00FF only when it sends, so every delivery of the action would
 * fail; U+0080 to U+00FF it sends as single Latin-1 bytes, which a receiver reading UTF-8 (as
 * nearly all do) turns into other text. Checked on the value after `${NAME}` substitution.
 */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/**
 * Headers Warden sets itself on every request to a customer's endpoint (docs/callbacks.md,
 * docs/partial-items.md), and those its HTTP client manages: a configured one would be overwritten
 * or dropped without a word.
 */
const RESERVED_HEADERS: ReadonlySet<string> = new Set(['content-type', 'service-signature', 'service-delivery-id', ...CLIENT_MANAGED_HEADERS]);

/** Extra headers of a request to a customer's endpoint: names and values it can send, none of Warden's own. */
export const httpHeadersSchema = z
  // Values typed here rather than by the record: zod's type problem would quote the value (a secret).
  .record(z.string(), z.unknown())
  .default({})
  .superRefine((headers, ctx) => {
    // Header names ignore case: two spellings of one name would be sent as one, the last winning.
    const seen = new Map<string, string>();
    for (const [name, value] of Object.entries(headers)) {
      const earlier = seen.get(name.toLowerCase());
      seen.set(name.toLowerCase(), name);
      const problem = !HEADER_NAME.test(name)
        ? "is not an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)"
        : earlier !== undefined
          ? `repeats header ${JSON.stringify(earlier)} (header names ignore case)`
          : RESERVED_HEADERS.has(name.toLowerCase())
            ? 'is set by Warden itself'
            : typeof value !== 'string'
              ? NOT_A_STRING_SECRET
              : !HEADER_VALUE.test(value)
                ? 'must be printable ASCII, spaces and tabs (an HTTP header value; encode other text, e.g. as percent-encoded UTF-8)'
                : null;
      // The name, not the value, in the problem: the value may be a secret.
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, path: [name], input: name });
    }
  })
  .transform((headers) => headers as Record<string, string>);

/**
 * A URL whose user info is sent as `Authorization: Basic …` (kernel's withUserInfoAsBasic), beside
 * its configured headers: user info Basic cannot carry is refused, and so is a configured
 * `Authorization` header next to it: one of the two would have to be dropped without a word, and
 * a receiver answering 401 to the credentials it did not get is hard to trace back to the URL.
 * The problem is at the URL's path, which is never quoted; `docs` names where the page says so.
 */
export function checkUrlUserInfo(url: string, headers: Record<string, string>, docs: string, ctx: z.RefinementCtx): void {
  const problem =
    basicCredentialsProblem(url) ??
    (hasUserInfo(url) && Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')
      ? `has user info, sent as Authorization: Basic, and headers set Authorization too: keep one (${docs})`
      : null);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, path: ['url'], input: '' });
}

/** Where actions and appeal decisions are sent; user info in the URL is sent as Basic credentials (checkUrlUserInfo). */
export const callbackSchema = z
  .strictObject({
    url: httpUrlSchema,
    headers: httpHeadersSchema,
  })
  .superRefine(({ url, headers }, ctx) => checkUrlUserInfo(url, headers, 'docs/callbacks.md, "Credentials in the URL"', ctx));

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** Patterns run on re2js at evaluation time, so only what RE2 accepts is valid. */
function re2SyntaxError(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}
