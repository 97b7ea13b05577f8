import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';
import type { InvestigationFrame, StandingView } from '../../investigate/investigation-reader.js';
import type { ActionView, AppealView, ReportView, TimelineEntry, VersionView } from '../../investigate/investigation-parts.js';

export interface InvestigatedUser extends InvestigationFrame, StandingView {
  /** A GDPR deletion of this user completed: their personal fields read as erased. */
  erased: boolean;
  /** The user's own item, newest version; null when it was never submitted. */
  profile: VersionView | null;
  /** The items they created, newest first, a page at a time (`next`: the `before` of the next page). */
  items: { entries: Array<{ typeId: string; id: string; submittedAt: string; version: number }>; next: number | null };
  actions: ActionView[];
  reportsFiled: ReportView[];
  appeals: AppealView[];
  timeline: { entries: TimelineEntry[]; earlier: boolean };
}

/** All Warden knows of a user of the organization, each section bounded (docs/console.md, "Investigate"). */
export class InvestigateUserQuery extends Query<InvestigatedUser> {
  constructor(
    readonly orgId: string,
    readonly typeId: string,
    readonly id: string,
    readonly permissions: readonly Permission[],
    readonly before?: number,
  ) {
    super();
  }
}
