import { describe, expect, it } from 'vitest';
import type { EventMetadata, JsonObject } from '#warden/kernel';
import { REVIEW_UPCASTERS } from './review.upcasters.js';

const upcast = (data: JsonObject) =>
  REVIEW_UPCASTERS.find((u) => u.eventType === 'ChildSafetyReportRecorded' && u.fromVersion === 1)!.upcast(data, {} as EventMetadata);

describe('review upcasters: ChildSafetyReportRecorded v1 → v2', () => {
  it('gives the reasons v1 kept alone as reports without a reporter (v1 did not say whose was whose)', () => {
    const v1 = {
      reportId: 'r1',
      incident: { reportReasons: ['scam link', 'spam'], moderatorReason: 'known', note: null },
      subject: 'user:c',
    } as unknown as JsonObject;
    expect(upcast(v1)).toEqual({
      reportId: 'r1',
      incident: {
        reports: [
          { reporter: null, reason: 'scam link' },
          { reporter: null, reason: 'spam' },
        ],
        moderatorReason: 'known',
        note: null,
      },
      subject: 'user:c',
    });
  });

  it('leaves an erased incident (null) as it is', () => {
    const erased = { reportId: 'r1', incident: null } as unknown as JsonObject;
    expect(upcast(erased)).toEqual(erased);
  });
});
