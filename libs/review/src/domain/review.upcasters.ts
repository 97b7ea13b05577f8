import type { JsonObject, Upcaster } from '#warden/kernel';

/**
 * ChildSafetyReportRecorded v1 → v2. v1 kept the reports' reasons alone in `incident.reportReasons`
 * (sealed with the incident under the item's subject); v2 pairs each reason with its reporter, so
 * that each is sealed under its reporter's key too. A v1 event does not say whose reason is whose:
 * its reports have no reporter. An erased incident (null) stays null.
 */
const childSafetyReportRecordedV1: Upcaster = {
  eventType: 'ChildSafetyReportRecorded',
  fromVersion: 1,
  upcast(data) {
    const incident = data['incident'] as { reportReasons?: unknown; moderatorReason?: unknown; note?: unknown } | null | undefined;
    if (!incident || typeof incident !== 'object') return data;
    const { reportReasons, ...rest } = incident;
    const reasons = Array.isArray(reportReasons) ? reportReasons.filter((r): r is string => typeof r === 'string') : [];
    return { ...data, incident: { ...rest, reports: reasons.map((reason) => ({ reporter: null, reason })) } as unknown as JsonObject };
  },
};

export const REVIEW_UPCASTERS: readonly Upcaster[] = [childSafetyReportRecordedV1];
