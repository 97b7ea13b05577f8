import { invalidField } from '#warden/kernel';

/**
 * What a new password must be, after NIST SP 800-63B (5.1.1.2, "memorized secret verifiers"):
 * long enough, any printable Unicode (spaces too), and not one an attacker tries first: a common
 * or breached password, one built on the account's own address or the service's name, or a
 * repeated or sequential pattern. No composition rules (a digit, a capital, a symbol) and no
 * forced expiry: NIST advises against both. Checked for new passwords only; a password set before
 * these rules still signs in (and is rehashed as it is).
 */
export const MIN_PASSWORD_CHARS = 12;
export const MAX_PASSWORD_BYTES = 1024;

export type PasswordProblem = 'required' | 'too-long' | 'not-text' | 'control-character' | 'too-short' | 'repetitive' | 'common' | 'context';

/** Words that belong to the account and the service: a password built on them is the first guess. */
export interface PasswordContext {
  readonly email?: string | null;
}

/** Names this service in the context words: a password built on it is guessed with it. */
const SERVICE_WORDS = ['warden', 'wardenconsole', 'warden console'];

/** The same sentence in the API's `detail`, the CLI's error line and the console's field message. */
const DETAILS: Record<PasswordProblem, string> = {
  required: 'A password is required',
  'too-long': `A password has at most ${MAX_PASSWORD_BYTES} bytes`,
  'not-text': 'A password must be text (it contains a broken Unicode character)',
  'control-character': 'A password cannot contain control characters (such as NUL, a tab or a line break)',
  'too-short': `A password has at least ${MIN_PASSWORD_CHARS} characters`,
  repetitive: 'This password is a repeated or sequential pattern (like "aaaa", "abcabc" or "123456"); choose one that is not',
  common: 'This password is on a list of common or breached passwords, or is one with digits or symbols added; choose another',
  context: 'A password cannot be built on your email address or the name of this service',
};

export function passwordProblemDetail(problem: PasswordProblem): string {
  return DETAILS[problem];
}

/** The form compared with the list: compatibility-folded (full-width letters are letters) and lower-cased, as the list is. */
const folded = (text: string) => text.normalize('NFKC').toLowerCase();

/**
 * The password without the digits, punctuation, symbols and spaces around it: crackers try
 * every listed password with such additions first (`Password2024!`, `!!dragon!!`).
 */
const core = (text: string) => text.replace(/^[\p{N}\p{P}\p{S}\p{Z}]+|[\p{N}\p{P}\p{S}\p{Z}]+$/gu, '');

/** One character repeated, or a sequence stepping up or down by one (digits wrap: 7890123). */
function runLength(chars: readonly number[], start: number): number {
  const step = (a: number, b: number) => {
    const digits = a >= 48 && a <= 57 && b >= 48 && b <= 57;
    const d = b - a;
    return digits && Math.abs(d) === 9 ? -Math.sign(d) : d;
  };
  if (start + 1 >= chars.length) return 1;
  const first = step(chars[start]!, chars[start + 1]!);
  if (first !== 0 && first !== 1 && first !== -1) return 1;
  let end = start + 1;
  while (end + 1 < chars.length && step(chars[end]!, chars[end + 1]!) === first) end++;
  return end - start + 1;
}

/**
 * Repetitive: a shorter text repeated (`abcabcabcabc`, `iloveyouiloveyou`), or nothing but runs
 * of at least three characters that repeat one character or step by one (`aaaaaaaaaaaa`,
 * `aaaaaaaabcde`, `111122223333`, `abcdef123456`); spaces aside.
 */
export function isRepetitive(password: string): boolean {
  const text = folded(password);
  // Spaces between the pieces hide no pattern: `lol lol lol lol` is `lol` four times.
  return patterned(text) || patterned(text.replace(/\s+/gu, ''));
}

function patterned(text: string): boolean {
  const chars = [...text].map((c) => c.codePointAt(0)!);
  for (let unit = 1; unit <= chars.length / 2; unit++) {
    if (chars.length % unit === 0 && chars.every((c, i) => c === chars[i % unit])) return true;
  }
  let at = 0;
  while (at < chars.length) {
    const run = runLength(chars, at);
    if (run < 3) return false;
    at += run;
  }
  return true;
}

/** A listed password, or one with only digits, punctuation, symbols or spaces around it. */
function builtOn(password: string, words: ReadonlySet<string>): boolean {
  const text = folded(password);
  const stripped = core(text);
  return words.has(text) || (stripped !== '' && words.has(stripped)) || words.has(text.replace(/\s+/g, ''));
}

function contextWords(context: PasswordContext): Set<string> {
  const words = new Set(SERVICE_WORDS);
  if (context.email) {
    const email = folded(context.email);
    words.add(email);
    const local = email.slice(0, email.lastIndexOf('@'));
    if (local.length > 0) words.add(local);
  }
  return words;
}

/**
 * The first reason `password` cannot be a new password, or null: the checks of a new password,
 * in the order a person fixes them. `blocklist` holds the common and breached passwords, folded.
 */
export function passwordProblem(password: unknown, blocklist: ReadonlySet<string>, context: PasswordContext = {}): PasswordProblem | null {
  if (typeof password !== 'string' || password === '') return 'required';
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return 'too-long';
  // A lone surrogate cannot be normalized or hashed as the same text twice.
  if (!password.isWellFormed()) return 'not-text';
  // C0, DEL and C1 controls: never typed on purpose, and what breaks a form or a terminal.
  if (/\p{Cc}/u.test(password)) return 'control-character';
  if ([...password].length < MIN_PASSWORD_CHARS) return 'too-short';
  if (isRepetitive(password)) return 'repetitive';
  if (builtOn(password, blocklist)) return 'common';
  if (builtOn(password, contextWords(context))) return 'context';
  return null;
}

let loaded: Promise<ReadonlySet<string>> | undefined;

/**
 * The common and breached passwords of zxcvbn-ts's common language package (about 49,000, from
 * public breach corpora), shipped in the npm package: nothing is fetched at run time. Loaded on
 * the first new password only (decompressing it takes about 0.1 s), so other CLI calls never pay.
 */
export function commonPasswords(): Promise<ReadonlySet<string>> {
  loaded ??= import('@zxcvbn-ts/language-common').then(({ dictionary }) => new Set(dictionary['passwords-common'].map((word) => folded(String(word)))));
  return loaded;
}

/**
 * The password, or a 400 (`/errors/invalid-user-input`) whose detail says why and whose pointer
 * is `/password`.
 */
export async function checkedPassword(password: unknown, context: PasswordContext = {}): Promise<string> {
  const problem = passwordProblem(password, await commonPasswords(), context);
  if (problem !== null) throw invalidField('/password', DETAILS[problem]);
  return password as string;
}
