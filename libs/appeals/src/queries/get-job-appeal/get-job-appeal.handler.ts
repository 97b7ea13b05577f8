import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { EventStore } from '#warden/eventstore';
import { GetJobAppealQuery, type JobAppealDetails } from '#warden/review';
import { recordedAs } from '#warden/kernel';
import { EVENT_STORE } from '#warden/storage';
import type { AppealSubmitted } from '../../domain/appeal.events.js';
import { appellantOf } from '../../domain/appellant.js';
import { appealStream } from '../../domain/appeal.streams.js';

/**
 * The appeal's first event, its personal data opened for the viewer. Once erased, the sealed
 * appellant reads as null: the subject (`typeId:id`, kept in the clear) still names them.
 */
@QueryHandler(GetJobAppealQuery)
export class GetJobAppealHandler implements IQueryHandler<GetJobAppealQuery> {
  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  async execute(query: GetJobAppealQuery): Promise<JobAppealDetails | null> {
    const [first] = await this.events.readStream(appealStream(query.orgId, query.appealId), { maxCount: 1 });
    const submitted = first && recordedAs<AppealSubmitted>(first, 'AppealSubmitted');
    if (!submitted) return null;
    const { data } = submitted;
    const erased = submitted.metadata.personalDataRedacted === true;
    return { appellant: appellantOf(submitted), appealReason: erased ? null : (data.appealReason ?? null), erased };
  }
}
