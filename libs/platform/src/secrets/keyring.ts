import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/warden-config.js';

/** A secret at rest: AES-256-GCM under the keyring key `kid`. */
export interface SealedSecret {
  readonly kid: string;
  readonly iv: string;
  readonly ct: string;
  readonly tag: string;
}

export const isSealedSecret = (v: unknown): v is SealedSecret =>
  typeof v === 'object' && v !== null && 'kid' in v && 'ct' in v && 'iv' in v && 'tag' in v;

/**
 * Encrypts configuration secrets (callback header values, SSO certificates). The first key seals;
 * every key opens, so a new key can be put in front and old ciphertexts keep working (rotation).
 */
export class Keyring {
  private readonly keys: ReadonlyMap<string, Buffer>;
  readonly currentKid: string;

  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new Error('A keyring needs at least one key');
    const entries = keys.map((k) => [keyId(k), k] as const);
    this.keys = new Map(entries);
    this.currentKid = entries[0]![0];
  }

  seal(plaintext: string): SealedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKid)!, iv);
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { kid: this.currentKid, iv: iv.toString('base64'), ct: ct.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
  }

  open(sealed: SealedSecret): string {
    const key = this.keys.get(sealed.kid);
    if (!key) throw new Error(`No key ${sealed.kid} in WARDEN_SECRET_KEY to open a stored secret`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64')), decipher.final()]).toString('utf8');
  }
}

/** The key id is derived from the key, so operators only ever handle the keys themselves. */
const keyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 12);

export const KEY_FILE = 'secret.key';

/**
 * `WARDEN_SECRET_KEY`: comma-separated base64 keys of 32 bytes, the first one current. Unset on
 * the embedded profile: a key is generated once in the data directory (and reported). Unset with
 * a production store: refused, since other instances could not read the secrets.
 */
export function loadKeyring(
  value: string | undefined,
  options: { dataDir: string; production: boolean },
): { keyring: Keyring; notice: string | undefined } {
  if (value !== undefined) return { keyring: new Keyring(parseKeys(value)), notice: undefined };
  if (options.production) {
    throw new ConfigError('WARDEN_SECRET_KEY', 'must be set when WARDEN_EVENTSTORE_URL or WARDEN_MONGO_URL is set');
  }
  const file = join(options.dataDir, KEY_FILE);
  if (existsSync(file)) return { keyring: new Keyring(parseKeys(readFileSync(file, 'utf8').trim())), notice: undefined };
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  let created = true;
  try {
    // 'wx': when the CLI and the server start together, exactly one of them writes the key.
    writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false;
  }
  return {
    keyring: new Keyring(parseKeys(readFileSync(file, 'utf8').trim())),
    notice: created ? `WARDEN_SECRET_KEY is not set: generated one in ${file}; back it up with the data` : undefined,
  };
}

function parseKeys(value: string): Buffer[] {
  const keys = value
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map((k) => Buffer.from(k, 'base64'));
  if (keys.length === 0 || keys.some((k) => k.length !== 32)) {
    throw new ConfigError('WARDEN_SECRET_KEY', 'must be a comma-separated list of base64-encoded 32-byte keys');
  }
  return keys;
}

export const KEYRING = Symbol('Keyring');
