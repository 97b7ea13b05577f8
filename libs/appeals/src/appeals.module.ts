import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CatalogModule } from '#warden/catalog';
import { PersonalDataPolicy } from '#warden/eventstore';
import type { EventStore } from '#warden/eventstore';
import { AggregateStore, EVENT_STORE, ProjectionHost } from '#warden/storage';
import { APPEALS_PERSONAL_DATA } from './contracts.js';
import { appealDecisionReactor } from './decisions/appeal-decision.reactor.js';
import { SubmitAppealHandler } from './commands/submit-appeal/submit-appeal.handler.js';
import { JOB_APPEALS } from '#warden/review';
import { AppealDetailsReader } from './review/appeal-details.reader.js';
import { AppealsReportHandler } from './queries/appeals-report/appeals-report.handler.js';
import { appealOutcomesProjection } from './projections/appeal-outcomes.projection.js';
import { appealRoutingReactor } from './enqueue/appeal-routing.reactor.js';

/**
 * Appeals: POST /api/v1/report/appeal, appeal review jobs and their decisions, and the appeal
 * decision callback. The routes are AppealsHttpModule's.
 */
@Module({
  imports: [CatalogModule],
  providers: [SubmitAppealHandler, AppealsReportHandler, AppealDetailsReader, { provide: JOB_APPEALS, useExisting: AppealDetailsReader }],
  // Review's JOB_APPEALS port (the appeal job's view), composed in app.module.ts: docs/architecture.md, "Ports".
  exports: [JOB_APPEALS],
})
export class AppealsModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(PersonalDataPolicy) private readonly personalData: PersonalDataPolicy,
    private readonly commands: CommandBus,
    private readonly aggregates: AggregateStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  onModuleInit(): void {
    // The rules of the events this module owns, declared beside them (contracts.ts).
    this.personalData.registerAll(APPEALS_PERSONAL_DATA);
    this.projections.register(appealRoutingReactor({ commands: this.commands }));
    this.projections.register(appealDecisionReactor({ commands: this.commands, aggregates: this.aggregates, events: this.events }));
    this.projections.register(appealOutcomesProjection);
  }
}
