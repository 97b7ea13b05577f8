import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';

export interface ScryptParams {
  /** log2 of the CPU/memory cost N. */
  readonly ln: number;
  readonly r: number;
  readonly p: number;
}

/**
 * OWASP Password Storage Cheat Sheet (scrypt): N=2^17,r=8,p=1 or any of its equal-cost
 * variants, among them N=2^15,r=8,p=3. This one: the same work, a quarter of the memory per
 * hash (32 MiB instead of 128), so concurrent sign-ins cannot exhaust a small server's memory.
 * Stored with each hash, so raising them later only needs a new value here (old hashes verify
 * with their own; `needsRehash` says when to replace one).
 */
export const CURRENT_PARAMS: ScryptParams = { ln: 15, r: 8, p: 3 };

const SALT_BYTES = 16;
const KEY_BYTES = 32;
const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

function derive(password: string, salt: Buffer, params: ScryptParams, length: number): Promise<Buffer> {
  const N = 2 ** params.ln;
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** A self-describing hash: `$scrypt$ln=15,r=8,p=3$<salt>$<key>` (base64), with a fresh random salt. */
export async function hashPassword(password: string, params: ScryptParams = CURRENT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params, KEY_BYTES);
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; key: Buffer } | undefined {
  const m = FORMAT.exec(stored);
  if (!m) return undefined;
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  // Bounds keep a corrupt stored string from costing minutes or gigabytes.
  if (params.ln < 10 || params.ln > 20 || params.r < 1 || params.r > 32 || params.p < 1 || params.p > 16) return undefined;
  return { params, salt: Buffer.from(m[4]!, 'base64'), key: Buffer.from(m[5]!, 'base64') };
}

/** Whether `password` matches `stored`, computed with the parameters recorded in it; constant-time compare. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed || parsed.key.length === 0) return false;
  const key = await derive(password, parsed.salt, parsed.params, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

/** A hash made with weaker parameters than `current`: replace it at the next successful sign-in. */
export function needsRehash(stored: string, current: ScryptParams = CURRENT_PARAMS): boolean {
  const parsed = parse(stored);
  if (!parsed) return true;
  const { ln, r, p } = parsed.params;
  return 2 ** ln * r * p < 2 ** current.ln * current.r * current.p;
}

/** One dummy hash per parameters in use (a process uses one set). */
const dummies = new Map<string, Promise<string>>();

/**
 * Spends the time a real verification takes, for an unknown email or a user without a
 * password, so the answer's timing does not tell who has an account. Always false.
 */
export async function verifyAgainstDummy(password: string, params: ScryptParams = CURRENT_PARAMS): Promise<false> {
  const key = `${params.ln},${params.r},${params.p}`;
  let dummy = dummies.get(key);
  if (!dummy) dummies.set(key, (dummy = hashPassword(randomBytes(24).toString('base64'), params)));
  await verifyPassword(password, await dummy);
  return false;
}
