import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { InboundTopicSettings, OrgConfig } from '../../domain/catalog.model.js';
import type { EntityKind, SettingsSection } from '../../domain/catalog.events.js';
import type { DriftEntry } from '../../domain/org-config.decider.js';

export interface ApplyReport {
  readonly orgId: string;
  readonly dryRun: boolean;
  readonly organization: { created: boolean; renamed: boolean };
  readonly created: Array<{ kind: EntityKind; id: string }>;
  readonly updated: Array<{ kind: EntityKind; id: string }>;
  readonly archived: Array<{ kind: EntityKind; id: string }>;
  readonly leftAlone: Array<{ kind: EntityKind; id: string }>;
  readonly settingsChanged: SettingsSection[];
  /** The file's `inboundTopic:` (in force once applied), for the report's line when it changes. */
  readonly inboundTopic: InboundTopicSettings;
  /** Queues and SSO settings last changed in the console, and what this apply does with them. */
  readonly drift: DriftEntry[];
  readonly hashes: Array<{ bankId: string; added: number; removed: number }>;
  /**
   * What the file's DSA mapping leaves out (docs/transparency.md): actions, policies and item
   * types whose decisions would get an incomplete statement of reasons. Only with `transparency:` on.
   */
  readonly warnings: string[];
  /** Events appended (0 on a dry run or when nothing changed). */
  readonly eventsAppended: number;
}

/** Brings an organization's stored configuration to a validated configuration file. */
export class ApplyConfigurationCommand extends Command<ApplyReport> {
  constructor(
    readonly config: OrgConfig,
    /** `file`: the file's name, recorded as the source of the queues and SSO settings it defines. */
    readonly options: { prune: boolean; dryRun: boolean; file?: string | null },
    readonly context: CommandContext,
  ) {
    super();
  }
}
