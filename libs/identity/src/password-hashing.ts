import { Inject, Injectable } from '@nestjs/common';
import { Fifo } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { CURRENT_PARAMS, hashPassword, needsRehash, type ScryptParams, verifyAgainstDummy, verifyPassword } from './domain/password-hasher.js';

/**
 * Password hashes computed at once. Each takes one of libuv's four threads for 0.25–0.5 s, and
 * those threads also sync the log's writes to disk: a flood of sign-ins from many addresses (each
 * within its throttle) once took all four, and a real user's sign-in took 38 s and an item's
 * callback 39 s (docs/benchmarks.md, "A second hunt for stalls"). Two leave the other two free.
 */
export const HASHES_AT_ONCE = 2;
/**
 * Sign-ins waiting for a hash beyond those computed: past them one is refused at once (429, and it
 * does not count against the account's or the address's throttle), not queued for seconds. Two at
 * a time, 16 waiting is a wait of about 4 s at the default cost (8 s with new passwords taking turns with them).
 */
export const SIGN_INS_WAITING = 16;

/** Every place to check a password taken (SIGN_INS_WAITING): the sign-in is refused unchecked. */
export class PasswordChecksBusyError extends Error {
  constructor() {
    super('too many passwords are being checked at once');
    this.name = 'PasswordChecksBusyError';
  }
}

/**
 * The console's password hashing at the configured cost (WARDEN_PASSWORD_HASH_COST, docs/configuration.md):
 * the default is the OWASP figure; a lower one exists for test suites, whose hundreds of sign-ins
 * and user creations otherwise spend minutes of CPU in scrypt. Verification always uses the cost
 * recorded in the stored hash, so hashes made at any cost keep verifying, and a sign-in replaces
 * a hash weaker than the configured cost.
 */
@Injectable()
export class PasswordHashing {
  readonly params: ScryptParams;
  private hashing = 0;
  /**
   * Sign-ins (password checks) and new passwords wait apart, and a freed place goes to each in turn:
   * in one queue, an administrator who accepted 190 invitations at once (each a new password) made
   * another organization's sign-in wait 20.8 s behind them (docs/benchmarks.md, "A third hunt's
   * findings fixed, and a fourth"); now it waits for at most one new password per check.
   */
  private readonly checks = new Fifo<() => void>();
  private readonly newPasswords = new Fifo<() => void>();
  /** Whether the last place handed over went to a sign-in (the next goes to a new password if one waits). */
  private lastToCheck = false;

  constructor(@Inject(WARDEN_CONFIG) config: Pick<WardenConfig, 'passwordHashCost'>) {
    this.params = { ...CURRENT_PARAMS, ln: config.passwordHashCost };
  }

  /** Hashes being computed now (at most HASHES_AT_ONCE; for tests and metrics). */
  get inProgress(): number {
    return this.hashing;
  }

  /** A new password's hash: it waits its turn, never refused (setting a password takes a session or an invitation's token). */
  hash(password: string): Promise<string> {
    return this.gated(() => hashPassword(password, this.params), false);
  }

  /** Rejects with PasswordChecksBusyError when SIGN_INS_WAITING sign-ins already wait. */
  verify(password: string, stored: string): Promise<boolean> {
    return this.gated(() => verifyPassword(password, stored), true);
  }

  needsRehash(stored: string): boolean {
    return needsRehash(stored, this.params);
  }

  /** As verify: waits its turn, or is refused, the same way whether or not the account exists. */
  verifyAgainstDummy(password: string): Promise<false> {
    return this.gated(() => verifyAgainstDummy(password, this.params), true);
  }

  private async gated<T>(task: () => Promise<T>, refusable: boolean): Promise<T> {
    if (this.hashing < HASHES_AT_ONCE) this.hashing++;
    else if (refusable && this.checks.length >= SIGN_INS_WAITING) throw new PasswordChecksBusyError();
    else {
      // The place is handed over by the hash that ends (below): `hashing` stays counted.
      await new Promise<void>((resolve) => (refusable ? this.checks : this.newPasswords).push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.nextWaiting();
      if (next) next();
      else this.hashing--;
    }
  }

  /** The next to hash: sign-ins and new passwords in turn, either when the other has none waiting. */
  private nextWaiting(): (() => void) | undefined {
    const toCheck = this.checks.length > 0 && (!this.lastToCheck || this.newPasswords.length === 0);
    if (!toCheck && this.newPasswords.length === 0) return undefined;
    this.lastToCheck = toCheck;
    return (toCheck ? this.checks : this.newPasswords).shift();
  }
}
