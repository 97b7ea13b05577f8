import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type EventStore,
  type ExpectedRevision,
  WrongExpectedRevisionError,
} from '#warden/eventstore';
import { ConfigureOrganizationCommand } from '#warden/identity';
import { type CommandContext, concurrentUpdateConflict, foldStream } from '#warden/kernel';
import { KEYRING, type Keyring } from '#warden/platform';
import { AggregateStore, EVENT_STORE } from '#warden/storage';
import type { HashBankEvent } from '../../domain/catalog.events.js';
import { hashBankStream } from '../../domain/catalog.streams.js';
import { chunk, desiredCatalog } from '../../domain/desired-catalog.js';
import { hashBankDecider } from '../../domain/hash-bank.decider.js';
import { planCatalog } from '../../domain/org-config.decider.js';
import { sealSecrets } from '../../secrets/catalog-secrets.js';
import { readOrgConfig } from '../org-config-state.js';
import { ApplyConfigurationCommand, type ApplyReport } from './apply-configuration.command.js';

/** Events per append to a bank stream: 10 x 10,000 hashes stays far below KurrentDB's limits. */
const BANK_EVENTS_PER_APPEND = 10;

@CommandHandler(ApplyConfigurationCommand)
export class ApplyConfigurationHandler implements ICommandHandler<ApplyConfigurationCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(KEYRING) private readonly keyring: Keyring,
    private readonly aggregates: AggregateStore,
    private readonly commands: CommandBus,
  ) {}

  async execute(command: ApplyConfigurationCommand): Promise<ApplyReport> {
    const { config, options, context } = command;
    const orgId = config.org.id;
    const organization = await this.commands.execute(
      new ConfigureOrganizationCommand(orgId, config.org.name, context, options.dryRun),
    );

    const { stream, state, expected } = await readOrgConfig(this.events, this.keyring, orgId);

    const desired = desiredCatalog(config);
    const plan = planCatalog({ type: 'ApplyCatalog', desired: desired.catalog, prune: options.prune }, state);
    const bankChanges = await Promise.all(desired.hashes.map((b) => this.bankChange(orgId, b.bankId, b.hashes)));

    const report: ApplyReport = {
      orgId,
      dryRun: options.dryRun,
      organization,
      created: plan.created,
      updated: plan.updated,
      archived: plan.archived,
      leftAlone: plan.leftAlone,
      settingsChanged: plan.settingsChanged,
      hashes: bankChanges
        .filter((c) => c.added + c.removed > 0)
        .map((c) => ({ bankId: c.bankId, added: c.added, removed: c.removed })),
      eventsAppended: 0,
    };
    // Banks are checked even when the configuration is unchanged: an apply cut short after its
    // configuration append (a concurrent import, a crash) left their hashes to write.
    if (options.dryRun || (plan.events.length === 0 && bankChanges.every((c) => c.events.length === 0))) return report;

    // The configuration stream is the commit point: a concurrent apply fails here, before any
    // bank is touched (a bank's hash change always changes its HashBankDefined digest). Each
    // bank's own appends expect the revision its decision was made on, so a concurrent import
    // is a conflict too, and the next apply writes what this one could not.
    let appended = 0;
    try {
      if (plan.events.length > 0) {
        await this.events.append(stream, this.aggregates.stamp(plan.events.map((e) => sealSecrets(e, this.keyring)), context), expected);
        appended += plan.events.length;
      }
      for (const change of bankChanges) appended += await this.writeBank(orgId, change, context);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) {
        throw concurrentUpdateConflict(`The configuration of ${orgId} was changed concurrently (another apply or bank import); run apply again`);
      }
      throw error;
    }
    return { ...report, eventsAppended: appended };
  }

  /** What the hash-bank decider makes of the configured hashes, against the bank's stream now. */
  private async bankChange(orgId: string, bankId: string, hashes: readonly string[]) {
    const stream = hashBankStream(orgId, bankId);
    const recorded = await this.events.readStream(stream);
    const state = foldStream(hashBankDecider, stream, recorded);
    const events = hashBankDecider.decide({ type: 'SyncConfiguredHashes', bankId, hashes }, state);
    const count = (type: HashBankEvent['type']) => events.filter((e) => e.type === type).reduce((n, e) => n + e.data.hashes.length, 0);
    const expected: ExpectedRevision = recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision;
    return { bankId, expected, events, added: count('HashBankHashesAdded'), removed: count('HashBankHashesRemoved') };
  }

  /** Appends a bank's decided events a few at a time (event size limits), each after the last. */
  private async writeBank(
    orgId: string,
    change: { bankId: string; expected: ExpectedRevision; events: readonly HashBankEvent[] },
    context: CommandContext,
  ): Promise<number> {
    const events = change.events;
    let expected = change.expected;
    for (const batch of chunk(events, BANK_EVENTS_PER_APPEND)) {
      const result = await this.events.append(
        hashBankStream(orgId, change.bankId),
        this.aggregates.stamp(batch, context),
        expected,
      );
      expected = result.nextRevision;
    }
    return events.length;
  }

}
