import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ConfigureOrganizationCommand } from '#warden/identity';
import { type CommandContext, concurrentUpdateConflict, type ErrorDetail, invalidInput, isConcurrentUpdateConflict } from '#warden/kernel';
import { AggregateStore, KEYRING, type Keyring } from '#warden/storage';
import type { HashBankEntity, HashBankEvent } from '../../domain/catalog.events.js';
import { hashBankStream, orgConfigStream } from '../../domain/catalog.streams.js';
import { desiredCatalog } from '../../domain/desired-catalog.js';
import { type SyncConfiguredHashes, hashBankDecider, importedHashCount, retypedBanks } from '../../domain/hash-bank.decider.js';
import { type ApplyCatalog, type CatalogPlan, type CatalogState, planCatalog } from '../../domain/org-config.decider.js';
import { transparencyWarnings } from '../../domain/org-config/dsa-mapping.section-parser.js';
import { orgConfigAggregate, readOrgConfig } from '../org-config-state.js';
import { ApplyConfigurationCommand, type ApplyReport } from './apply-configuration.command.js';

/** Events per append to a bank stream: 10 x 10,000 hashes stays far below KurrentDB's limits. */
const BANK_EVENTS_PER_APPEND = 10;

interface BankChange {
  readonly bankId: string;
  readonly events: readonly HashBankEvent[];
}

@CommandHandler(ApplyConfigurationCommand)
export class ApplyConfigurationHandler implements ICommandHandler<ApplyConfigurationCommand> {
  constructor(
    @Inject(KEYRING) private readonly keyring: Keyring,
    private readonly aggregates: AggregateStore,
    private readonly commands: CommandBus,
  ) {}

  async execute(command: ApplyConfigurationCommand): Promise<ApplyReport> {
    const { config, options, context } = command;
    const orgId = config.org.id;
    // The organization is created or renamed only once the configuration is recorded: a losing
    // concurrent apply (below) touches nothing. Planned here, for the report and a dry run.
    const configureOrganization = (dryRun: boolean) => this.commands.execute(new ConfigureOrganizationCommand(orgId, config.org.name, context, dryRun));
    const planned = await configureOrganization(true);
    const desired = desiredCatalog(config);
    const apply: ApplyCatalog = { type: 'ApplyCatalog', desired: desired.catalog, prune: options.prune, file: options.file ?? null };
    const syncs = desired.hashes.map((b): SyncConfiguredHashes => ({ type: 'SyncConfiguredHashes', bankId: b.bankId, hashes: b.hashes }));

    const read = await readOrgConfig({ keyring: this.keyring, aggregates: this.aggregates }, orgId);
    await this.refuseRetypedBanksWithImports(orgId, desired.catalog.entities.hashBank, read.state);
    const plan = planCatalog(apply, read.state);
    if (options.dryRun) {
      const banks = await Promise.all(syncs.map((sync) => this.previewBank(orgId, sync)));
      return report(orgId, true, planned, plan, banks, 0, desired.catalog.inboundTopic, transparencyWarnings(config));
    }

    // The configuration stream is the commit point: the apply is decided only on the state it was
    // planned on, so a concurrent apply or console change fails here, before any bank is touched
    // (a bank's hash change always changes its HashBankDefined digest). Each bank's appends expect
    // the revision its decision was made on, so a concurrent import elsewhere is a conflict too,
    // and the next apply writes what this one could not. Banks are synced even when the
    // configuration is unchanged: an apply cut short after its configuration append (a
    // concurrent import, a crash) left their hashes to write.
    let appended = 0;
    const banks: BankChange[] = [];
    let organization: ApplyReport['organization'];
    try {
      const { decider, options: sealed } = orgConfigAggregate(this.keyring);
      const configured = await this.aggregates.handle(orgConfigStream(orgId), decider, apply, context, { ...sealed, expectedRevision: read.revision });
      appended += configured.events.length;
      // An apply cut short here (a crash) created or renamed nothing: the next one does.
      organization = await configureOrganization(false);
      for (const sync of syncs) {
        const bank = await this.syncBank(orgId, sync, context);
        appended += bank.events.length;
        banks.push(bank);
      }
    } catch (error) {
      if (isConcurrentUpdateConflict(error)) {
        throw concurrentUpdateConflict(`The configuration of ${orgId} was changed concurrently (another apply or bank import); run apply again`);
      }
      throw error;
    }
    return report(orgId, false, organization, plan, banks, appended, desired.catalog.inboundTopic, transparencyWarnings(config));
  }

  /**
   * A bank the file gives another hashType while it holds imported hashes: refused before anything
   * is written, at the bank's `hashType` (docs/configuration-as-code.md, "What apply does").
   */
  private async refuseRetypedBanksWithImports(orgId: string, banks: readonly HashBankEntity[], state: CatalogState): Promise<void> {
    const problems: ErrorDetail[] = [];
    for (const { index, bankId, from, to } of retypedBanks(banks, state.entities.hashBank)) {
      const imported = importedHashCount(await this.aggregates.state(hashBankStream(orgId, bankId), hashBankDecider), from, to);
      if (imported === 0) continue;
      problems.push({
        title: 'Invalid configuration',
        pointer: `/hashBanks/${index}/hashType`,
        detail: `bank "${bankId}" holds ${imported} imported hash(es) of its ${from} type (warden bank import), which a ${to} bank would never match: keep ${from}, take them out first (warden bank remove, the bank still ${from}), or put the ${to} hashes in a bank with another id`,
      });
    }
    if (problems.length > 0) throw invalidInput(...problems);
  }

  /** What syncing the bank would append now (a dry run). */
  private async previewBank(orgId: string, sync: SyncConfiguredHashes): Promise<BankChange> {
    const state = await this.aggregates.state(hashBankStream(orgId, sync.bankId), hashBankDecider);
    return { bankId: sync.bankId, events: hashBankDecider.decide(sync, state) };
  }

  /** The bank brought to the configured hashes, its events a few an append (event size limits); no retry: a concurrent import is a 409. */
  private async syncBank(orgId: string, sync: SyncConfiguredHashes, context: CommandContext): Promise<BankChange> {
    const { events } = await this.aggregates.handle(hashBankStream(orgId, sync.bankId), hashBankDecider, sync, context, {
      eventsPerAppend: BANK_EVENTS_PER_APPEND,
      retries: 0,
    });
    return { bankId: sync.bankId, events };
  }
}

function report(
  orgId: string,
  dryRun: boolean,
  organization: ApplyReport['organization'],
  plan: CatalogPlan,
  banks: readonly BankChange[],
  eventsAppended: number,
  inboundTopic: ApplyReport['inboundTopic'],
  warnings: string[],
): ApplyReport {
  const count = (bank: BankChange, type: HashBankEvent['type']) => bank.events.filter((e) => e.type === type).reduce((n, e) => n + e.data.hashes.length, 0);
  return {
    orgId,
    dryRun,
    organization,
    created: plan.created,
    updated: plan.updated,
    archived: plan.archived,
    leftAlone: plan.leftAlone,
    settingsChanged: plan.settingsChanged,
    inboundTopic,
    drift: plan.drift,
    hashes: banks
      .map((b) => ({ bankId: b.bankId, added: count(b, 'HashBankHashesAdded'), removed: count(b, 'HashBankHashesRemoved') }))
      .filter((c) => c.added + c.removed > 0),
    warnings,
    eventsAppended,
  };
}
