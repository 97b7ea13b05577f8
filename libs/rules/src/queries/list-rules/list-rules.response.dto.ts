import { ApiProperty } from '@nestjs/swagger';
import { RULE_STATUSES, type RuleStatus } from '#warden/catalog';

export class RuleMatchDto {
  @ApiProperty({ example: 'p-1' })
  itemId!: string;
  @ApiProperty({ example: 'post' })
  itemTypeId!: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'The item version evaluated (0 for the first submission, +1 per re-submission)' })
  version!: number;
  @ApiProperty({ format: 'date-time', description: 'When the item was evaluated' })
  evaluatedAt!: string;
  @ApiProperty({
    enum: ['LIVE', 'RETROACTION', 'MANUAL'],
    description: 'LIVE: a submission; RETROACTION: `warden rules retroact`; MANUAL: the legacy content endpoint',
  })
  environment!: string;
  @ApiProperty({ type: [String], description: 'The actions the rule published for the item (none when capped)' })
  actionIds!: string[];
  @ApiProperty({ description: "Passed, but the rule's maxDailyActions for the day was already reached: nothing was published" })
  capped!: boolean;
}

export class RuleSummaryDto {
  @ApiProperty({ example: 'remove-scams' })
  id!: string;
  @ApiProperty({ example: 'Remove scams' })
  name!: string;
  @ApiProperty({ enum: RULE_STATUSES, description: 'As configured, except EXPIRED from `expiresAt` on (the rule no longer runs)' })
  status!: RuleStatus;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the rule stops running; null: never' })
  expiresAt!: string | null;
  @ApiProperty({ type: [String], description: 'The item types it evaluates' })
  itemTypeIds!: string[];
  @ApiProperty({ type: [String], description: 'The actions it publishes when it passes' })
  actionIds!: string[];
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1, description: 'Items it may act on per UTC day; null: no cap' })
  maxDailyActions!: number | null;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Actions today (UTC day): with a cap, the items counted toward it (identical content once); without one, the live ' +
      'evaluations in which the rule published an action',
  })
  actionsToday!: number;
  @ApiProperty({ type: [RuleMatchDto], description: 'Its latest matches (backtests excepted), newest first, at most 10' })
  recentMatches!: RuleMatchDto[];
}

export class ListRulesResponseDto {
  @ApiProperty({ type: [RuleSummaryDto], description: 'The live (not archived) rules of the organization, by id' })
  rules!: RuleSummaryDto[];
}
