import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '#warden/eventstore';
import { recordedAs } from '#warden/kernel';
import type { JobAppealDetails, JobAppeals } from '#warden/review';
import { EVENT_STORE } from '#warden/storage';
import type { AppealSubmitted } from '../domain/appeal.events.js';
import { appellantOf } from '../domain/appellant.js';
import { appealStream } from '../domain/appeal.streams.js';

/**
 * The appeals module's side of review's JOB_APPEALS port: the appeal's first event, its personal
 * data opened for the viewer. Once erased, the sealed appellant reads as null: the subject
 * (`typeId:id`, kept in the clear) still names them.
 */
@Injectable()
export class AppealDetailsReader implements JobAppeals {
  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  async details(orgId: string, appealId: string): Promise<JobAppealDetails | null> {
    const [first] = await this.events.readStream(appealStream(orgId, appealId), { maxCount: 1 });
    const submitted = first && recordedAs<AppealSubmitted>(first, 'AppealSubmitted');
    if (!submitted) return null;
    const { data } = submitted;
    const erased = submitted.metadata.personalDataRedacted === true;
    return { appellant: appellantOf(submitted), appealReason: erased ? null : (data.appealReason ?? null), erased };
  }
}
