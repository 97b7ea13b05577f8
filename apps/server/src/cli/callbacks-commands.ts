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
} from '#warden/callbacks';
import { ProjectionHost } from '#warden/storage';
import { type AppCommand, cliContext, UsageError } from './cli-command.js';
import { parseCommandArgs, required } from './command-options.js';
import { formatTable } from './format-table.js';

/** `--all-dead` may restart thousands: the first ones are named, then a count. */
const LISTED_REDELIVERIES = 50;

export const signingKeyListCommand: AppCommand = {
  name: 'signing-key list',
  usage: '--org <orgId>',
  description: "the organization's callback signing keys: kid, status (active, rotated, retired), created",
  async runInApp(args, app, out) {
    const { values } = parse(args);
    const org = required(values, 'org');
    const keys = await app.get(QueryBus).execute(new ListSigningKeysQuery(org));
    if (keys.length === 0) out(`Organization ${org} has no signing key yet; the first callback (or GET /api/v1/signing_keys) creates it`);
    else
      out(
        formatTable(
          ['kid', 'status', 'created'],
          keys.map((k) => [k.kid, k.status, k.createdAt]),
        ),
      );
    return 0;
  },
};

export const signingKeyRotateCommand: AppCommand = {
  name: 'signing-key rotate',
  usage: '--org <orgId>',
  description: 'a new key signs callbacks from now on; the old one keeps verifying until retired',
  async runInApp(args, app, out) {
    const { values } = parse(args);
    const org = required(values, 'org');
    const rotated = await app.get(CommandBus).execute(new RotateSigningKeyCommand(org, cliContext(org)));
    out(
      rotated.replaced
        ? `Signing key ${rotated.kid} signs ${org}'s callbacks from now on; ${rotated.replaced} keeps verifying until it is retired`
        : `Signing key ${rotated.kid} signs ${org}'s callbacks from now on`,
    );
    return 0;
  },
};

export const signingKeyRetireCommand: AppCommand = {
  name: 'signing-key retire',
  usage: '--org <orgId> --kid=<keyId>',
  description: 'stops publishing a rotated-out key',
  async runInApp(args, app, out) {
    const { values } = parse(args);
    const org = required(values, 'org');
    const kid = required(values, 'kid');
    const retired = await app.get(CommandBus).execute(new RetireSigningKeyCommand(org, kid, cliContext(org)));
    out(retired ? `Retired signing key ${kid}: it is no longer published` : `Signing key ${kid} was already retired`);
    return 0;
  },
};

export const callbacksListCommand: AppCommand = {
  name: 'callbacks list',
  usage: '--org <orgId> [--status pending|failed|dead|delivered] [--limit <n>] [--offset <n>]',
  description: 'callback deliveries, newest first',
  async runInApp(args, app, out) {
    const { values } = parse(args);
    const org = required(values, 'org');
    const status = values.status;
    if (status !== undefined && !['pending', 'failed', 'dead', 'delivered'].includes(status)) {
      throw new UsageError(`--status must be pending, failed, dead or delivered, got "${status}"`);
    }
    await app.get(ProjectionHost).catchUp('callback-deliveries');
    const page = await app.get(QueryBus).execute(
      new ListDeliveriesQuery(
        org,
        status as ListDeliveriesQuery['status'],
        count(values, 'limit', 50, 1, 1000),
        count(values, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
        // The CLI pages on past the API's newest 10,000: it costs this process only.
        Number.MAX_SAFE_INTEGER,
      ),
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
    out(
      `${page.deliveries.length} of ${page.total}${page.totalExact ? '' : ' or more'}${page.nextOffset !== null ? `; next page: --offset ${page.nextOffset}` : ''}`,
    );
    return 0;
  },
};

export const callbacksRedeliverCommand: AppCommand = {
  name: 'callbacks redeliver',
  usage: '(<deliveryId> | --all-dead) [--org <orgId>]',
  description: 'a fresh attempt cycle for one delivery (same delivery id), or for every dead-lettered one',
  async runInApp(args, app, out, { err }) {
    const { values, positionals } = parse(args);
    const allDead = values['all-dead'] === true;
    if (allDead === (positionals.length === 1) || positionals.length > 1) {
      throw new UsageError('callbacks redeliver takes one delivery id, or --all-dead');
    }
    const org = typeof values.org === 'string' ? values.org : undefined;
    const report = await app
      .get(CommandBus)
      .execute(new RedeliverCallbackCommand(allDead ? { allDead: true, orgId: org } : { deliveryId: positionals[0]!, orgId: org }, 'cli'));
    const listed = report.redelivered.slice(0, LISTED_REDELIVERIES);
    for (const r of listed) out(`Redelivering ${r.deliveryId} (organization ${r.orgId}, attempt cycle ${r.cycle})`);
    if (report.redelivered.length > listed.length) out(`... and ${report.redelivered.length - listed.length} more`);
    for (const r of report.refused) err(`Not redelivered: ${r.deliveryId} (organization ${r.orgId}): ${r.reason}`);
    out(`${report.redelivered.length} delivery(ies) redelivered; the worker sends them now`);
    return report.refused.length === 0 ? 0 : 1;
  },
};

export const appealCallbackSendCommand: AppCommand = {
  name: 'appeal-callback send',
  usage: '--org <orgId> --appeal <appealId> --item-type <typeId> --item <itemId> --by-type <typeId> --by <userId> --decision ACCEPT|REJECT',
  description: 'sends an appeal decision callback (the worker delivers it); prints its delivery id on the last line',
  async runInApp(args, app, out) {
    const { values } = parse(args);
    const org = required(values, 'org');
    const decision = required(values, 'decision').toUpperCase();
    if (!(APPEAL_DECISIONS as readonly string[]).includes(decision)) {
      throw new UsageError(`--decision must be ACCEPT or REJECT, got "${decision}"`);
    }
    await app.get(ProjectionHost).catchUp('catalog');
    const sent = await app.get(CommandBus).execute(
      new SendAppealCallbackCommand(
        {
          appealId: required(values, 'appeal'),
          item: { id: required(values, 'item'), typeId: required(values, 'item-type') },
          appealedBy: { id: required(values, 'by'), typeId: required(values, 'by-type') },
          decision: decision as AppealDecision,
        },
        cliContext(org),
      ),
    );
    out(
      sent.created
        ? `Appeal decision callback requested; the worker delivers it. Delivery id:`
        : `This appeal's decision was sent before (use \`callbacks redeliver\` to send it again). Delivery id:`,
    );
    out(sent.deliveryId);
    return 0;
  },
};

/** The options the callbacks commands share (each reads its own). */
function parse(args: string[]) {
  return parseCommandArgs(
    args,
    {
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
    true,
  );
}

function count(values: Record<string, string | boolean | undefined>, name: string, fallback: number, min: number, max: number): number {
  const v = values[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(v);
}
