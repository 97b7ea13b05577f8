import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, type Stats, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { ConfigError, type WardenConfig } from '#warden/platform';

/** A secret at rest: AES-256-GCM under the keyring key `kid`. */
export interface SealedSecret {
  readonly kid: string;
  readonly iv: string;
  readonly ct: string;
  readonly tag: string;
}

export const isSealedSecret = (v: unknown): v is SealedSecret => typeof v === 'object' && v !== null && 'kid' in v && 'ct' in v && 'iv' in v && 'tag' in v;

/**
 * Encrypts configuration secrets (callback header values, SSO certificates). The first key seals;
 * every key opens, so a new key can be put in front and old ciphertexts keep working (rotation).
 */
export class Keyring {
  private readonly keys: ReadonlyMap<string, Buffer>;
  readonly currentKid: string;
  /**
   * Secrets already opened, by their sealed form: every callback delivery opens its destination's
   * URL and headers, sealed once when the configuration was applied, so the same few ciphertexts
   * come back thousands of times a minute (a decipher each: 2 % of a worker's time in a flood,
   * measured). Held in memory only, for the process's life (at most OPENED_KEPT, then forgotten
   * at once), including values a later configuration no longer uses; never written anywhere.
   */
  private readonly opened = new Map<string, string>();

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
    // Every field in the memo's key: a ciphertext, tag or iv changed by one bit is a miss, and
    // fails its authentication below as it always did.
    const memoKey = `${sealed.kid}.${sealed.iv}.${sealed.tag}.${sealed.ct}`;
    const known = this.opened.get(memoKey);
    if (known !== undefined) return known;
    const key = this.keys.get(sealed.kid);
    if (!key) throw new Error(`No key ${sealed.kid} in the keyring (WARDEN_SECRET_KEY, WARDEN_SECRET_KEY_FILE or secret.key) to open a stored secret`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    const plaintext = Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64')), decipher.final()]).toString('utf8');
    if (this.opened.size >= OPENED_KEPT) this.opened.clear();
    this.opened.set(memoKey, plaintext);
    return plaintext;
  }
}

/** At most this many opened secrets kept (then all forgotten at once): a deployment has a few destinations. */
const OPENED_KEPT = 1_024;

/** The key id is derived from the key, so operators only ever handle the keys themselves. */
const keyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 12);

export const KEY_FILE = 'secret.key';

/**
 * The keyring's keys: comma-separated base64 keys of 32 bytes, the first one current, from
 * `WARDEN_SECRET_KEY` or from the file `WARDEN_SECRET_KEY_FILE` names (kept outside the data
 * directory, so that a backup of the data does not carry the key that opens its secrets). With
 * neither, on the embedded profile a key is generated once in the data directory (and reported);
 * with a production store that is refused, since other instances could not read the secrets.
 */
export function loadKeyring(
  source: Pick<WardenConfig, 'secretKey' | 'secretKeyFile'>,
  options: { dataDir: string; production: boolean },
): { keyring: Keyring; notice: string | undefined } {
  const generated = join(options.dataDir, KEY_FILE);
  if (source.secretKey !== undefined || source.secretKeyFile !== undefined) {
    const keys = source.secretKey !== undefined ? parseKeys(source.secretKey, 'WARDEN_SECRET_KEY') : readKeyFile(source.secretKeyFile!, options.dataDir);
    const from = source.secretKey !== undefined ? 'WARDEN_SECRET_KEY' : 'WARDEN_SECRET_KEY_FILE';
    // A key generated before the operator moved it out: it still travels with every backup.
    const notice = existsSync(generated)
      ? `${generated} is no longer read (the keyring comes from ${from}); once ${from} holds its key, delete it so that backups of the data directory no longer carry it`
      : undefined;
    return { keyring: new Keyring(keys), notice };
  }
  if (options.production) {
    throw new ConfigError('WARDEN_SECRET_KEY', 'or WARDEN_SECRET_KEY_FILE must be set when WARDEN_EVENTSTORE_URL or WARDEN_MONGO_URL is set');
  }
  if (existsSync(generated)) return { keyring: new Keyring(keysInFile(readFileSync(generated, 'utf8'), generated)), notice: undefined };
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  let created = true;
  try {
    // 'wx': when the CLI and the server start together, exactly one of them writes the key.
    writeFileSync(generated, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    created = false;
  }
  return {
    keyring: new Keyring(keysInFile(readFileSync(generated, 'utf8'), generated)),
    notice: created
      ? `WARDEN_SECRET_KEY is not set: generated one in ${generated}; it opens the secrets sealed in the data, so move it out of the data directory (WARDEN_SECRET_KEY_FILE) and back it up apart (operations.md, "The secret key")`
      : undefined,
  };
}

const KEY_FILE_VARIABLE = 'WARDEN_SECRET_KEY_FILE';

/**
 * The keys in the file WARDEN_SECRET_KEY_FILE names, refused inside the data directory (where
 * every backup would carry it again) and unless only Warden's user can read it and nobody else
 * can change it (keyFileAccessProblem): a key file others can read is a key others have. A
 * symbolic link (a Kubernetes secret volume) is judged by its target.
 */
function readKeyFile(path: string, dataDir: string): Buffer[] {
  let real: string;
  let stats: Stats;
  try {
    real = realpathSync(path);
    stats = statSync(real);
  } catch (error) {
    throw new ConfigError(KEY_FILE_VARIABLE, `names ${path}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (!stats.isFile()) throw new ConfigError(KEY_FILE_VARIABLE, `names ${path}, which is not a file`);
  if (inside(real, dataDir)) {
    throw new ConfigError(
      KEY_FILE_VARIABLE,
      `names ${path}, inside the data directory ${dataDir}: every backup of the data directory would carry the key; keep it elsewhere (e.g. /etc/warden/secret.key)`,
    );
  }
  const problem = keyFileAccessProblem(stats, process.getuid?.());
  if (problem) throw new ConfigError(KEY_FILE_VARIABLE, `names ${path}, which ${problem}`);
  let text: string;
  try {
    text = readFileSync(real, 'utf8');
  } catch (error) {
    throw new ConfigError(KEY_FILE_VARIABLE, `names ${path}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return keysInFile(text, KEY_FILE_VARIABLE);
}

/** A file's keys: one key a line reads as naturally as a comma-separated list. */
const keysInFile = (text: string, source: string) => parseKeys(text.replace(/\s+/g, ','), source);

/**
 * Why the key file's owner or mode (`file`) lets someone besides Warden's user (`uid`) read or
 * change it; undefined when nobody can.
 */
export function keyFileAccessProblem(file: Pick<Stats, 'uid' | 'mode'>, uid: number | undefined): string | undefined {
  // No user ids, no modes to speak of (Windows): the file's ACL is the operator's to set.
  if (uid === undefined) return undefined;
  const mode = (file.mode & 0o777).toString(8).padStart(4, '0');
  if (file.uid !== uid && file.uid !== 0) {
    return `belongs to user ${file.uid}, who could change the key: it must belong to the user Warden runs as (${uid}) or to root`;
  }
  if ((file.mode & 0o007) !== 0) return `every user can access (mode ${mode}): make it readable by Warden's user only (chmod 600)`;
  if ((file.mode & 0o020) !== 0) return `its group can change (mode ${mode}): chmod 600, or 640 on a file owned by root`;
  // A group may share a key only that root hands out (root:warden 0640, as a secrets volume mounts it).
  if ((file.mode & 0o040) !== 0 && file.uid !== 0) return `its group can read (mode ${mode}): chmod 600, or give it to root with mode 640`;
  return undefined;
}

/** Whether `path` (resolved) lies in `dir` or below, symbolic links of either resolved. */
function inside(path: string, dir: string): boolean {
  let base: string;
  try {
    base = realpathSync(dir);
  } catch {
    base = dir;
  }
  const rel = relative(base, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** `source`: the variable or file the keys came from, for the message. */
function parseKeys(value: string, source: string): Buffer[] {
  const keys = value
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map((k) => Buffer.from(k, 'base64'));
  if (keys.length === 0 || keys.some((k) => k.length !== 32)) {
    throw new ConfigError(source, `must ${source === 'WARDEN_SECRET_KEY' ? 'be' : 'hold'} a comma-separated list of base64-encoded 32-byte keys`);
  }
  return keys;
}

export const KEYRING = Symbol('Keyring');
