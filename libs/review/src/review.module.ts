import { type DynamicModule, Inject, Module, type OnModuleInit, type Type } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { PersonalDataPolicy } from '#warden/eventstore';
import { UpcasterRegistry } from '#warden/kernel';
import { REVIEW_PERSONAL_DATA } from './contracts.js';
import { REVIEW_UPCASTERS } from './domain/review.upcasters.js';
import { ProjectionHost } from '#warden/storage';
import { ClaimNextJobHandler } from './commands/claim-next-job/claim-next-job.handler.js';
import { JobEnqueuer } from './enqueue/job-enqueuer.js';
import { GetReviewJobHandler } from './queries/get-review-job/get-review-job.handler.js';
import { LoadFullItemHandler } from './commands/load-full-item/load-full-item.handler.js';
import { ReviewQueues } from './review-queues.js';
import { ClaimCoordinator } from './commands/claim-next-job/claim-coordinator.js';
import { ReviewJobAccess } from './review-job-access.js';
import { JobReports } from './job-reports.js';
import { ItemVersions } from './item-versions.js';
import { RenewJobLockHandler } from './commands/renew-job-lock/renew-job-lock.handler.js';
import { ReleaseJobLockHandler } from './commands/release-job-lock/release-job-lock.handler.js';
import { SkipJobHandler } from './commands/skip-job/skip-job.handler.js';
import { TakeBackJobHandler } from './commands/take-back-job/take-back-job.handler.js';
import { AssignJobHandler } from './commands/assign-job/assign-job.handler.js';
import { ListReviewQueuesHandler } from './queries/list-review-queues/list-review-queues.handler.js';
import { ListReviewJobsHandler } from './queries/list-review-jobs/list-review-jobs.handler.js';
import { reviewEnqueueReactor } from './enqueue/review-enqueue.reactor.js';
import { reviewJobsProjection } from './projections/review-jobs.projection.js';
import { reportJobsReactor } from './enqueue/report-jobs.reactor.js';
import { ReviewRouter } from './enqueue/review-router.js';
import { AggregateStore } from '#warden/storage';
import { DecideJobHandler } from './commands/decide-job/decide-job.handler.js';
import { JobAutoCloser } from './decisions/job-auto-closer.js';
import { autoCloseReactor } from './decisions/auto-close.reactor.js';
import { jobAutoCloserProvider } from './decisions/job-auto-closer.provider.js';
import { autoCloseQueuesProjection } from './projections/auto-close-queues.projection.js';
import { childSafetyReportsProjection } from './projections/child-safety-reports.projection.js';
import { ListChildSafetyReportsHandler } from './queries/list-child-safety-reports/list-child-safety-reports.handler.js';
import { OpenAppealJobHandler } from './commands/open-appeal-job/open-appeal-job.handler.js';
import { CloseErasedUserJobsHandler } from './commands/close-erased-user-jobs/close-erased-user-jobs.handler.js';

export interface ReviewOptions {
  /**
   * The rules engine's module, as composed (RulesModule.register): it provides REVIEW_ROUTING, which
   * routes rules' enqueues and appeals (reports it routes itself, and review opens their jobs from ReportRouted).
   */
  readonly routing: DynamicModule | Type<unknown>;
  /** The module that provides USER_STRIKES and USER_SCORE (enforcement); without it the job view shows no score or strikes. */
  readonly strikes?: Type<unknown> | DynamicModule;
  /** The module that provides JOB_APPEALS (appeals); without it an appeal job's view shows no appellant or reason. */
  readonly appeals?: Type<unknown>;
}

/**
 * Human review: review queues, jobs opened from routed reports, rules' enqueues and appeals, review
 * jobs under an exclusive lock, decisions. The routes are ReviewHttpModule's. What it uses of other modules beside the
 * catalog comes through ports, from the modules app.module.ts passes in (docs/architecture.md,
 * "Ports").
 */
@Module({
  imports: [CatalogModule],
  providers: [
    JobEnqueuer,
    ReviewQueues,
    ClaimNextJobHandler,
    GetReviewJobHandler,
    LoadFullItemHandler,
    ClaimCoordinator,
    ReviewJobAccess,
    JobReports,
    ItemVersions,
    RenewJobLockHandler,
    ReleaseJobLockHandler,
    SkipJobHandler,
    TakeBackJobHandler,
    AssignJobHandler,
    ListReviewQueuesHandler,
    ListReviewJobsHandler,
    ReviewRouter,
    DecideJobHandler,
    ListChildSafetyReportsHandler,
    jobAutoCloserProvider,
    OpenAppealJobHandler,
    CloseErasedUserJobsHandler,
  ],
})
export class ReviewModule implements OnModuleInit {
  static register(options: ReviewOptions): DynamicModule {
    return {
      module: ReviewModule,
      // Beside the decorator's: the modules that provide its ports.
      imports: [options.routing, ...(options.strikes ? [options.strikes] : []), ...(options.appeals ? [options.appeals] : [])],
    };
  }

  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(PersonalDataPolicy) private readonly personalData: PersonalDataPolicy,
    @Inject(UpcasterRegistry) private readonly upcasters: UpcasterRegistry,
    private readonly enqueuer: JobEnqueuer,
    private readonly router: ReviewRouter,
    private readonly aggregates: AggregateStore,
    private readonly autoCloser: JobAutoCloser,
    private readonly jobReports: JobReports,
  ) {}

  onModuleInit(): void {
    // The rules of the events this module owns, declared beside them (contracts.ts).
    this.personalData.registerAll(REVIEW_PERSONAL_DATA);
    this.upcasters.register(...REVIEW_UPCASTERS);
    this.projections.register(reviewJobsProjection);
    this.projections.register(reviewEnqueueReactor({ enqueuer: this.enqueuer, router: this.router }));
    this.projections.register(reportJobsReactor({ enqueuer: this.enqueuer, aggregates: this.aggregates, jobReports: this.jobReports }));
    this.projections.register(childSafetyReportsProjection);
    this.projections.register(autoCloseQueuesProjection);
    this.projections.register(autoCloseReactor({ closer: this.autoCloser }));
  }
}
