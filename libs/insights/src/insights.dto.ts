import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import type { InsightsReport } from './queries/get-insights/get-insights.query.js';

/** The filters as sent; their format is checked with the period (the kernel's period.ts) and the queue by the query. */
export class InsightsRequestDto {
  @ApiPropertyOptional({ format: 'date', example: '2026-01-01', description: 'First UTC day of the period. Default: 29 days before `to`' })
  @IsOptional()
  @IsString({ message: 'expected a date, YYYY-MM-DD (UTC)' })
  from?: string;

  @ApiPropertyOptional({ format: 'date', example: '2026-06-30', description: 'Last UTC day of the period (included; at most 366 days). Default: today' })
  @IsOptional()
  @IsString({ message: 'expected a date, YYYY-MM-DD (UTC)' })
  to?: string;

  @ApiPropertyOptional({
    description:
      'A queue id: the queue charts (depth, time to decision, decisions per moderator) show that queue only. Default: every queue the caller may see ' +
      '(the child-safety queue only with VIEW_CHILD_SAFETY_DATA; without it, asked for by id, it is an unknown queue)',
  })
  @IsOptional()
  @IsString({ message: 'expected a queue id' })
  queue?: string;
}

class NamedDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
}
class SourceRowDto {
  @ApiProperty({ format: 'date' }) day!: string;
  @ApiProperty({ description: "A rule's actions" }) rule!: number;
  @ApiProperty({ description: "A moderator's decision's actions" }) moderator!: number;
  @ApiProperty({ description: "A strike threshold's actions" }) threshold!: number;
  @ApiProperty({ description: 'Actions the platform executed (POST /api/v1/actions)' }) executed!: number;
}
class CountsRowDto {
  @ApiProperty({ format: 'date' }) day!: string;
  @ApiProperty({ type: [Number], description: 'One count per series, in the order the series are listed' }) counts!: number[];
}
class ActionsByPolicyDto {
  @ApiProperty({ type: [NamedDto], description: "The policies named in the period ('' stands for actions naming none)" }) policies!: NamedDto[];
  @ApiProperty({ type: [CountsRowDto] }) rows!: CountsRowDto[];
}
class DepthRowDto {
  @ApiProperty({ format: 'date' }) day!: string;
  @ApiProperty({ type: [Number], description: 'Open jobs at the end of the day, per queue' }) depth!: number[];
  @ApiProperty({ type: [Number], description: 'The longest any open job had waited that day, seconds, per queue' }) oldestWaitSeconds!: number[];
}
class QueueDepthDto {
  @ApiProperty({ type: [NamedDto] }) queues!: NamedDto[];
  @ApiProperty({ type: [DepthRowDto] }) rows!: DepthRowDto[];
}
class QueueTimeDto {
  @ApiProperty() queueId!: string;
  @ApiProperty() name!: string;
  @ApiProperty() decided!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Seconds (upper edge of a log-spaced bin)' }) p50Seconds!: number | null;
  @ApiProperty({ type: Number, nullable: true }) p90Seconds!: number | null;
}
class DayTimeDto {
  @ApiProperty({ format: 'date' }) day!: string;
  @ApiProperty() decided!: number;
  @ApiProperty({ type: Number, nullable: true }) p50Seconds!: number | null;
  @ApiProperty({ type: Number, nullable: true }) p90Seconds!: number | null;
}
class TimeToDecisionDto {
  @ApiProperty({ type: [QueueTimeDto] }) byQueue!: QueueTimeDto[];
  @ApiProperty({ type: [DayTimeDto] }) byDay!: DayTimeDto[];
}
class ModeratorsDto {
  @ApiProperty({ type: [String], description: "The deciding moderators' user ids" }) moderators!: string[];
  @ApiProperty({ type: [CountsRowDto] }) rows!: CountsRowDto[];
}
class OutcomeDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() decided!: number;
  @ApiProperty({ description: 'Accepted appeals' }) overturned!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'overturned / decided; null when none was decided' }) overturnRate!: number | null;
}
class OverturnsDto {
  @ApiProperty({ type: [OutcomeDto] }) byPolicy!: OutcomeDto[];
  @ApiProperty({ type: [OutcomeDto] }) byRule!: OutcomeDto[];
}
class AutomationRowDto {
  @ApiProperty({ format: 'date' }) day!: string;
  @ApiProperty() automated!: number;
  @ApiProperty() human!: number;
}
class AutomationDto {
  @ApiProperty({ description: 'Actions of rules and strike thresholds' }) automated!: number;
  @ApiProperty({ description: "Actions of moderators' decisions and actions the platform executed" }) human!: number;
  @ApiProperty({ type: Number, nullable: true }) automatedShare!: number | null;
  @ApiProperty({ type: [AutomationRowDto] }) rows!: AutomationRowDto[];
}
class CappedRuleDto extends NamedDto {
  @ApiProperty({ type: Number, nullable: true }) maxDailyActions!: number | null;
}
class RuleActionsDto {
  @ApiProperty({ type: [CappedRuleDto] }) rules!: CappedRuleDto[];
  @ApiProperty({ type: [CountsRowDto] }) rows!: CountsRowDto[];
}

export class InsightsReportDto implements Record<keyof InsightsReport, unknown> {
  @ApiProperty({ format: 'date' }) from!: string;
  @ApiProperty({ format: 'date' }) to!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The queue filter; null: every queue' }) queueId!: string | null;
  @ApiProperty({ type: [String], description: "The period's UTC days, oldest first: every `rows` list has one row per day in this order" }) days!: string[];
  @ApiProperty({ type: [NamedDto], description: 'The queues one may filter by (the child-safety queue only with VIEW_CHILD_SAFETY_DATA)' })
  queues!: NamedDto[];
  @ApiProperty({ type: [SourceRowDto], description: 'Published actions per day by source' }) actionsBySource!: SourceRowDto[];
  @ApiProperty({ type: ActionsByPolicyDto, description: 'Published actions per day by policy' }) actionsByPolicy!: ActionsByPolicyDto;
  @ApiProperty({ type: QueueDepthDto, description: 'Queue depth and oldest waiting age per day' }) queueDepth!: QueueDepthDto;
  @ApiProperty({ type: TimeToDecisionDto, description: "Time to a moderator's decision, p50 and p90" }) timeToDecision!: TimeToDecisionDto;
  @ApiProperty({ type: ModeratorsDto, description: 'Decisions per moderator per day' }) decisionsByModerator!: ModeratorsDto;
  @ApiProperty({ type: OverturnsDto, description: 'Appeals decided in the period and overturned, per policy and per rule' }) appealOverturns!: OverturnsDto;
  @ApiProperty({ type: AutomationDto, description: 'Automated against human actions' }) automation!: AutomationDto;
  @ApiProperty({ type: RuleActionsDto, description: "Rules' actions per day against their maxDailyActions" }) ruleActions!: RuleActionsDto;
}
