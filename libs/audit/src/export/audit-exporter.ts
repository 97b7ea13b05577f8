import { Inject, Injectable } from '@nestjs/common';
import { type EventStore, SEALED_FIELD } from '#warden/eventstore';
import type { JsonObject, RecordedEvent } from '#warden/kernel';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { ProjectionHost, STORAGE, type Storage } from '#warden/storage';
import { AUDIT_CHAIN_FORMAT, genesisLink } from '../chain/audit-chain.js';
import { AUDIT_CHAIN_LINKS, AUDIT_CHAIN_PROJECTION, type ChainLinkDoc, chainLinkId } from '../chain/audit-chain.projection.js';
import { AUDIT_EXPORT_FORMAT, type AuditExportEvent, type AuditExportHeader } from './audit-export.format.js';

export interface AuditExportRequest {
  readonly orgId: string;
  /** From the first of the organization's events that occurred at or after this time. */
  readonly from?: Date;
  /** Up to the last event before the first that occurred after this time. */
  readonly to?: Date;
  /** Personal fields in plaintext (the operator's explicit choice); otherwise null. */
  readonly personalData?: boolean;
}

const PAGE = 500;

/**
 * Streams an organization's audit export, one NDJSON line at a time (no whole-log buffering). It
 * first brings the chain up to the head of the log, so every exported event has its link.
 */
@Injectable()
export class AuditExporter {
  constructor(
    @Inject(STORAGE) private readonly storage: Storage,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async *lines(request: AuditExportRequest): AsyncGenerator<string> {
    await this.projections.catchUp(AUDIT_CHAIN_PROJECTION);
    const { orgId } = request;
    let previous = { seq: 0, link: genesisLink(orgId) };
    let headerWritten = false;
    const header = (): AuditExportHeader => ({
      kind: 'header',
      format: AUDIT_EXPORT_FORMAT,
      chain: AUDIT_CHAIN_FORMAT,
      orgId,
      from: request.from?.toISOString() ?? null,
      to: request.to?.toISOString() ?? null,
      exportedAt: this.clock.now().toISOString(),
      personalData: request.personalData === true,
      previous,
    });
    for await (const { stored, opened } of this.orgEvents(orgId, request.personalData === true)) {
      const link = await this.storage.readStore.get<ChainLinkDoc>(AUDIT_CHAIN_LINKS, chainLinkId(orgId, stored.position));
      // Appended after the catch-up above: the export ends where the chain did.
      if (!link) break;
      const occurredAt = stored.metadata.occurredAt;
      if (request.from && !headerWritten && occurredAt < request.from.toISOString()) {
        previous = { seq: link.seq, link: link.link };
        continue;
      }
      if (request.to && occurredAt > request.to.toISOString()) break;
      if (!headerWritten) {
        yield JSON.stringify(header());
        headerWritten = true;
      }
      yield JSON.stringify(exportLine(stored, opened, link));
    }
    if (!headerWritten) yield JSON.stringify(header());
  }

  /** The organization's events in log order: as stored, and in their current shape. */
  private async *orgEvents(orgId: string, personalData: boolean): AsyncGenerator<{ stored: RecordedEvent; opened: RecordedEvent }> {
    let after = 0;
    for (;;) {
      const page = await this.storage.storedEvents.readAll({ after, maxCount: PAGE, personalData: false });
      if (page.length === 0) return;
      after = page[page.length - 1]!.position;
      const mine = page.filter((e) => e.metadata.orgId === orgId);
      if (mine.length === 0) continue;
      const opened = await this.currentShape(mine, personalData);
      for (let i = 0; i < mine.length; i++) yield { stored: mine[i]!, opened: opened[i]! };
    }
  }

  /**
   * Each event upcast to its current shape. Personal fields: opened through the application's
   * log when asked for; otherwise taken out of the sealed form and set to null, as a forgotten
   * key reads.
   */
  private async currentShape(events: readonly RecordedEvent[], personalData: boolean): Promise<RecordedEvent[]> {
    if (personalData) {
      const byPosition = await openedByPosition(this.storage.events, events);
      return events.map((e) => byPosition.get(e.position) ?? e);
    }
    return this.storage.upcasters.upcastAll(events.map(redacted));
  }
}

/** The same events read through the application's log (opened and upcast), by position. */
async function openedByPosition(log: EventStore, events: readonly RecordedEvent[]): Promise<Map<number, RecordedEvent>> {
  const first = events[0]!.position;
  const last = events[events.length - 1]!.position;
  const found = new Map<number, RecordedEvent>();
  let after = first - 1;
  while (after < last) {
    const page = await log.readAll({ after, maxCount: PAGE, personalData: true });
    if (page.length === 0) break;
    for (const e of page) if (e.position <= last) found.set(e.position, e);
    after = page[page.length - 1]!.position;
  }
  return found;
}

function redacted(event: RecordedEvent): RecordedEvent {
  const envelope = event.data[SEALED_FIELD] as { fields?: unknown } | undefined;
  if (!envelope || !Array.isArray(envelope.fields)) return event;
  const data: JsonObject = { ...event.data };
  delete data[SEALED_FIELD];
  for (const field of envelope.fields) if (typeof field === 'string') data[field] = null;
  return { ...event, data, metadata: { ...event.metadata, personalDataRedacted: true } };
}

function exportLine(stored: RecordedEvent, opened: RecordedEvent, link: ChainLinkDoc): AuditExportEvent {
  return {
    kind: 'event',
    seq: link.seq,
    position: stored.position,
    id: stored.id,
    stream: stored.streamName,
    revision: stored.revision,
    type: stored.type,
    occurredAt: stored.metadata.occurredAt,
    actor: stored.metadata.actor,
    data: opened.data,
    stored: { data: stored.data, metadata: stored.metadata as unknown as JsonObject },
    link: link.link,
  };
}
