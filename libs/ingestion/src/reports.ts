import type { EventStore } from '#warden/eventstore';
import { recordedAs } from '#warden/kernel';
import type { ReportSubmitted } from './domain/report.events.js';
import { reportStream } from './domain/item.streams.js';

/**
 * A recorded user report, as the reporter sent it (personal data opened by the store's codec;
 * redacted once erased); undefined for an id Warden never recorded. How other modules read a
 * report without decoding its stream (one ReportSubmitted, the stream's first event).
 */
export async function reportOf(events: EventStore, orgId: string, reportId: string): Promise<ReportSubmitted['data'] | undefined> {
  const [first] = await events.readStream(reportStream(orgId, reportId), { maxCount: 1 });
  return first && recordedAs<ReportSubmitted>(first, 'ReportSubmitted')?.data;
}
