import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '#warden/platform';
import { KEY_FILE, keyFileAccessProblem, Keyring, loadKeyring } from './keyring.js';

const key = (n: number) => Buffer.alloc(32, n);
const b64 = (n: number) => key(n).toString('base64');
const fromEnv = (secretKey: string | undefined) => ({ secretKey, secretKeyFile: undefined });
const fromFile = (secretKeyFile: string) => ({ secretKey: undefined, secretKeyFile });
/** The message of the ConfigError `load` throws. */
const refusal = (load: () => unknown): string => {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('loaded');
};

describe('keyring', () => {
  it('seals with a fresh IV each time and opens what it sealed', () => {
    const ring = new Keyring([key(1)]);
    const a = ring.seal('Bearer s3cret');
    const b = ring.seal('Bearer s3cret');
    expect(a.ct).not.toBe(b.ct);
    expect(JSON.stringify(a)).not.toContain('s3cret');
    expect(ring.open(a)).toBe('Bearer s3cret');
  });

  it('opens the same sealed secret again without failing a tampered copy of it (the memo keys every field)', () => {
    const ring = new Keyring([key(1)]);
    const sealed = ring.seal('https://hooks.example.test/cb?token=t0k3n');
    expect(ring.open(sealed)).toBe('https://hooks.example.test/cb?token=t0k3n');
    expect(ring.open({ ...sealed })).toBe('https://hooks.example.test/cb?token=t0k3n');
    const flip = (b64text: string) => {
      const bytes = Buffer.from(b64text, 'base64');
      bytes[0] = bytes[0]! ^ 1;
      return bytes.toString('base64');
    };
    for (const field of ['ct', 'tag', 'iv'] as const) expect(() => ring.open({ ...sealed, [field]: flip(sealed[field]) })).toThrow();
    expect(() => ring.open({ ...sealed, kid: 'another' })).toThrow(/No key another/);
    // Past what it keeps, it still opens every one.
    const many = Array.from({ length: 1_500 }, (_, i) => ring.seal(`secret-${i}`));
    expect(many.map((m) => ring.open(m))).toEqual(many.map((_, i) => `secret-${i}`));
    expect(ring.open(sealed)).toBe('https://hooks.example.test/cb?token=t0k3n');
  });

  it('rotates: a new key in front seals, the old one still opens', () => {
    const old = new Keyring([key(1)]).seal('v1');
    const rotated = new Keyring([key(2), key(1)]);
    expect(rotated.open(old)).toBe('v1');
    expect(rotated.seal('v2').kid).not.toBe(old.kid);
    expect(() => new Keyring([key(3)]).open(old)).toThrow(/No key/);
  });

  it('reads WARDEN_SECRET_KEY and refuses a malformed one', () => {
    const value = `${key(2).toString('base64')},${key(1).toString('base64')}`;
    const { keyring, notice } = loadKeyring(fromEnv(value), { dataDir: '/nonexistent', production: true });
    expect(keyring.currentKid).toBe(new Keyring([key(2)]).currentKid);
    expect(notice).toBeUndefined();
    expect(() => loadKeyring(fromEnv('short'), { dataDir: '/x', production: false })).toThrow(ConfigError);
    expect(() => loadKeyring(fromEnv(undefined), { dataDir: '/x', production: true })).toThrow(
      'WARDEN_SECRET_KEY or WARDEN_SECRET_KEY_FILE must be set when WARDEN_EVENTSTORE_URL or WARDEN_MONGO_URL is set',
    );
  });

  it('generates a key once in the data directory on the embedded profile, and says so', () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-keyring-'));
    const first = loadKeyring(fromEnv(undefined), { dataDir: dir, production: false });
    expect(first.notice).toContain(join(dir, KEY_FILE));
    expect(statSync(join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
    const second = loadKeyring(fromEnv(undefined), { dataDir: dir, production: false });
    expect(second.notice).toBeUndefined();
    expect(second.keyring.open(first.keyring.seal('x'))).toBe('x');
    expect(Buffer.from(readFileSync(join(dir, KEY_FILE), 'utf8').trim(), 'base64')).toHaveLength(32);
  });

  describe('from a key file outside the data directory (WARDEN_SECRET_KEY_FILE)', () => {
    /** A data directory and, apart from it, a key file holding `text` with `mode`. */
    const setup = (text: string, mode = 0o600) => {
      const root = mkdtempSync(join(tmpdir(), 'warden-keyfile-'));
      const dataDir = join(root, 'data');
      mkdirSync(join(root, 'keys'));
      const file = join(root, 'keys', 'secret.key');
      writeFileSync(file, text);
      chmodSync(file, mode);
      return { root, dataDir, file };
    };

    it('reads its keys, one a line or comma-separated, the first current, and generates nothing in the data directory', () => {
      const lines = setup(`${b64(2)}\n${b64(1)}\n`);
      const { keyring, notice } = loadKeyring(fromFile(lines.file), { dataDir: lines.dataDir, production: false });
      expect(keyring.currentKid).toBe(new Keyring([key(2)]).currentKid);
      expect(keyring.open(new Keyring([key(1)]).seal('old'))).toBe('old');
      expect(notice).toBeUndefined();
      expect(existsSync(join(lines.dataDir, KEY_FILE))).toBe(false);
      const commas = setup(`${b64(3)}, ${b64(1)}`, 0o400);
      expect(loadKeyring(fromFile(commas.file), { dataDir: commas.dataDir, production: true }).keyring.currentKid).toBe(new Keyring([key(3)]).currentKid);
    });

    it('follows a symbolic link (a mounted secret) to the file it checks', () => {
      const { root, dataDir, file } = setup(b64(4));
      const link = join(root, 'current.key');
      symlinkSync(file, link);
      expect(loadKeyring(fromFile(link), { dataDir, production: false }).keyring.currentKid).toBe(new Keyring([key(4)]).currentKid);
    });

    it('says that a key generated earlier in the data directory is no longer read, and should go', () => {
      const { dataDir, file } = setup(b64(5));
      loadKeyring(fromEnv(undefined), { dataDir, production: false });
      const { notice } = loadKeyring(fromFile(file), { dataDir, production: false });
      expect(notice).toBe(
        `${join(dataDir, KEY_FILE)} is no longer read (the keyring comes from WARDEN_SECRET_KEY_FILE); once WARDEN_SECRET_KEY_FILE holds its key, delete it so that backups of the data directory no longer carry it`,
      );
    });

    it('refuses a file that every user can read, or that is missing, a directory, empty or malformed, naming it', () => {
      const open = setup(b64(1), 0o644);
      expect(refusal(() => loadKeyring(fromFile(open.file), { dataDir: open.dataDir, production: false }))).toBe(
        `Invalid configuration: WARDEN_SECRET_KEY_FILE names ${open.file}, which every user can access (mode 0644): make it readable by Warden's user only (chmod 600)`,
      );
      const { root, dataDir } = setup(b64(1));
      const missing = join(root, 'keys', 'nothing.key');
      expect(refusal(() => loadKeyring(fromFile(missing), { dataDir, production: false }))).toBe(
        `Invalid configuration: WARDEN_SECRET_KEY_FILE names ${missing}, which cannot be read (ENOENT)`,
      );
      expect(refusal(() => loadKeyring(fromFile(join(root, 'keys')), { dataDir, production: false }))).toContain('which is not a file');
      for (const text of ['', '\n', 'not-a-key', `${b64(1)},c2hvcnQ=`]) {
        const bad = setup(text);
        expect(refusal(() => loadKeyring(fromFile(bad.file), { dataDir: bad.dataDir, production: false }))).toBe(
          'Invalid configuration: WARDEN_SECRET_KEY_FILE must hold a comma-separated list of base64-encoded 32-byte keys',
        );
      }
    });

    it('refuses a key file in the data directory, however it is reached', () => {
      const { root, dataDir } = setup(b64(1));
      mkdirSync(dataDir);
      const within = join(dataDir, 'my.key');
      writeFileSync(within, b64(1), { mode: 0o600 });
      expect(refusal(() => loadKeyring(fromFile(within), { dataDir, production: false }))).toContain(
        `names ${within}, inside the data directory ${dataDir}: every backup of the data directory would carry the key`,
      );
      const link = join(root, 'outside-looking.key');
      symlinkSync(within, link);
      expect(refusal(() => loadKeyring(fromFile(link), { dataDir, production: false }))).toContain('inside the data directory');
      // A directory whose name merely starts with two dots is still inside.
      mkdirSync(join(dataDir, '..keys'));
      const dotted = join(dataDir, '..keys', 'k');
      writeFileSync(dotted, b64(1), { mode: 0o600 });
      expect(refusal(() => loadKeyring(fromFile(dotted), { dataDir, production: false }))).toContain('inside the data directory');
      // The data directory reached through a link of its own.
      const dataLink = join(root, 'data-link');
      symlinkSync(dataDir, dataLink);
      expect(refusal(() => loadKeyring(fromFile(within), { dataDir: dataLink, production: false }))).toContain('inside the data directory');
    });

    it.each([
      // [owner, mode, process uid, refused because]
      [1000, 0o600, 1000, undefined],
      [1000, 0o400, 1000, undefined],
      [0, 0o600, 1000, undefined],
      [0, 0o640, 1000, undefined],
      [0, 0o440, 1000, undefined],
      [1000, 0o640, 1000, 'its group can read (mode 0640): chmod 600, or give it to root with mode 640'],
      [1000, 0o620, 1000, 'its group can change (mode 0620): chmod 600, or 640 on a file owned by root'],
      [0, 0o660, 1000, 'its group can change (mode 0660): chmod 600, or 640 on a file owned by root'],
      [1000, 0o604, 1000, "every user can access (mode 0604): make it readable by Warden's user only (chmod 600)"],
      [0, 0o644, 1000, "every user can access (mode 0644): make it readable by Warden's user only (chmod 600)"],
      [1000, 0o601, 1000, "every user can access (mode 0601): make it readable by Warden's user only (chmod 600)"],
      [1001, 0o600, 1000, 'belongs to user 1001, who could change the key: it must belong to the user Warden runs as (1000) or to root'],
      [1001, 0o600, 0, 'belongs to user 1001, who could change the key: it must belong to the user Warden runs as (0) or to root'],
      [1001, 0o644, undefined, undefined],
    ] as const)('judges a key file of user %s with mode %o, read by user %s: %s', (owner, mode, uid, problem) => {
      expect(keyFileAccessProblem({ uid: owner, mode: 0o100000 | mode }, uid)).toBe(problem);
    });
  });
});
