import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_FREE_TEXT_LENGTH } from '#warden/kernel';
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
  @ApiProperty({ type: String, nullable: true, description: "That version's typeVersion (null: none sent)" }) typeVersion!: string | null;
  @ApiProperty({ ...DATA, nullable: true, description: 'As submitted (personal data, shown to you only)' }) data!: Record<string, unknown> | null;
}

class RelatedItemDto extends StoredItemDto {
  @ApiProperty({ description: 'The RELATED_ITEM field of the job item that names it' }) field!: string;
}

class JobItemDto extends ItemRefDto {
  @ApiProperty() typeName!: string;
  @ApiProperty({
    description:
      "The version shown (data, creator and contentDigest are this version's): the one your claim showed while you hold the job's lock, else the latest Warden has. " +
      "Send it as the decision's itemVersion",
  })
  version!: number;
  @ApiProperty({ description: 'The latest version a request named' }) requestedVersion!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'The latest version Warden has (newer than version when one arrived after your claim)' })
  latestVersion!: number | null;
  @ApiProperty({ ...DATA, nullable: true }) data!: Record<string, unknown> | null;
  @ApiNullableObject(ItemRefDto) creator!: ItemRefDto | null;
  @ApiProperty({ type: String, nullable: true, description: "The shown version's typeVersion as recorded (null: none sent)" }) typeVersion!: string | null;
  @ApiProperty({
    type: String,
    enum: ['original', 'partial'],
    nullable: true,
    description: "The shown version's schema variant: partial when it was sent with fields left out",
  })
  typeSchemaVariant!: 'original' | 'partial' | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'How the shown version arrived: items, content, report, topic, or partial-fetch (fetched from the partial-items endpoint: docs/partial-items.md)',
  })
  versionSource!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "Digest of the shown version's content (canonical JSON of data and creator, SHA-256, base64url), as a decision on it records it; null when unreadable (erased)",
  })
  contentDigest!: string | null;
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
  @ApiProperty({ type: String, nullable: true, maxLength: MAX_FREE_TEXT_LENGTH, description: 'What the reporter wrote' }) reason!: string | null;
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
  // Typed as GET /api/v1/items/{typeId}/{id}/evaluations types the same value: a bare `unknown`
  // would be published as `{type: object}`, which generated clients read as an empty object.
  @ApiPropertyOptional({
    description:
      "The signal's value (a boolean for the text and hash signals, a number for scores, distances and counts), or without " +
      "a signal the field's value when it is a boolean or a number; absent when not computed or for other field values; " +
      'null when the signal answered null.',
    anyOf: [{ type: 'boolean' }, { type: 'number', nullable: true }],
  })
  value?: boolean | number | null;
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
  @ApiProperty({ enum: ['LIVE', 'RETROACTION', 'MANUAL'] }) environment!: string;
  @ApiProperty({ format: 'date-time' }) evaluatedAt!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The action that sent the item here; null for an evaluation that did not' }) actionId!:
    string | null;
  @ApiProperty({ type: [String], description: 'Every action the evaluation published' }) actions!: string[];
  @ApiProperty({ type: [RuleExplanationDto], description: 'The rules that sent the item here; for another evaluation, every rule that passed' })
  rules!: RuleExplanationDto[];
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

class NamedRefDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
}

class CallbackDecisionDto {
  @ApiProperty() decisionId!: string;
  @ApiProperty() jobId!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The moderator who took it' }) moderatorId!: string | null;
  @ApiProperty({ format: 'date-time' }) decidedAt!: string;
}

class CallbackDeliveryStateDto {
  @ApiProperty({ enum: ['pending', 'failed', 'delivered', 'dead'], description: 'failed: a retry is scheduled; dead: dead-lettered' }) status!: string;
  @ApiProperty({ description: 'Attempts made, over every delivery cycle' }) attempts!: number;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) deliveredAt!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) deadLetteredAt!: string | null;
}

class ActionCallbackDto {
  @ApiProperty() deliveryId!: string;
  @ApiProperty({
    enum: ['rule', 'decision', 'strike-threshold', 'post-actions'],
    description: "What sent it: a rule, a moderator's decision, a strike threshold, or the platform through POST /api/v1/actions",
  })
  trigger!: string;
  @ApiProperty({ type: [NamedRefDto], description: 'The policies the callback named' }) policies!: NamedRefDto[];
  @ApiProperty({ type: [NamedRefDto], description: 'The rules the callback named (none for decisions)' }) rules!: NamedRefDto[];
  @ApiNullableObject(CallbackDecisionDto, { description: 'The review decision that sent it; null otherwise' }) decision!: CallbackDecisionDto | null;
  @ApiProperty({ format: 'date-time' }) requestedAt!: string;
  @ApiProperty({ type: CallbackDeliveryStateDto }) delivery!: CallbackDeliveryStateDto;
}

class JobActionDto {
  @ApiProperty({ description: 'The delivery of its callback' }) deliveryId!: string;
  @ApiProperty({ type: ItemRefDto, description: 'The item acted on' }) item!: ItemRefDto;
  @ApiProperty() actionId!: string;
  @ApiProperty({ type: String, nullable: true, description: "The live action's name; null when the organization has no such action" }) actionName!:
    string | null;
  @ApiProperty({ enum: ['rule', 'decision', 'strike-threshold', 'post-actions'], description: 'What published it' }) trigger!: string;
  @ApiProperty({ type: [NamedRefDto] }) policies!: NamedRefDto[];
  @ApiProperty({ type: [NamedRefDto], description: 'The rules that published it (none for decisions)' }) rules!: NamedRefDto[];
  @ApiProperty({ format: 'date-time' }) requestedAt!: string;
  @ApiNullableObject(CallbackDeliveryStateDto, { description: 'How its callback went; null while its delivery is not recorded yet' })
  delivery!: CallbackDeliveryStateDto | null;
}

class JobActionsDto {
  @ApiProperty({ type: [JobActionDto], description: 'The actions published on this item, newest first' }) item!: JobActionDto[];
  @ApiProperty({ type: [JobActionDto], description: "The creator's recent actions on any of their items (this one included), newest first, at most 20" })
  creator!: JobActionDto[];
}

class AppealedActionDto {
  @ApiProperty({ description: "An id of the appeal's actionsTaken" }) actionId!: string;
  @ApiProperty({ type: String, nullable: true, description: "The live action's name; null when the organization has no such action" }) actionName!:
    string | null;
  @ApiProperty({ type: [ActionCallbackDto], description: 'The callbacks Warden sent for the actioned item with this action id, oldest first' })
  callbacks!: ActionCallbackDto[];
}

class ViolatingPolicyDto {
  @ApiProperty() id!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Null for a policy the organization no longer has' }) name!: string | null;
}

class StrikeEntryDto {
  @ApiProperty() strikes!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The count once these strikes were in; null without VIEW_CHILD_SAFETY_DATA (it would tell of a strike not listed)',
  })
  countAfter!: number | null;
  @ApiProperty() actionId!: string;
  @ApiProperty({ type: [String] }) policyIds!: string[];
  @ApiProperty({ type: ItemRefDto, description: 'The item actioned' }) item!: ItemRefDto;
  @ApiProperty({ format: 'date-time' }) appliedAt!: string;
  @ApiProperty({ description: 'Still counted now (within the strike window, not taken back)' }) counting!: boolean;
}

class AppellantStrikesDto {
  @ApiProperty({ description: 'The live count within the strike window' }) count!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'strikes.windowDays; null: strikes never expire' }) windowDays!: number | null;
  @ApiProperty({ type: [StrikeEntryDto], description: 'Newest first, at most 100' }) history!: StrikeEntryDto[];
}

class AppealViewDto {
  @ApiProperty() appealId!: string;
  @ApiProperty({ format: 'date-time' }) appealedAt!: string;
  @ApiNullableObject(ItemRefDto, { description: 'Who appealed (appealedBy)' }) appellant!: ItemRefDto | null;
  @ApiProperty({ type: String, nullable: true, description: 'What the appellant wrote (personal data): null when none, or once erased' }) reason!:
    string | null;
  @ApiProperty({ type: [ViolatingPolicyDto] }) violatingPolicies!: ViolatingPolicyDto[];
  @ApiProperty({ type: [AppealedActionDto], description: 'Each of actionsTaken, resolved to what Warden did' }) actionsTaken!: AppealedActionDto[];
  @ApiNullableObject(AppellantStrikesDto, { description: "The appellant's strikes; null where none can be counted" }) strikes!: AppellantStrikesDto | null;
}

/** The schemas only nullable properties of the job view name (ApiNullableObject). */
export const JOB_VIEW_NULLABLE_MODELS = [
  ItemRefDto,
  StoredItemDto,
  PastDecisionDto,
  JobItemTypeDto,
  CreatorDto,
  LockViewDto,
  DecisionViewDto,
  CallbackDecisionDto,
  CallbackDeliveryStateDto,
  AppellantStrikesDto,
  AppealViewDto,
];

/** The job view (enriched: docs/review.md, "The job view") as GET /api/console/v1/jobs/{jobId} and a claim return it. */
export class ReviewJobResponseDto implements Record<keyof ReviewJobView, unknown> {
  @ApiProperty() jobId!: string;
  @ApiProperty() queueId!: string;
  @ApiProperty({ enum: STATES }) state!: string;
  @ApiProperty({ type: JobItemDto }) item!: JobItemDto;
  @ApiNullableObject(JobItemTypeDto) itemType!: JobItemTypeDto | null;
  @ApiProperty({ enum: ENQUEUE_SOURCES, description: 'How the job was first enqueued' }) source!: string;
  @ApiProperty({ enum: ENQUEUE_SOURCES, isArray: true }) sources!: string[];
  @ApiProperty({ description: 'Every report merged into the job (`reports` lists the newest 1,000)' }) reportCount!: number;
  @ApiProperty({ format: 'date-time' }) openedAt!: string;
  @ApiProperty({ type: [JobPolicyDto], description: 'Policies the requests name' }) policies!: JobPolicyDto[];
  @ApiProperty({ type: [ReportDto], description: 'The reports, oldest first: every one, or the newest 1,000 of a job with more (`reportCount`)' })
  reports!: ReportDto[];
  @ApiProperty({
    description:
      "False when older reports' thread and context items were left out: `thread` and `additionalItems` hold those of the newest 50 " +
      'reports, newest first, while their distinct items fit in 2 Mi characters of JSON (the newest report always)',
  })
  contextComplete!: boolean;
  @ApiProperty({ type: [ContextItemDto], description: "The reports' thread items by time (those without one last)" }) thread!: ContextItemDto[];
  @ApiProperty({ type: [ContextItemDto] }) additionalItems!: ContextItemDto[];
  @ApiNullableObject(CreatorDto) creator!: CreatorDto | null;
  @ApiProperty({
    type: [JobEvaluationDto],
    description: "The evaluations whose actions sent the item here, then the item's other evaluations in which rules fired, newest first",
  })
  evaluations!: JobEvaluationDto[];
  @ApiProperty({ type: [HashMatchDto] }) hashMatches!: HashMatchDto[];
  @ApiProperty({ type: HistoryDto }) history!: HistoryDto;
  @ApiProperty({ type: JobActionsDto, description: 'What Warden already did to the item and its creator' }) actions!: JobActionsDto;
  @ApiProperty({ type: [RelatedItemDto] }) relatedItems!: RelatedItemDto[];
  @ApiNullableObject(LockViewDto, { description: 'The live lock (its token is only ever given to its holder)' }) lock!: LockViewDto | null;
  @ApiProperty({ type: String, nullable: true }) assignedTo!: string | null;
  @ApiNullableObject(DecisionViewDto) decision!: DecisionViewDto | null;
  @ApiNullableObject(AppealViewDto, { description: "An appeal job's appeal; null on every other job" }) appeal!: AppealViewDto | null;
}
