import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const EXAMPLE = join(ROOT, 'examples/acme.yaml');
export const exampleText = () => readFileSync(EXAMPLE, 'utf8');
/** The README's example IdP certificate: the example enables SAML, which needs a real one. */
export const EXAMPLE_IDP_CERT = readFileSync(join(ROOT, 'examples/idp-example.pem'), 'utf8');

/** Writes a variant of the example next to a copy of its hashes file; returns its path. */
export function writeConfig(text: string, name = 'config.yaml'): string {
  const dir = mkdtempSync(join(tmpdir(), 'warden-config-'));
  mkdirSync(join(dir, 'banks'));
  copyFileSync(join(ROOT, 'examples/banks/known-bad.txt'), join(dir, 'banks/known-bad.txt'));
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The example with one substring replaced; fails loudly when the substring is not there. */
export function exampleWith(from: string | RegExp, to: string): string {
  const text = exampleText();
  const next = text.replace(from, to);
  if (next === text) throw new Error(`The example does not contain ${String(from)}`);
  return next;
}

/** Reads the embedded log directly, to count what an apply appended. */
export function eventCount(dataDir: string, where = '1 = 1'): number {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM events WHERE ${where}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

export function rawLog(dataDir: string): string {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  try {
    return (db.prepare('SELECT type, data FROM events').all() as Array<{ type: string; data: string }>)
      .map((r) => `${r.type} ${r.data}`)
      .join('\n');
  } finally {
    db.close();
  }
}
