import { readFileSync, realpathSync, statSync } from 'node:fs';
import { ConfigError } from '#warden/platform';
import { keyFileAccessProblem } from '#warden/storage';

const VARIABLE = 'WARDEN_NATS_CREDENTIALS_FILE';

/** Warden's own credentials on the broker, as the file WARDEN_NATS_CREDENTIALS_FILE holds them. */
export type NatsCredentials =
  /** A decentralized-auth `.creds` file (the user's JWT and nkey seed), as `nsc` writes it. */
  | { readonly kind: 'creds'; readonly creds: Uint8Array }
  /** An nkey user's seed (`SU…`). */
  | { readonly kind: 'nkey'; readonly seed: Uint8Array }
  /** `user:password`, one line. */
  | { readonly kind: 'password'; readonly user: string; readonly password: string };

/**
 * Reads and checks the credentials file: a secret by reference, like WARDEN_SECRET_KEY_FILE, so
 * it is refused when users other than Warden's could read or change it (keyFileAccessProblem).
 * Its content is never repeated in a message.
 */
export function readNatsCredentials(path: string): NatsCredentials {
  let text: string;
  try {
    const real = realpathSync(path);
    const stats = statSync(real);
    if (!stats.isFile()) throw new ConfigError(VARIABLE, `names ${path}, which is not a file`);
    const problem = keyFileAccessProblem(stats, process.getuid?.());
    if (problem) throw new ConfigError(VARIABLE, `names ${path}, which ${problem.replace('the key', 'the credentials')}`);
    text = readFileSync(real, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(VARIABLE, `names ${path}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const credentials = parseNatsCredentials(text);
  if (credentials === undefined) {
    throw new ConfigError(VARIABLE, `names ${path}, which holds neither a NATS .creds file, an nkey seed (SU…) nor one user:password line`);
  }
  return credentials;
}

export function parseNatsCredentials(text: string): NatsCredentials | undefined {
  if (text.includes('-----BEGIN NATS USER JWT-----')) return { kind: 'creds', creds: new TextEncoder().encode(text) };
  const line = text.trim();
  if (/^SU[A-Z2-7]{50,}$/.test(line)) return { kind: 'nkey', seed: new TextEncoder().encode(line) };
  const colon = line.indexOf(':');
  if (colon > 0 && colon < line.length - 1 && !/[\r\n]/.test(line)) {
    return { kind: 'password', user: line.slice(0, colon), password: line.slice(colon + 1) };
  }
  return undefined;
}
