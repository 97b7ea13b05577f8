import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetSigningKeysQuery, SignWithOrganizationKeyQuery } from '#warden/callbacks';
import { type EventStore, SEALED_FIELD } from '#warden/eventstore';
import type { JsonObject, RecordedEvent } from '#warden/kernel';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore, ProjectionHost, STORAGE, type Storage } from '#warden/storage';
import { auditCheckpointDecider } from '../chain/audit-checkpoint.decider.js';
import { auditChainStream } from '../chain/audit-chain.streams.js';
import { firstLinkFrom, lastLinkThrough } from '../chain/chain-links.js';
import { AUDIT_CHAIN_FORMAT, AUDIT_CHAIN_FORMAT_V1, genesisLink, withCredentialsDigested } from '../chain/audit-chain.js';
import {
  AUDIT_CHAIN_HEADS,
  AUDIT_CHAIN_LINKS,
  AUDIT_CHAIN_PROJECTION,
  type ChainHeadDoc,
  type ChainLinkDoc,
  chainLinkId,
} from '../chain/audit-chain.projection.js';
import {
  AUDIT_EXPORT_FORMAT,
  AUDIT_HEAD_FORMAT,
  AUDIT_HEAD_FORMAT_V1,
  type AuditExportEvent,
  type AuditExportHeader,
  type AuditHead,
  exportLineText,
} from './audit-export.format.js';
import { headMessage, LinesDigest } from './audit-head.js';

export interface AuditExportRequest {
  readonly orgId: string;
  /** From the first of the organization's events that occurred at or after this time. */
  readonly from?: Date;
  /** Up to the last event before the first that occurred after this time. */
  readonly to?: Date;
  /** Personal fields in plaintext (the operator's explicit choice); otherwise left out. */
  readonly personalData?: boolean;
}

const PAGE = 500;

type Position = { seq: number; position: number; link: string };

/**
 * Streams an organization's audit export, one NDJSON line at a time (no whole-log buffering), and
 * signs its head at the end. It first brings the chain up to the head of the log, then exports up
 * to the chain head it found, so every exported event has its link.
 */
@Injectable()
export class AuditExporter {
  constructor(
    @Inject(STORAGE) private readonly storage: Storage,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly queries: QueryBus,
    private readonly aggregates: AggregateStore,
  ) {}

  /**
   * The recorded head (read-models.db) behind the last checkpoint the log holds signed: the head was
   * set back, and an export to it would sign a history cut short that verify passes. Refused, as a
   * hole below the head is (chainGap). One read of the checkpoint stream's folded state (cached).
   */
  private async checkHeadNotBehindCheckpoint(orgId: string, chainHead: ChainHeadDoc | undefined): Promise<void> {
    const state = await this.aggregates.state(auditChainStream(orgId), auditCheckpointDecider);
    if (state.seq > (chainHead?.seq ?? 0)) {
      throw new Error(
        `The audit chain of ${orgId} records its head at event ${chainHead?.seq ?? 0}, behind event ${state.seq} that a checkpoint in the log signed: the recorded chain (read-models.db) was set back or damaged, and no export of it can be signed. It is evidence and is not rebuilt: compare an earlier export or an anchor (docs/audit.md, "Anchors").`,
      );
    }
  }

  async *lines(request: AuditExportRequest): AsyncGenerator<string> {
    await this.projections.catchUp(AUDIT_CHAIN_PROJECTION);
    const { orgId } = request;
    const personalData = request.personalData === true;
    const chainHead = await this.storage.readStore.get<ChainHeadDoc>(AUDIT_CHAIN_HEADS, orgId);
    await this.checkHeadNotBehindCheckpoint(orgId, chainHead);
    const first = await this.firstSeq(orgId, chainHead, request.from);
    const previous = first <= 1 ? { seq: 0, link: genesisLink(orgId) } : await this.linkAt(orgId, first - 1);
    const header: AuditExportHeader = {
      kind: 'header',
      format: AUDIT_EXPORT_FORMAT,
      chain: AUDIT_CHAIN_FORMAT,
      orgId,
      from: request.from?.toISOString() ?? null,
      to: request.to?.toISOString() ?? null,
      exportedAt: this.clock.now().toISOString(),
      personalData,
      previous: { seq: previous.seq, link: previous.link },
      jwks: (await this.queries.execute(new GetSigningKeysQuery(orgId, true))) as unknown as AuditExportHeader['jwks'],
    };
    // Every line before the head is hashed as written, and the head signs the digest: the chain
    // covers only what its links hash, so `personal` (the plaintext the auditor reads) and the
    // header's jwks would otherwise pass verify changed (docs/audit.md, "Exporting").
    const written = new LinesDigest();
    const line = (text: string) => {
      written.add(text);
      return text;
    };
    yield line(exportLineText(header));
    let last: Position | null = null;
    let events = 0;
    if (chainHead && first <= chainHead.seq) {
      const to = request.to?.toISOString();
      const start = await this.linkAt(orgId, first);
      const lastSeq = await this.lastSeq(orgId, chainHead, first, request.to);
      for await (const { stored, opened, link } of this.orgEvents(orgId, first, start.position, lastSeq, personalData)) {
        if (to !== undefined && stored.metadata.occurredAt > to) break;
        yield line(exportLineText(exportLine(stored, opened, link)));
        last = { seq: link.seq, position: link.position, link: link.link };
        events++;
      }
    }
    const head = await this.sign({
      kind: 'head',
      format: AUDIT_HEAD_FORMAT,
      chain: AUDIT_CHAIN_FORMAT,
      orgId,
      from: header.from,
      to: header.to,
      personalData,
      exportedAt: header.exportedAt,
      previous: header.previous,
      last,
      events,
      chainHead: chainHead ? { seq: chainHead.seq, position: chainHead.position, link: chainHead.link } : null,
      ...legacyOf(chainHead),
      linesDigest: written.digest(),
      signedAt: this.clock.now().toISOString(),
    });
    yield exportLineText(head);
  }

  /**
   * The organization's chain head, signed now: what `warden audit anchor` hands to a place outside
   * the operator's reach, for `verify --anchor` to compare a later export with.
   */
  async anchor(orgId: string): Promise<AuditHead> {
    await this.projections.catchUp(AUDIT_CHAIN_PROJECTION);
    const now = this.clock.now().toISOString();
    const chainHead = await this.storage.readStore.get<ChainHeadDoc>(AUDIT_CHAIN_HEADS, orgId);
    const head = chainHead ? { seq: chainHead.seq, position: chainHead.position, link: chainHead.link } : null;
    // No lines precede an anchor, so it has no linesDigest and keeps the head format anchors always had.
    return this.sign({
      kind: 'head',
      format: AUDIT_HEAD_FORMAT_V1,
      chain: AUDIT_CHAIN_FORMAT,
      orgId,
      from: null,
      to: null,
      personalData: false,
      exportedAt: now,
      previous: { seq: 0, link: genesisLink(orgId) },
      last: head,
      events: head?.seq ?? 0,
      chainHead: head,
      ...legacyOf(chainHead),
      signedAt: now,
    });
  }

  private async sign(head: Omit<AuditHead, 'kid' | 'signature'>): Promise<AuditHead> {
    const signed = await this.queries.execute(new SignWithOrganizationKeyQuery(head.orgId, headMessage(head)));
    return { ...head, kid: signed.kid, signature: signed.signature };
  }

  /**
   * Where the export starts: the first event at or after `from`; 1 without `from`. The chain's index
   * on (orgId, occurredAt, seq) proposes it in one seek (docs/audit.md, "Exporting"), but its times are the
   * read model's, which whoever can write read-models.db can change, and the signed head would then
   * vouch for a range short of its first events. So the log decides: the event proposed must have
   * occurred at or after `from` and the one before it earlier, or the edge moves one event at a time
   * until they do (docs/audit.md, "Exporting"). Two reads of the log when the index is right.
   */
  private async firstSeq(orgId: string, chainHead: ChainHeadDoc | undefined, from: Date | undefined): Promise<number> {
    if (!chainHead) return 1;
    if (!from) return 1;
    const since = from.toISOString();
    const found = await firstLinkFrom(this.storage.readStore, orgId, from);
    let seq = found && found.seq <= chainHead.seq ? found.seq : chainHead.seq + 1;
    const occurred = this.loggedTimes(orgId);
    while (seq > 1 && (await occurred(seq - 1)) >= since) seq--;
    while (seq <= chainHead.seq && (await occurred(seq)) < since) seq++;
    return seq;
  }

  /**
   * Where the export ends: the last event at or before `to`, never past the chain head found at the
   * start, so that the read stops there instead of going on through other organizations' later
   * events to the end of the log (docs/audit.md, "Exporting"). The index proposes it; the log decides, as for
   * the start: while the event after it occurred at or before `to`, the edge moves on. One read of
   * the log when the index is right. An event of the range that occurred after `to` ends the export
   * before it (lines), as the log's times say.
   */
  private async lastSeq(orgId: string, chainHead: ChainHeadDoc, first: number, to: Date | undefined): Promise<number> {
    if (!to) return chainHead.seq;
    const through = to.toISOString();
    const found = await lastLinkThrough(this.storage.readStore, orgId, to);
    let seq = Math.max(found ? Math.min(found.seq, chainHead.seq) : 0, first - 1);
    const occurred = this.loggedTimes(orgId);
    while (seq < chainHead.seq && (await occurred(seq + 1)) <= through) seq++;
    return seq;
  }

  /**
   * When the organization's event `seq` occurred, as the log holds it: found through its link's
   * position, and refused if the log holds no event of the organization there. Remembered per seq,
   * as an edge is read on both of its sides.
   */
  private loggedTimes(orgId: string): (seq: number) => Promise<string> {
    const known = new Map<number, string>();
    return async (seq) => {
      const remembered = known.get(seq);
      if (remembered !== undefined) return remembered;
      const { position } = await this.linkAt(orgId, seq);
      const [event] = await this.storage.storedEvents.readAll({ after: position - 1, maxCount: 1, personalData: false });
      if (!event || event.position !== position || event.metadata.orgId !== orgId) throw linkedElsewhere(orgId, seq, position);
      known.set(seq, event.metadata.occurredAt);
      return event.metadata.occurredAt;
    };
  }

  private async linkAt(orgId: string, seq: number): Promise<ChainLinkDoc> {
    const [found] = await this.storage.readStore.find<ChainLinkDoc>(AUDIT_CHAIN_LINKS, { orgId, seq }, { limit: 1 });
    if (!found) throw new Error(`The audit chain of ${orgId} has no event ${seq}`);
    return found;
  }

  /**
   * The organization's events from its chain's seq `firstSeq`, at log position `fromPosition`, up
   * to seq `lastSeq`, in log order: as stored, in their current shape, with their links. Reads the
   * log from that position on, not from its start.
   */
  private async *orgEvents(
    orgId: string,
    firstSeq: number,
    fromPosition: number,
    lastSeq: number,
    personalData: boolean,
  ): AsyncGenerator<{ stored: RecordedEvent; opened: RecordedEvent | undefined; link: ChainLinkDoc }> {
    let after = fromPosition - 1;
    // The first event read must be the one the range starts at: its link's position sent the read there.
    let expected = firstSeq;
    for (;;) {
      const page = await this.storage.storedEvents.readAll({ after, maxCount: PAGE, personalData: false });
      if (page.length === 0) break;
      after = page[page.length - 1]!.position;
      const mine = page.filter((e) => e.metadata.orgId === orgId);
      if (mine.length === 0) continue;
      const opened = personalData ? await openedByPosition(this.storage.events, mine) : undefined;
      for (const stored of mine) {
        const link = await this.storage.readStore.get<ChainLinkDoc>(AUDIT_CHAIN_LINKS, chainLinkId(orgId, stored.position));
        // The chain links every event of the organization up to its head, one sequence number
        // each: an event without its link, or a number skipped, below the head is a damaged (or
        // tampered) read model. Stopping there would sign a head over a short file that verify
        // passes, so the export fails instead (docs/audit.md, "Exporting").
        if (!link || link.seq !== expected) throw chainGap(orgId, expected, stored.position);
        if (link.seq > lastSeq) return;
        yield { stored, opened: opened?.get(stored.position), link };
        // The last event wanted is out: reading on would only pass other organizations' events.
        if (link.seq === lastSeq) return;
        expected++;
      }
    }
    // The log ended before the chain's head: the read model links events the log does not hold.
    throw chainGap(orgId, expected, after + 1);
  }
}

/** What an export refuses to pass over: a hole in the organization's chain below its head. */
function chainGap(orgId: string, seq: number, position: number): Error {
  return new Error(
    `The audit chain of ${orgId} has no link for event ${seq} (log position ${position}) although its head is past it: the recorded chain (read-models.db) was damaged or changed, and no export of it can be signed. It is evidence and is not rebuilt: compare an earlier export or an anchor (docs/audit.md, "Anchors").`,
  );
}

/** What an export refuses to seek by: a link whose position holds no event of its organization in the log. */
function linkedElsewhere(orgId: string, seq: number, position: number): Error {
  return new Error(
    `The audit chain of ${orgId} places event ${seq} at log position ${position}, where the log holds no event of ${orgId}: the recorded chain (read-models.db) was damaged or changed, and no export of it can be signed. It is evidence and is not rebuilt: compare an earlier export or an anchor (docs/audit.md, "Anchors").`,
  );
}

function legacyOf(chainHead: ChainHeadDoc | undefined): Pick<AuditHead, 'legacy'> {
  const legacy = chainHead?.legacy;
  if (!legacy) return {};
  return { legacy: { chain: AUDIT_CHAIN_FORMAT_V1, checked: legacy.checked, differs: legacy.differs, firstDiffers: legacy.firstDiffers } };
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

/** The sealed fields of an event, opened: the plaintext of an export with personal data. */
function personalFields(stored: RecordedEvent, opened: RecordedEvent | undefined): JsonObject | undefined {
  const envelope = stored.data[SEALED_FIELD] as { fields?: unknown } | undefined;
  if (!opened || !envelope || !Array.isArray(envelope.fields)) return undefined;
  const fields: JsonObject = {};
  for (const field of envelope.fields) if (typeof field === 'string') fields[field] = opened.data[field] ?? null;
  return fields;
}

function exportLine(stored: RecordedEvent, opened: RecordedEvent | undefined, link: ChainLinkDoc): AuditExportEvent {
  const personal = personalFields(stored, opened);
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
    stored: { data: withCredentialsDigested(stored.type, stored.data) as JsonObject, metadata: stored.metadata as unknown as JsonObject },
    ...(personal ? { personal } : {}),
    link: link.link,
  };
}
