import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { QueryInteger } from '#warden/platform/http';
import type { StatementPage } from './queries/list-statements/list-statements.query.js';
import type { TransparencyReport } from './queries/transparency-report/transparency-report.query.js';

/** The period as sent; its format is checked with the period (the kernel's period.ts). */
export class TransparencyReportRequestDto {
  @ApiPropertyOptional({ format: 'date', example: '2026-01-01', description: 'First UTC day of the period. Default: 29 days before `to`' })
  @IsOptional()
  @IsString({ message: 'expected a date, YYYY-MM-DD (UTC)' })
  from?: string;

  @ApiPropertyOptional({ format: 'date', example: '2026-06-30', description: 'Last UTC day of the period (included). Default: today' })
  @IsOptional()
  @IsString({ message: 'expected a date, YYYY-MM-DD (UTC)' })
  to?: string;
}

export class StatementsRequestDto extends TransparencyReportRequestDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 100, description: 'Statements per page' })
  @IsOptional()
  @QueryInteger(1, 1000)
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

class StatementItemDto {
  @ApiProperty() id!: string;
  @ApiProperty() typeId!: string;
}

class StatementSubmissionDto {
  @ApiProperty({
    enum: ['off', 'incomplete', 'unsent', 'pending', 'retrying', 'submitted', 'rejected', 'abandoned'],
    description:
      'off: no submission configured; incomplete: the mapping lacks something; unsent: not in a batch yet; pending/retrying: its batch is due; submitted: the Database has it; ' +
      'rejected: the Database refused its batch; abandoned: every retry failed',
  })
  state!: 'off' | 'incomplete' | 'unsent' | 'pending' | 'retrying' | 'submitted' | 'rejected' | 'abandoned';
  @ApiProperty({ type: String, nullable: true }) batchId!: string | null;
  @ApiProperty({ description: 'Attempts of its batch so far' }) attempts!: number;
  @ApiProperty({ type: String, nullable: true, description: 'The last failure or the refusal' }) lastError!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) submittedAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When its batch is tried next' }) nextAttemptAt!: string | null;
}

export class StatementViewDto {
  @ApiProperty({ description: "The statement's platform unique identifier (puid): opaque, derived from the published action" }) puid!: string;
  @ApiProperty({ description: "The published action's delivery id (its callback's; Warden's reference, not part of the statement)" }) deliveryId!: string;
  @ApiProperty({ format: 'date-time' }) decidedAt!: string;
  @ApiProperty({ enum: ['rule', 'decision', 'strike-threshold', 'post-actions'], description: 'What took the decision' }) trigger!:
    'rule' | 'decision' | 'strike-threshold' | 'post-actions';
  @ApiProperty({ type: StatementItemDto, description: "The item acted on (Warden's reference; not part of the statement)" }) item!: StatementItemDto;
  @ApiProperty() actionId!: string;
  @ApiProperty({ type: [String] }) policyIds!: string[];
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description:
      "The statement in the DSA Transparency Database's submission format (libs/transparency/schema/statement-of-reasons.schema.json); null when the mapping lacks something",
  })
  statement!: Record<string, string | string[]> | null;
  @ApiProperty({ type: [String], description: 'What the DSA mapping lacks for this statement; empty when complete' }) problems!: string[];
  @ApiProperty({ type: [String], description: 'The redress open to the affected user (DSA Art. 17(3)(f))' }) redress!: string[];
  @ApiProperty({ type: StatementSubmissionDto, description: 'Its submission to the DSA Transparency Database (docs/transparency.md, "Submission")' })
  submission!: StatementSubmissionDto;
}

export class ItemStatementsDto {
  @ApiProperty({ type: [StatementViewDto], description: 'Newest first' }) statements!: StatementViewDto[];
}

export class StatementPageDto implements Record<keyof StatementPage, unknown> {
  @ApiProperty({ format: 'date' }) from!: string;
  @ApiProperty({ format: 'date' }) to!: string;
  @ApiProperty({ type: [StatementViewDto] }) statements!: StatementViewDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' }) nextCursor!: string | null;
}

class CategoryCountDto {
  @ApiProperty() category!: string;
  @ApiProperty() count!: number;
}
class NoticesDto {
  @ApiProperty() total!: number;
  @ApiProperty({ type: [CategoryCountDto] }) byCategory!: CategoryCountDto[];
}
class ReporterTypeCountDto {
  @ApiProperty() reporterType!: string;
  @ApiProperty() trustedFlagger!: boolean;
  @ApiProperty() count!: number;
}
class ActionRowDto {
  @ApiProperty({ type: String, nullable: true }) policyId!: string | null;
  @ApiProperty({ type: String, nullable: true }) category!: string | null;
  @ApiProperty({ enum: ['notice', 'trusted-flagger', 'own-initiative'] }) source!: 'notice' | 'trusted-flagger' | 'own-initiative';
  @ApiProperty() automatedDetection!: boolean;
  @ApiProperty() automatedDecision!: boolean;
  @ApiProperty() count!: number;
}
class ActionsDto {
  @ApiProperty() total!: number;
  @ApiProperty({ type: [ActionRowDto] }) rows!: ActionRowDto[];
}
class NoticeToActionDto {
  @ApiProperty() count!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Seconds, rounded down to 3 significant digits' }) medianSeconds!: number | null;
  @ApiProperty({ type: Number, nullable: true }) p90Seconds!: number | null;
}
class ComplaintsDto {
  @ApiProperty() received!: number;
  @ApiProperty() decided!: number;
  @ApiProperty() overturned!: number;
  @ApiProperty({ type: Number, nullable: true }) medianDurationSeconds!: number | null;
}

export class TransparencyReportDto implements Record<keyof TransparencyReport, unknown> {
  @ApiProperty({ format: 'date' }) from!: string;
  @ApiProperty({ format: 'date' }) to!: string;
  @ApiProperty({ type: NoticesDto, description: 'Reports received, by the DSA category of the policy they name' }) notices!: NoticesDto;
  @ApiProperty({ type: [ReporterTypeCountDto] }) reportsByReporterType!: ReporterTypeCountDto[];
  @ApiProperty({ type: ActionsDto, description: 'Restricting actions by policy × source × automated detection × automated decision' }) actions!: ActionsDto;
  @ApiProperty({ type: NoticeToActionDto }) noticeToAction!: NoticeToActionDto;
  @ApiProperty({ type: ComplaintsDto, description: 'Appeals received, decided, overturned, and the median time to decision' }) complaints!: ComplaintsDto;
  @ApiProperty() accountSuspensions!: number;
  @ApiProperty() accountTerminations!: number;
}
