import { createPublicKey, verify } from 'node:crypto';
import type { EventStore, ProjectionContext } from '#warden/eventstore';
import type { RecordedEvent } from '#warden/kernel';
import type { ReadStore } from '#warden/readstore';
import { checkpointMessage, checkpointMessageV1 } from '../chain/audit-chain.js';
import {
  AUDIT_CHAIN_HEADS,
  AUDIT_CHAIN_LINKS,
  auditChainProjection,
  type ChainHeadDoc,
  type ChainLinkDoc,
  chainLinkId,
} from '../chain/audit-chain.projection.js';
import type { AuditChainCheckpointed } from '../domain/audit-checkpoint.events.js';
import type { Jwks } from '../export/audit-verifier.js';

export interface ReplayedChainInput {
  /** The copied log, as stored (personal fields sealed): what the chain links. */
  readonly log: EventStore;
  /** The read models rebuilt from the copied log: the links it gives. */
  readonly replayed: ReadStore;
  /** The source's read models: the links the chain recorded as the events were appended; undefined without any. */
  readonly recorded: ReadStore | undefined;
  /** The copy's last log position. */
  readonly through: number;
  /** An organization's signing keys, retired ones included (its checkpoints' signatures). */
  signingKeys(orgId: string): Promise<Jwks>;
}

export interface ReplayedChainReport {
  /** Events of an organization in the copy. */
  readonly events: number;
  /** Of them, those whose recorded link the copy gives again. */
  readonly matched: number;
  /** Of them, those after the end of the recorded chain (it had not reached them): checked by nothing. */
  readonly unrecorded: number;
  /** Signed checkpoints whose head and signature the copy matches. */
  readonly checkpoints: number;
  /** Of them, checkpoints of chain v1 (before the upgrade to v2): their signature is checked, their v1 link cannot be. */
  readonly legacyCheckpoints: number;
  /** What does not match, in words (the first MAX_PROBLEMS); `problemCount` counts them all. */
  readonly problems: readonly string[];
  readonly problemCount: number;
}

const PAGE = 500;
const MAX_PROBLEMS = 20;

/**
 * Checks a copied log (`warden replay`) against the audit chain recorded beside the source
 * (docs/audit.md, "Replay"), so that a replay cannot launder an edited log: recomputing the chain
 * from the copy alone would link an edited event as if it were the original.
 *
 * - Each event is linked from the link recorded for the organization's previous event, through the
 *   chain projection itself (so this follows the chain's format, whatever it binds), and compared
 *   with the link recorded for it: a changed event is named, not every later one.
 * - A recorded link whose event is not in the copy: a removed event. An event of an organization
 *   whose recorded chain went past it but has no link: an inserted one.
 * - Each signed checkpoint in the copy must name the seq and link the copy gives at its position,
 *   and its signature must verify with the organization's key: this covers the signed prefix even
 *   where the recorded links were rewritten too.
 */
export async function checkReplayedChain(input: ReplayedChainInput): Promise<ReplayedChainReport> {
  const problems: string[] = [];
  let problemCount = 0;
  const problem = (text: string) => {
    problemCount++;
    if (problems.length < MAX_PROBLEMS) problems.push(text);
  };
  const recordedHeads = new Map<string, ChainHeadDoc | undefined>();
  const recordedHead = async (orgId: string) => {
    if (!recordedHeads.has(orgId)) recordedHeads.set(orgId, await input.recorded?.get<ChainHeadDoc>(AUDIT_CHAIN_HEADS, orgId));
    return recordedHeads.get(orgId);
  };
  const keys = new Map<string, Jwks>();
  /** Per organization, the recorded link of its previous event in the copy. */
  const previous = new Map<string, ChainLinkDoc>();
  const positions = new Set<number>();
  let events = 0;
  let matched = 0;
  let unrecorded = 0;
  let checkpoints = 0;
  let legacyCheckpoints = 0;

  for (let after = 0; ;) {
    const page = await input.log.readAll({ after, maxCount: PAGE, personalData: false });
    if (page.length === 0) break;
    after = page[page.length - 1]!.position;
    for (const event of page) {
      if (event.position > input.through) continue;
      const orgId = event.metadata.orgId;
      if (typeof orgId !== 'string' || orgId === '') continue;
      events++;
      positions.add(event.position);
      const where = describe(event, orgId);
      const recorded = await input.recorded?.get<ChainLinkDoc>(AUDIT_CHAIN_LINKS, chainLinkId(orgId, event.position));
      if (!recorded) {
        const head = await recordedHead(orgId);
        if (head && head.position > event.position) problem(`${where}: not in the recorded chain, which went past it (an event inserted into the log)`);
        else unrecorded++;
      } else {
        const linked = await linkFrom(previous.get(orgId), orgId, event);
        if (linked.seq !== recorded.seq) {
          problem(
            `${where}: the recorded chain has it as event ${recorded.seq} of ${orgId}, the log as event ${linked.seq} (an event of ${orgId} before it was removed or added)`,
          );
        } else if (linked.link !== recorded.link) {
          problem(`${where}: differs from the event the recorded chain linked at this place (the event was changed in the log)`);
        } else matched++;
        previous.set(orgId, recorded);
      }
      if (event.type === 'AuditChainCheckpointed') {
        const checked = await checkCheckpoint(event, orgId, input, keys);
        if (checked) problem(`${where}: ${checked}`);
        else {
          checkpoints++;
          if (isLegacy(event)) legacyCheckpoints++;
        }
      }
    }
    if (after >= input.through) break;
  }

  if (input.recorded) {
    for (let skip = 0; ; skip += PAGE) {
      const page = await input.recorded.find<ChainLinkDoc>(AUDIT_CHAIN_LINKS, { position: { lt: input.through + 1 } }, { skip, limit: PAGE });
      for (const link of page) {
        if (!positions.has(link.position))
          problem(`log position ${link.position} (event ${link.seq} of ${link.orgId}): recorded in the chain, missing from the log (an event removed)`);
      }
      if (page.length < PAGE) break;
    }
  }
  return { events, matched, unrecorded, checkpoints, legacyCheckpoints, problems, problemCount };
}

/** The chain projection applied to one event, from `previous` (the organization's genesis when undefined). */
async function linkFrom(previous: ChainLinkDoc | undefined, orgId: string, event: RecordedEvent): Promise<ChainLinkDoc> {
  let linked: ChainLinkDoc | undefined;
  const ctx: ProjectionContext = {
    async get<T extends object>(collection: string) {
      if (collection !== AUDIT_CHAIN_HEADS || !previous) return undefined;
      return { ...previous, activitySeq: previous.seq } as unknown as T;
    },
    put(collection, _id, doc) {
      if (collection === AUDIT_CHAIN_LINKS) linked = doc as unknown as ChainLinkDoc;
    },
    delete() {},
    // One event applied on its own: nothing else wrote before it here.
    writtenBefore: () => Promise.resolve(false),
  };
  await auditChainProjection.apply(event, ctx);
  if (!linked) throw new Error(`The audit chain did not link ${orgId}'s event at position ${event.position}`);
  return linked;
}

/** A checkpoint recorded before chain v2: it names a v1 link (docs/audit.md, "The audit chain"). */
const isLegacy = (event: RecordedEvent) => (event.data as { chain?: unknown }).chain === undefined;

/**
 * Why a checkpoint of the copy does not hold, or undefined when it does. A v1 checkpoint's link is
 * of the chain before the upgrade, which the copy does not give again: only its signature, over the
 * v1 message, is checked, as verify does (what the upgrade's rebuild found of the v1 links is in
 * every export's signed head, `legacy`).
 */
async function checkCheckpoint(event: RecordedEvent, orgId: string, input: ReplayedChainInput, keys: Map<string, Jwks>): Promise<string | undefined> {
  const cp = event.data as AuditChainCheckpointed['data'];
  const legacy = isLegacy(event);
  const given = legacy ? undefined : await input.replayed.get<ChainLinkDoc>(AUDIT_CHAIN_LINKS, chainLinkId(orgId, cp.position));
  if (!legacy && (!given || given.seq !== cp.seq || given.link !== cp.link)) {
    return `the checkpoint signed event ${cp.seq} of ${orgId} at log position ${cp.position}, and the log no longer gives that link (an event up to position ${cp.position} was changed, removed or added)`;
  }
  if (!keys.has(orgId)) keys.set(orgId, await input.signingKeys(orgId));
  const key = keys.get(orgId)!.keys.find((k) => k.kid === cp.kid);
  if (!key)
    return `the checkpoint is signed with key ${cp.kid}, which is not among the signing keys this installation's keyring made for ${orgId} (one added to the log without it)`;
  const message = legacy ? checkpointMessageV1(orgId, cp) : checkpointMessage(orgId, cp);
  const good = verify(null, message, createPublicKey({ key, format: 'jwk' }), Buffer.from(cp.signature, 'base64url'));
  return good ? undefined : `the checkpoint's signature does not verify with ${orgId}'s key ${cp.kid} (the checkpoint was changed)`;
}

function describe(event: RecordedEvent, orgId: string): string {
  return `log position ${event.position} (${event.type} of ${orgId}, ${event.streamName} revision ${event.revision})`;
}
