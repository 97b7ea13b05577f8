import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DECISION_TYPES, ENQUEUE_SOURCES } from '../../domain/review-job.events.js';
import { ApiNullableObject } from '../api-nullable-object.decorator.js';
import type { ReviewJobView } from './review-job.view.js';

const DATA = { type: 'object', additionalProperties: true } as const;
const STATES = ['PENDING', 'LOCKED', 'ASSIGNED', 'CLOSED'];

class ItemRefDto {
  @ApiProperty() id!: string;
  @ApiProperty() typeId!: string;
}

class StoredItemDto extends ItemRefDto {
  @ApiProperty({ type: String, nullable: true }) typeName!: string | null;
  @ApiProperty({ description: 'The latest version Warden has' }) version!: number;
  @ApiProperty({ ...DATA, nullable: true, description: 'As submitted (personal data, shown to you only)' }) data!: Record<string, unknown> | null;
}

class RelatedItemDto extends StoredItemDto {
  @ApiProperty({ description: 'The RELATED_ITEM field of the job item that names it' }) field!: string;
}

class JobItemDto extends ItemRefDto {
  @ApiProperty() typeName!: string;
  @ApiProperty({ description: 'The latest version a request named' }) version!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'The latest version Warden has (data is of this one)' }) latestVersion!: number | null;
  @ApiProperty({ ...DATA, nullable: true }) data!: Record<string, unknown> | null;
  @ApiNullableObject(ItemRefDto) creator!: ItemRefDto | null;
}

class FieldDto {
  @ApiProperty() name!: string;
  @ApiProperty() type!: string;
  @ApiProperty() required!: boolean;
  @ApiProperty() array!: boolean;
  @ApiProperty({ type: [String] }) itemTypeIds!: string[];
  @ApiProperty({ type: [String], description: 'Roles the field plays: creator, createdAt, thread, displayName' }) roles!: string[];
}

class JobItemTypeDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['CONTENT', 'USER', 'THREAD'] }) kind!: string;
  @ApiProperty({ type: [FieldDto] }) fields!: FieldDto[];
}

class JobReporterDto extends ItemRefDto {
  @ApiProperty({ enum: ['user'] }) kind!: 'user';
}

class ReportDto {
  @ApiProperty() reportId!: string;
  @ApiProperty({ type: JobReporterDto }) reporter!: JobReporterDto;
  @ApiProperty({ format: 'date-time' }) reportedAt!: string;
  @ApiProperty({ type: String, nullable: true, description: 'What the reporter wrote' }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true }) policyId!: string | null;
  @ApiProperty() csam!: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'The job it was carried from' }) fromJobId!: string | null;
}

class ContextItemDto extends ItemRefDto {
  @ApiProperty({ type: String, nullable: true }) typeName!: string | null;
  @ApiProperty(DATA) data!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) createdAt!: string | null;
  @ApiProperty({ description: 'Listed in a report as specifically reported' }) reported!: boolean;
}

class CreatorDto {
  @ApiProperty({ type: ItemRefDto }) item!: ItemRefDto;
  @ApiNullableObject(StoredItemDto) user!: StoredItemDto | null;
  @ApiProperty({ type: Number, nullable: true, description: "The creator's live score, 1 (worst) to 5 (best), as GET /api/v1/user_scores answers it" })
  userScore!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: "The creator's strikes within the strike window now; null when none can be counted" })
  strikeCount!: number | null;
}

class ConditionDto {
  @ApiProperty({ description: 'Where in the condition set (`conditions[0].conditions[1]`)' }) path!: string;
  @ApiProperty({ enum: ['passed', 'failed', 'unknown', 'skipped'] }) outcome!: string;
  @ApiProperty({ required: false, description: 'The signal value' }) value?: unknown;
  @ApiPropertyOptional(DATA) detail?: Record<string, unknown>;
  @ApiProperty({ required: false }) error?: string;
}

class RuleExplanationDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() outcome!: string;
  @ApiProperty({ type: [ConditionDto] }) conditions!: ConditionDto[];
}

class JobEvaluationDto {
  @ApiProperty() version!: number;
  @ApiProperty() environment!: string;
  @ApiProperty({ format: 'date-time' }) evaluatedAt!: string;
  @ApiProperty({ description: 'The action that sent the item here' }) actionId!: string;
  @ApiProperty({ type: [RuleExplanationDto] }) rules!: RuleExplanationDto[];
}

class HashMatchDto {
  @ApiProperty() ruleId!: string;
  @ApiProperty() bankId!: string;
  @ApiProperty({ type: String, nullable: true }) bankName!: string | null;
  @ApiProperty() distance!: number;
  @ApiProperty({ type: String, nullable: true, description: 'The banked hash matched' }) hash!: string | null;
}

class PastDecisionDto {
  @ApiProperty({ enum: DECISION_TYPES }) type!: string;
  @ApiProperty({ type: String, nullable: true }) actorId!: string | null;
  @ApiProperty({ format: 'date-time' }) decidedAt!: string;
}

class PastJobDto {
  @ApiProperty() jobId!: string;
  @ApiProperty() queueId!: string;
  @ApiProperty({ type: ItemRefDto }) item!: ItemRefDto;
  @ApiProperty({ enum: STATES }) state!: string;
  @ApiProperty({ format: 'date-time' }) openedAt!: string;
  @ApiProperty() reportCount!: number;
  @ApiNullableObject(PastDecisionDto) decision!: PastDecisionDto | null;
}

class HistoryDto {
  @ApiProperty({ type: [PastJobDto], description: 'Other jobs of this item, newest first' }) item!: PastJobDto[];
  @ApiProperty({ type: [PastJobDto], description: "Jobs of the creator's user item, newest first" }) creator!: PastJobDto[];
}

class JobPolicyDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() penalty!: string;
}

class LockViewDto {
  @ApiProperty() moderatorId!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
}

class DecisionViewDto {
  @ApiProperty() decisionId!: string;
  @ApiProperty({ enum: DECISION_TYPES }) type!: string;
  @ApiProperty({ type: String, nullable: true }) actorId!: string | null;
  @ApiProperty({ format: 'date-time' }) decidedAt!: string;
}

/** The schemas only nullable properties of the job view name (ApiNullableObject). */
export const JOB_VIEW_NULLABLE_MODELS = [ItemRefDto, StoredItemDto, PastDecisionDto, JobItemTypeDto, CreatorDto, LockViewDto, DecisionViewDto];

/** The job view (spec 1.8, enriched) as GET /api/console/v1/jobs/{jobId} and a claim return it. */
export class ReviewJobResponseDto implements Record<keyof ReviewJobView, unknown> {
  @ApiProperty() jobId!: string;
  @ApiProperty() queueId!: string;
  @ApiProperty({ enum: STATES }) state!: string;
  @ApiProperty({ type: JobItemDto }) item!: JobItemDto;
  @ApiNullableObject(JobItemTypeDto) itemType!: JobItemTypeDto | null;
  @ApiProperty({ enum: ENQUEUE_SOURCES, description: 'How the job was first enqueued' }) source!: string;
  @ApiProperty({ enum: ENQUEUE_SOURCES, isArray: true }) sources!: string[];
  @ApiProperty() reportCount!: number;
  @ApiProperty({ format: 'date-time' }) openedAt!: string;
  @ApiProperty({ type: [JobPolicyDto], description: 'Policies the requests name' }) policies!: JobPolicyDto[];
  @ApiProperty({ type: [ReportDto], description: 'Every report, oldest first' }) reports!: ReportDto[];
  @ApiProperty({ type: [ContextItemDto], description: 'The reports\' thread items by time (those without one last)' }) thread!: ContextItemDto[];
  @ApiProperty({ type: [ContextItemDto] }) additionalItems!: ContextItemDto[];
  @ApiNullableObject(CreatorDto) creator!: CreatorDto | null;
  @ApiProperty({ type: [JobEvaluationDto], description: 'The evaluations whose actions sent the item here' }) evaluations!: JobEvaluationDto[];
  @ApiProperty({ type: [HashMatchDto] }) hashMatches!: HashMatchDto[];
  @ApiProperty({ type: HistoryDto }) history!: HistoryDto;
  @ApiProperty({ type: [RelatedItemDto] }) relatedItems!: RelatedItemDto[];
  @ApiNullableObject(LockViewDto, { description: 'The live lock (its token is only ever given to its holder)' }) lock!: LockViewDto | null;
  @ApiProperty({ type: String, nullable: true }) assignedTo!: string | null;
  @ApiNullableObject(DecisionViewDto) decision!: DecisionViewDto | null;
}
