import { Inject, Injectable } from '@nestjs/common';
import type { ConsolePrincipal } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { SECOND_FACTOR_PROJECTION } from './projections/second-factor.projection.js';
import {
  SECOND_FACTOR_POLICIES,
  SECOND_FACTORS,
  type SecondFactorDoc,
  secondFactorDocId,
  type SecondFactorPolicyDoc,
} from './projections/second-factor.read-model.js';

/**
 * An organization's `requireSecondFactor`, applied to a console principal: a user without an
 * active second factor keeps only USE_CONSOLE (their account, enrollment, sign-out), so the one
 * console guard refuses everything else. Called by the console authenticator on every request.
 * Only password sessions: a SAML sign-in's factors are the identity provider's to require, and
 * the ACS never asks for a TOTP code, so enrolling one would protect nothing.
 */
@Injectable()
export class SecondFactorEnforcement {
  /**
   * The policies read up to the log once in this process. Before that, "not required" may only mean
   * "not seen yet" (a server that started behind a backlog, or a CLI apply moments before): the
   * first check waits for the read model, so the requirement never fails open. After it, the read
   * model follows the log.
   */
  private caughtUp: Promise<void> | undefined;

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async apply(principal: ConsolePrincipal, sessionMethod: string): Promise<ConsolePrincipal> {
    if (sessionMethod !== 'password') return principal;
    await (this.caughtUp ??= this.projections.catchUp(SECOND_FACTOR_PROJECTION).catch((error: unknown) => {
      this.caughtUp = undefined;
      throw error;
    }));
    if (!(await this.required(principal.orgId))) return principal;
    if (await this.active(principal)) return principal;
    // The read model may not have seen a confirmation just made: catch up before restricting.
    await this.projections.catchUp(SECOND_FACTOR_PROJECTION);
    if (!(await this.required(principal.orgId)) || (await this.active(principal))) return principal;
    return { ...principal, permissions: ['USE_CONSOLE'], secondFactorEnrollmentRequired: true };
  }

  private async required(orgId: string): Promise<boolean> {
    return (await this.readStore.get<SecondFactorPolicyDoc>(SECOND_FACTOR_POLICIES, orgId))?.required === true;
  }

  private async active(principal: ConsolePrincipal): Promise<boolean> {
    const doc = await this.readStore.get<SecondFactorDoc>(SECOND_FACTORS, secondFactorDocId(principal.orgId, principal.userId));
    return doc?.status === 'active';
  }
}
