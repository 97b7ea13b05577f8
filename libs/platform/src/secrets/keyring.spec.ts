import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/warden-config.js';
import { KEY_FILE, Keyring, loadKeyring } from './keyring.js';

const key = (n: number) => Buffer.alloc(32, n);

describe('keyring', () => {
  it('seals with a fresh IV each time and opens what it sealed', () => {
    const ring = new Keyring([key(1)]);
    const a = ring.seal('Bearer s3cret');
    const b = ring.seal('Bearer s3cret');
    expect(a.ct).not.toBe(b.ct);
    expect(JSON.stringify(a)).not.toContain('s3cret');
    expect(ring.open(a)).toBe('Bearer s3cret');
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
    const { keyring, notice } = loadKeyring(value, { dataDir: '/nonexistent', production: true });
    expect(keyring.currentKid).toBe(new Keyring([key(2)]).currentKid);
    expect(notice).toBeUndefined();
    expect(() => loadKeyring('short', { dataDir: '/x', production: false })).toThrow(ConfigError);
    expect(() => loadKeyring(undefined, { dataDir: '/x', production: true })).toThrow(/WARDEN_SECRET_KEY must be set/);
  });

  it('generates a key once in the data directory on the embedded profile, and says so', () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-keyring-'));
    const first = loadKeyring(undefined, { dataDir: dir, production: false });
    expect(first.notice).toContain(join(dir, KEY_FILE));
    expect(statSync(join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
    const second = loadKeyring(undefined, { dataDir: dir, production: false });
    expect(second.notice).toBeUndefined();
    expect(second.keyring.open(first.keyring.seal('x'))).toBe('x');
    expect(Buffer.from(readFileSync(join(dir, KEY_FILE), 'utf8').trim(), 'base64')).toHaveLength(32);
  });
});
