import { type ErrorDetail, forbidden, idProblem, invalidInput, ORG_ID } from '#warden/kernel';

/** The topic's name (docs/inbound-topic.md, "The envelope"), carried in every envelope's `type`. */
export const ITEM_SUBMISSION_EVENT = 'ITEM_SUBMISSION_EVENT';
/** The envelope versions this server reads; a new shape gets a new number (docs/inbound-topic.md). */
export const ENVELOPE_VERSIONS = [1] as const;

const MEMBERS = new Set(['type', 'version', 'orgId', 'eventId', 'items']);

/** An envelope whose own members are valid; its items are validated by ingestion, as on HTTP. */
export interface ItemSubmissionEvent {
  readonly orgId: string;
  readonly eventId: string;
  readonly items: readonly unknown[];
}

/**
 * Reads a parsed message as an ITEM_SUBMISSION_EVENT envelope, or throws the error body (docs/api.md, "Errors")
 * naming every problem with its pointer (400). Unknown members are refused rather than ignored:
 * a misspelt `item` would otherwise be dropped in silence, and additions come as a new version.
 */
export function readItemSubmissionEvent(value: unknown): ItemSubmissionEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidInput({ title: 'Invalid envelope', detail: 'expected a JSON object (an ITEM_SUBMISSION_EVENT envelope)', pointer: '' });
  }
  const envelope = value as Record<string, unknown>;
  const problems: ErrorDetail[] = [];
  const problem = (pointer: string, detail: string) => problems.push({ title: 'Invalid envelope', detail, pointer });
  if (envelope['type'] !== ITEM_SUBMISSION_EVENT) problem('/type', `must be "${ITEM_SUBMISSION_EVENT}"`);
  if (!(ENVELOPE_VERSIONS as readonly unknown[]).includes(envelope['version'])) {
    problem('/version', `must be one of ${ENVELOPE_VERSIONS.join(', ')} (the envelope versions this server reads)`);
  }
  const orgId = envelope['orgId'];
  if (typeof orgId !== 'string' || !ORG_ID.test(orgId)) problem('/orgId', 'must be an organization id (^[a-z0-9][a-z0-9_-]{0,62}$)');
  const eventId = envelope['eventId'];
  const eventIdProblem = typeof eventId === 'string' ? idProblem(eventId) : 'expected a string';
  if (eventIdProblem !== undefined) problem('/eventId', eventIdProblem);
  const items = envelope['items'];
  if (!Array.isArray(items) || items.length === 0) problem('/items', 'expected a non-empty array of items');
  for (const member of Object.keys(envelope)) {
    if (!MEMBERS.has(member)) problem(`/${member.replace(/~/g, '~0').replace(/\//g, '~1')}`, 'is not a member of the envelope');
  }
  if (problems.length > 0) throw invalidInput(...problems);
  return { orgId: orgId as string, eventId: eventId as string, items: items as unknown[] };
}

/**
 * The organization a message was published for, from its subject `<prefix>.<orgId>.items`: the
 * broker lets only that organization's credentials publish there (docs/inbound-topic.md), so it
 * is the authenticated sender. Undefined when the subject is not of that shape.
 */
export function subjectOrganization(subject: string, prefix: string): string | undefined {
  const head = `${prefix}.`;
  if (!subject.startsWith(head) || !subject.endsWith('.items')) return undefined;
  const orgId = subject.slice(head.length, -'.items'.length);
  return ORG_ID.test(orgId) ? orgId : undefined;
}

/** An envelope for another organization than its subject's is refused (403), never recorded. */
export function checkSameOrganization(subjectOrgId: string, event: Pick<ItemSubmissionEvent, 'orgId'>): void {
  if (subjectOrgId !== event.orgId) {
    throw forbidden(`the message was published on organization ${subjectOrgId}'s subject, but its envelope names organization ${event.orgId}`);
  }
}
