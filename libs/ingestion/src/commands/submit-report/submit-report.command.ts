import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/**
 * A user report (docs/review.md, "`POST /api/v1/report`"), as received: checked whole against the catalog, then the
 * reported item is recorded as an item version (source `report`) and the report as a
 * ReportSubmitted. All or nothing: nothing is recorded unless every part passed every check.
 */
export class SubmitReportCommand extends Command<{ reportId: string }> {
  constructor(
    readonly body: Record<string, unknown>,
    readonly context: CommandContext,
  ) {
    super();
  }
}
