import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { INestApplicationContext } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  APPEAL_DECISIONS,
  type AppealDecision,
  ListDeliveriesQuery,
  ListSigningKeysQuery,
  RedeliverCallbackCommand,
  RetireSigningKeyCommand,
  RotateSigningKeyCommand,
  SendAppealCallbackCommand,
} from '../../../../libs/callbacks/src/index.js';
import type { CommandContext } from '../../../../libs/kernel/src/index.js';
import { ProjectionHost } from '../../../../libs/platform/src/index.js';
import { formatTable } from './format-table.js';

type Out = (line: string) => void;

export const CALLBACKS_USAGE = `  signing-key list --org <orgId>                                  the organization's callback signing keys
  signing-key rotate --org <orgId>                                a new key signs from now on; the old one verifies until retired
  signing-key retire --org <orgId> --kid <keyId>                  stops publishing a rotated-out key
  callbacks list --org <orgId> [--status pending|failed|dead|delivered] [--limit <n>] [--offset <n>]
  callbacks redeliver <deliveryId> [--org <orgId>]                a fresh attempt cycle for one delivery (same delivery id)
  callbacks redeliver --all-dead [--org <orgId>]                  ... for every dead-lettered delivery
  appeal-callback send --org <orgId> --appeal <appealId> --item-type <typeId> --item <itemId>
                       --by-type <typeId> --by <userId> --decision ACCEPT|REJECT
                                                                  sends an appeal decision callback (the worker delivers it)`;

const COMMANDS = new Set([
  'signing-key list',
  'signing-key rotate',
  'signing-key retire',
  'callbacks list',
  'callbacks redeliver',
  'appeal-callback send',
]);

class CallbacksUsageError extends Error {}

/** `--all-dead` may restart thousands: the first ones are named, then a count. */
const LISTED_REDELIVERIES = 50;

/** The callbacks commands; undefined when `command` is not one of them. */
export async function runCallbacksCommand(
  command: string,
  args: string[],
  app: INestApplicationContext,
  out: Out,
): Promise<number | undefined> {
  if (!COMMANDS.has(command)) return undefined;
  try {
    return await run(command, args, app, out);
  } catch (error) {
    if (!(error instanceof CallbacksUsageError)) throw error;
    process.stderr.write(`${error.message}\n\nUsage:\n${CALLBACKS_USAGE}\n`);
    return 2;
  }
}

async function run(command: string, args: string[], app: INestApplicationContext, out: Out): Promise<number> {
  const commands = app.get(CommandBus);
  const queries = app.get(QueryBus);
  const { values, positionals } = parse(args);
  const context = (orgId: string): CommandContext => ({ orgId, correlationId: randomUUID(), actor: 'cli' });
  switch (command) {
    case 'signing-key list': {
      const org = required(values, 'org');
      const keys = await queries.execute(new ListSigningKeysQuery(org));
      if (keys.length === 0) out(`Organization ${org} has no signing key yet; the first callback (or GET /api/v1/signing_keys) creates it`);
      else out(formatTable(['kid', 'status', 'created'], keys.map((k) => [k.kid, k.status, k.createdAt])));
      return 0;
    }
    case 'signing-key rotate': {
      const org = required(values, 'org');
      const rotated = await commands.execute(new RotateSigningKeyCommand(org, context(org)));
      out(
        rotated.replaced
          ? `Signing key ${rotated.kid} signs ${org}'s callbacks from now on; ${rotated.replaced} keeps verifying until it is retired`
          : `Signing key ${rotated.kid} signs ${org}'s callbacks from now on`,
      );
      return 0;
    }
    case 'signing-key retire': {
      const org = required(values, 'org');
      const kid = required(values, 'kid');
      const retired = await commands.execute(new RetireSigningKeyCommand(org, kid, context(org)));
      out(retired ? `Retired signing key ${kid}: it is no longer published` : `Signing key ${kid} was already retired`);
      return 0;
    }
    case 'callbacks list': {
      const org = required(values, 'org');
      const status = values.status;
      if (status !== undefined && !['pending', 'failed', 'dead', 'delivered'].includes(status)) {
        throw new CallbacksUsageError(`--status must be pending, failed, dead or delivered, got "${status}"`);
      }
      await app.get(ProjectionHost).catchUp('callback-deliveries');
      const page = await queries.execute(
        new ListDeliveriesQuery(org, status as ListDeliveriesQuery['status'], count(values, 'limit', 50, 1, 1000), count(values, 'offset', 0, 0, Number.MAX_SAFE_INTEGER)),
      );
      out(
        formatTable(
          ['delivery id', 'kind', 'item', 'status', 'attempts', 'next attempt', 'last error'],
          page.deliveries.map((d) => [
            d.deliveryId,
            d.kind === 'action' ? `action ${d.actionId}` : `appeal ${d.appealId}`,
            `${d.item.typeId}/${d.item.id}`,
            d.status,
            String(d.totalAttempts),
            d.nextAttemptAt ?? '',
            d.lastError ?? '',
          ]),
        ),
      );
      out(`${page.deliveries.length} of ${page.total}${page.nextOffset !== null ? `; next page: --offset ${page.nextOffset}` : ''}`);
      return 0;
    }
    case 'callbacks redeliver': {
      const allDead = values['all-dead'] === true;
      if (allDead === (positionals.length === 1) || positionals.length > 1) {
        throw new CallbacksUsageError('callbacks redeliver takes one delivery id, or --all-dead');
      }
      await app.get(ProjectionHost).catchUp('catalog');
      const org = typeof values.org === 'string' ? values.org : undefined;
      const report = await commands.execute(
        new RedeliverCallbackCommand(allDead ? { allDead: true, orgId: org } : { deliveryId: positionals[0]!, orgId: org }, 'cli'),
      );
      const listed = report.redelivered.slice(0, LISTED_REDELIVERIES);
      for (const r of listed) out(`Redelivering ${r.deliveryId} (organization ${r.orgId}, attempt cycle ${r.cycle})`);
      if (report.redelivered.length > listed.length) out(`... and ${report.redelivered.length - listed.length} more`);
      for (const r of report.refused) process.stderr.write(`Not redelivered: ${r.deliveryId} (organization ${r.orgId}): ${r.reason}\n`);
      out(`${report.redelivered.length} delivery(ies) redelivered; the worker sends them now`);
      return report.refused.length === 0 ? 0 : 1;
    }
    case 'appeal-callback send': {
      const org = required(values, 'org');
      const decision = required(values, 'decision').toUpperCase();
      if (!(APPEAL_DECISIONS as readonly string[]).includes(decision)) {
        throw new CallbacksUsageError(`--decision must be ACCEPT or REJECT, got "${decision}"`);
      }
      await app.get(ProjectionHost).catchUp('catalog');
      const sent = await commands.execute(
        new SendAppealCallbackCommand(
          {
            appealId: required(values, 'appeal'),
            item: { id: required(values, 'item'), typeId: required(values, 'item-type') },
            appealedBy: { id: required(values, 'by'), typeId: required(values, 'by-type') },
            decision: decision as AppealDecision,
          },
          context(org),
        ),
      );
      out(
        sent.created
          ? `Appeal decision callback requested; the worker delivers it. Delivery id:`
          : `This appeal's decision was sent before (use \`callbacks redeliver\` to send it again). Delivery id:`,
      );
      out(sent.deliveryId);
      return 0;
    }
    default:
      throw new CallbacksUsageError(`Unknown command: ${command}`);
  }
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        org: { type: 'string' },
        kid: { type: 'string' },
        status: { type: 'string' },
        limit: { type: 'string' },
        offset: { type: 'string' },
        'all-dead': { type: 'boolean' },
        appeal: { type: 'string' },
        'item-type': { type: 'string' },
        item: { type: 'string' },
        'by-type': { type: 'string' },
        by: { type: 'string' },
        decision: { type: 'string' },
      },
    });
  } catch (error) {
    throw new CallbacksUsageError(error instanceof Error ? error.message : String(error));
  }
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new CallbacksUsageError(`Missing --${name}`);
  return v;
}

function count(values: Record<string, string | boolean | undefined>, name: string, fallback: number, min: number, max: number): number {
  const v = values[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new CallbacksUsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(v);
}
