import { ApiProperty } from '@nestjs/swagger';
import type { AppealsReport } from './appeals-report.query.js';

class AppealCountsDto {
  @ApiProperty({ description: 'Appeals whose appealedAt is in the window' }) received!: number;
  @ApiProperty({ description: 'Of those, decided so far (ACCEPT_APPEAL or REJECT_APPEAL)' }) decided!: number;
  @ApiProperty({ description: 'Accepted: the appealed action was overturned' }) accepted!: number;
  @ApiProperty() rejected!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'accepted / decided, 0 to 1; null when none was decided' }) overturnRate!: number | null;
}

class AppealReportRowDto extends AppealCountsDto {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'As the newest callback in the window named it' }) name!: string;
}

/** GET /api/console/v1/reports/appeals. */
export class AppealsReportResponseDto implements Record<keyof AppealsReport, unknown> {
  @ApiProperty({ format: 'date-time' }) from!: string;
  @ApiProperty({ format: 'date-time' }) to!: string;
  @ApiProperty({ type: AppealCountsDto, description: 'Every appeal of the window once' }) total!: AppealCountsDto;
  @ApiProperty({
    type: [AppealReportRowDto],
    description:
      'Per rule named by a callback Warden sent for the actioned item under one of the appealed actions (an appeal counts for each), most appeals first',
  })
  rules!: AppealReportRowDto[];
  @ApiProperty({ type: [AppealReportRowDto], description: 'Per policy named by those callbacks, most appeals first' }) policies!: AppealReportRowDto[];
  @ApiProperty({ type: AppealCountsDto, description: "Appeals of actions a decision sent (a moderator's, or POST /api/v1/actions)" })
  moderators!: AppealCountsDto;
  @ApiProperty({
    type: AppealCountsDto,
    description: 'Appeals of actions no callback of which names a rule, a policy or a decision (an item Warden never actioned, a strike threshold)',
  })
  unattributed!: AppealCountsDto;
}
