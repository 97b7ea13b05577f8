import { Inject, Injectable } from '@nestjs/common';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { CURRENT_PARAMS, hashPassword, needsRehash, type ScryptParams, verifyAgainstDummy, verifyPassword } from './domain/password-hasher.js';

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

  constructor(@Inject(WARDEN_CONFIG) config: Pick<WardenConfig, 'passwordHashCost'>) {
    this.params = { ...CURRENT_PARAMS, ln: config.passwordHashCost };
  }

  hash(password: string): Promise<string> {
    return hashPassword(password, this.params);
  }

  verify(password: string, stored: string): Promise<boolean> {
    return verifyPassword(password, stored);
  }

  needsRehash(stored: string): boolean {
    return needsRehash(stored, this.params);
  }

  verifyAgainstDummy(password: string): Promise<false> {
    return verifyAgainstDummy(password, this.params);
  }
}
