import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { ProjectionHost } from '#warden/storage';
import { transparencyProjection } from './projections/transparency.projection.js';
import { ListItemStatementsHandler } from './queries/list-item-statements/list-item-statements.handler.js';
import { ListStatementsHandler } from './queries/list-statements/list-statements.handler.js';
import { TransparencyReportHandler } from './queries/transparency-report/transparency-report.handler.js';
import { DEFAULT_SUBMISSION_OPTIONS, StatementSubmitter, SUBMISSION_OPTIONS } from './submission/statement-submitter.js';
import { submissionReactor } from './submission/submission.reactor.js';

export interface TransparencyOptions {
  /** This process submits statements to the Transparency Database (worker and all roles; never the CLI). */
  readonly submit?: boolean;
}

/**
 * DSA statements of reasons and transparency reports (docs/transparency.md): a projection of the
 * facts every module's events record, rendered with the catalog's DSA mapping when read, and
 * their submission to the Transparency Database. The routes are TransparencyHttpModule's.
 */
@Module({})
export class TransparencyModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    private readonly submitter: StatementSubmitter,
  ) {}

  static register(options: TransparencyOptions = {}): DynamicModule {
    return {
      module: TransparencyModule,
      imports: [CatalogModule],
      providers: [
        { provide: SUBMISSION_OPTIONS, useValue: { ...DEFAULT_SUBMISSION_OPTIONS, submit: options.submit ?? false } },
        StatementSubmitter,
        ListStatementsHandler,
        ListItemStatementsHandler,
        TransparencyReportHandler,
      ],
    };
  }

  onModuleInit(): void {
    this.projections.register(transparencyProjection);
    this.projections.register(submissionReactor(this.submitter));
  }
}
