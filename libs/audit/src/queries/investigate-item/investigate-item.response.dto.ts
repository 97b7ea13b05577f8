import type { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { MEDIA_LOADING, type MediaLoading } from '#warden/catalog';

/**
 * The Investigate pages' bodies (docs/console.md, "Investigate"). Personal fields (an item's
 * data, a report's reason, an appeal's reason) are null when erased or not shown to the viewer:
 * `personalData` says which.
 */

const DATA = { type: 'object', additionalProperties: true } as const;
/** OpenAPI 3.0's `nullable` does not reach into `allOf`: `anyOf` the model and a null-only schema, so clients type it `X | null`. */
const nullableObject = (model: Type, description?: string) =>
  ApiProperty({ ...(description ? { description } : {}), anyOf: [{ $ref: getSchemaPath(model) }, { type: 'object', nullable: true, enum: [null] }] });

export class InvestigateRefDto {
  @ApiProperty({ example: 'post' }) typeId!: string;
  @ApiProperty({ example: 'p-1' }) id!: string;
}

export class InvestigateFieldDto {
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'IMAGE' }) type!: string;
  @ApiProperty() array!: boolean;
  @ApiProperty({ type: [String], description: 'The roles it plays: creator, createdAt, thread, displayName' }) roles!: string[];
}

export class InvestigateItemTypeDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'CONTENT' }) kind!: string;
  @ApiProperty({ type: [InvestigateFieldDto] }) fields!: InvestigateFieldDto[];
}

export class InvestigateWellnessDto {
  @ApiProperty({ minimum: 0, maximum: 3 }) blur!: number;
  @ApiProperty() greyscale!: boolean;
  @ApiProperty() breakAfterItems!: number;
  @ApiProperty({ enum: [...MEDIA_LOADING], description: 'When media is loaded: with the page, blurred (`ON_OPEN`), or only once revealed (`ON_REVEAL`)' })
  loadMedia!: MediaLoading;
}

export class InvestigateVersionDto {
  @ApiProperty({ description: 'The version (the revision of the item stream)' }) version!: number;
  @ApiProperty({ type: String, nullable: true, description: 'The typeVersion it was sent with (null: none)' }) typeVersion!: string | null;
  @ApiProperty({ example: 'original' }) typeSchemaVariant!: string;
  @ApiProperty({ example: 'items' }) source!: string;
  @ApiProperty({ format: 'date-time' }) submittedAt!: string;
  @ApiProperty({ description: 'Who sent it: `api-key:<id>`, `cli` …' }) actor!: string;
  @ApiProperty({ ...DATA, nullable: true, description: 'As submitted; null when erased or not shown to you' }) data!: Record<string, unknown> | null;
}

export class InvestigateVersionsDto {
  @ApiProperty({ type: [InvestigateVersionDto], description: 'Newest first' }) entries!: InvestigateVersionDto[];
  @ApiProperty({ type: 'integer', nullable: true, description: 'Pass as `before` for older versions; null: none' }) next!: number | null;
}

export class InvestigateConditionDto {
  @ApiProperty({ description: "The condition's place in the rule, `conditions[0].conditions[1]`; '' for the rule's top set" }) path!: string;
  @ApiProperty({ example: 'passed' }) outcome!: string;
  @ApiPropertyOptional({
    description:
      "The signal's answer, or the input's value compared without a signal (personal: null when erased or not shown to you); absent when not computed",
    anyOf: [{ type: 'boolean' }, { type: 'number' }, { type: 'string', nullable: true }],
  })
  value?: unknown;
  @ApiPropertyOptional() error?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'A distance, a matched bank entry …' }) detail?: Record<string, unknown>;
}

export class InvestigateRuleResultDto {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'passed' }) outcome!: string;
  @ApiProperty({ description: "Passed, but the rule's maxDailyActions was reached" }) capped!: boolean;
  @ApiProperty({ type: [InvestigateConditionDto] }) conditions!: InvestigateConditionDto[];
}

export class InvestigateEvaluationActionDto {
  @ApiProperty() id!: string;
  @ApiProperty() kind!: string;
}

export class InvestigateHashMatchDto {
  @ApiProperty() ruleId!: string;
  @ApiProperty() path!: string;
  @ApiProperty() bankId!: string;
  @ApiProperty({ type: Number, nullable: true }) distance!: number | null;
}

export class InvestigateEvaluationDto {
  @ApiProperty() version!: number;
  @ApiProperty({ example: 'LIVE' }) environment!: string;
  @ApiProperty({ format: 'date-time' }) evaluatedAt!: string;
  @ApiProperty({ type: [InvestigateRuleResultDto] }) rules!: InvestigateRuleResultDto[];
  @ApiProperty({ type: [InvestigateEvaluationActionDto] }) actions!: InvestigateEvaluationActionDto[];
  @ApiProperty({ type: [InvestigateHashMatchDto] }) hashMatches!: InvestigateHashMatchDto[];
}

export class InvestigateDeliveryDto {
  @ApiProperty({ enum: ['PENDING', 'DELIVERED', 'FAILING', 'DEAD_LETTERED'] }) state!: 'PENDING' | 'DELIVERED' | 'FAILING' | 'DEAD_LETTERED';
  @ApiProperty() attempts!: number;
  @ApiProperty({ type: Number, nullable: true }) lastStatus!: number | null;
  @ApiProperty({ format: 'date-time' }) at!: string;
}

export class InvestigateActionDto {
  @ApiProperty() actionId!: string;
  @ApiProperty({ example: 'rule', description: 'rule, decision, strike-threshold or post-actions' }) trigger!: string;
  @ApiProperty({ type: InvestigateRefDto }) item!: InvestigateRefDto;
  @ApiProperty({ format: 'date-time' }) publishedAt!: string;
  @ApiProperty() actor!: string;
  @ApiProperty({ type: [String] }) policyIds!: string[];
  @ApiProperty({ type: [String] }) ruleIds!: string[];
  @ApiProperty() deliveryId!: string;
  @nullableObject(InvestigateDeliveryDto, 'Where its callback stands; null: no delivery recorded') delivery!: InvestigateDeliveryDto | null;
}

export class InvestigateReportDto {
  @ApiProperty() reportId!: string;
  @ApiProperty({ format: 'date-time' }) reportedAt!: string;
  @ApiProperty({ type: InvestigateRefDto }) reportedItem!: InvestigateRefDto;
  @nullableObject(InvestigateRefDto) reporter!: InvestigateRefDto | null;
  @ApiProperty({ type: String, nullable: true }) policyId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Null: none given, erased, or not shown to you' }) reason!: string | null;
  @ApiProperty({
    description:
      'Whether its reason and context were opened for this page: false without personal data, or for a report older than those whose ' +
      'reasons, threads and context items filled the page (1 Mi characters of JSON; the newest report always)',
  })
  opened!: boolean;
  @ApiProperty() actor!: string;
}

export class InvestigateDecisionDto {
  @ApiProperty() decisionId!: string;
  @ApiProperty({ example: 'CUSTOM_ACTION' }) type!: string;
  @ApiProperty({ type: String, nullable: true, description: "The moderator's console user id; null for a decision Warden made" }) moderator!: string | null;
  @ApiProperty({ format: 'date-time' }) decidedAt!: string;
  @ApiProperty({ type: [String] }) actionIds!: string[];
  @ApiProperty({ type: [String] }) policyIds!: string[];
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true }) closeReason!: string | null;
}

export class InvestigateJobDto {
  @ApiProperty() jobId!: string;
  @ApiProperty({ type: String, nullable: true }) queueId!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) openedAt!: string | null;
  @ApiProperty({ type: [InvestigateDecisionDto] }) decisions!: InvestigateDecisionDto[];
}

export class InvestigateAppealDto {
  @ApiProperty() appealId!: string;
  @ApiProperty({ format: 'date-time' }) appealedAt!: string;
  @nullableObject(InvestigateRefDto) actionedItem!: InvestigateRefDto | null;
  @nullableObject(InvestigateRefDto) appellant!: InvestigateRefDto | null;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'ACCEPT' }) decision!: string | null;
  @ApiProperty({ type: String, nullable: true }) decidedBy!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) decidedAt!: string | null;
}

export class InvestigateThreadItemDto {
  @ApiProperty() typeId!: string;
  @ApiProperty() id!: string;
  @ApiProperty({ ...DATA, nullable: true }) data!: Record<string, unknown> | null;
  @ApiProperty({ description: 'A report named it as reported' }) reported!: boolean;
}

export class InvestigateTimelineEntryDto {
  @ApiProperty() position!: number;
  @ApiProperty({ format: 'date-time' }) occurredAt!: string;
  @ApiProperty({ example: 'ReviewJobDecided' }) type!: string;
  @ApiProperty({ description: 'Who or what caused it: `user:<id>` (a console user), `api-key:<id>`, `cli`, or the module that reacted' }) actor!: string;
  @ApiProperty() summary!: string;
}

export class InvestigateTimelineDto {
  @ApiProperty({ type: [InvestigateTimelineEntryDto], description: 'The newest 50 events, oldest first' }) entries!: InvestigateTimelineEntryDto[];
  @ApiProperty({ description: "Older events exist: the item's history (`…/history`) pages through all of them" }) earlier!: boolean;
}

export class InvestigateStrikeDto {
  @ApiProperty() strikes!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The count once these strikes were in; null without VIEW_CHILD_SAFETY_DATA (it would tell of a strike not listed)',
  })
  countAfter!: number | null;
  @ApiProperty() actionId!: string;
  @ApiProperty({ type: [String] }) policyIds!: string[];
  @ApiProperty({ type: InvestigateRefDto }) item!: InvestigateRefDto;
  @ApiProperty({ format: 'date-time' }) appliedAt!: string;
  @ApiProperty({ description: 'Still counts (within the window, not reversed)' }) counting!: boolean;
}

export class InvestigateStrikesDto {
  @ApiProperty({ description: 'Strikes within the window now' }) count!: number;
  @ApiProperty({ type: Number, nullable: true }) windowDays!: number | null;
  @ApiProperty({ type: [InvestigateStrikeDto], description: 'Newest first, at most 50' }) entries!: InvestigateStrikeDto[];
}

export class InvestigateRecentItemDto {
  @ApiProperty() typeId!: string;
  @ApiProperty() id!: string;
  @ApiProperty({ format: 'date-time' }) submittedAt!: string;
}

export class InvestigateCreatorDto {
  @ApiProperty({ type: InvestigateRefDto }) user!: InvestigateRefDto;
  @ApiProperty({ minimum: 1, maximum: 5 }) score!: number;
  @ApiProperty({ type: InvestigateStrikesDto }) strikes!: InvestigateStrikesDto;
  @ApiProperty({ type: [InvestigateRecentItemDto] }) recentItems!: InvestigateRecentItemDto[];
}

export class InvestigateItemResponseDto {
  @ApiProperty({ type: InvestigateRefDto }) item!: InvestigateRefDto;
  @ApiProperty({ description: 'Personal fields are shown to you; null fields are erased. False: null fields are hidden from you' }) personalData!: boolean;
  @nullableObject(InvestigateItemTypeDto) itemType!: InvestigateItemTypeDto | null;
  @ApiProperty({ type: InvestigateWellnessDto, description: "The organization's wellness defaults (media blur)" }) wellness!: InvestigateWellnessDto;
  @nullableObject(InvestigateRefDto) creator!: InvestigateRefDto | null;
  @ApiProperty({ type: InvestigateVersionsDto }) versions!: InvestigateVersionsDto;
  @ApiProperty({ type: [InvestigateEvaluationDto], description: 'The newest 10, newest first' }) evaluations!: InvestigateEvaluationDto[];
  @ApiProperty({ type: [InvestigateActionDto], description: 'The newest 50, newest first' }) actions!: InvestigateActionDto[];
  @ApiProperty({ type: [InvestigateReportDto], description: 'The newest 50, newest first' }) reports!: InvestigateReportDto[];
  @ApiProperty({ type: [InvestigateJobDto], description: 'Review jobs with their decisions, newest first' }) jobs!: InvestigateJobDto[];
  @ApiProperty({ type: [InvestigateAppealDto] }) appeals!: InvestigateAppealDto[];
  @ApiProperty({ type: [InvestigateThreadItemDto], description: "The newest report's thread, as sent" }) thread!: InvestigateThreadItemDto[];
  @ApiProperty({ type: InvestigateTimelineDto }) timeline!: InvestigateTimelineDto;
  @nullableObject(InvestigateCreatorDto, "The creator's standing; null without a creator") creatorStanding!: InvestigateCreatorDto | null;
}

export class InvestigateUserItemDto {
  @ApiProperty() typeId!: string;
  @ApiProperty() id!: string;
  @ApiProperty({ format: 'date-time' }) submittedAt!: string;
  @ApiProperty() version!: number;
}

export class InvestigateUserItemsDto {
  @ApiProperty({ type: [InvestigateUserItemDto], description: 'Newest first' }) entries!: InvestigateUserItemDto[];
  @ApiProperty({ type: 'integer', nullable: true, description: 'Pass as `before` for older items; null: none' }) next!: number | null;
}

export class InvestigateUserResponseDto {
  @ApiProperty({ type: InvestigateRefDto }) user!: InvestigateRefDto;
  @ApiProperty() personalData!: boolean;
  @nullableObject(InvestigateItemTypeDto) itemType!: InvestigateItemTypeDto | null;
  @ApiProperty({ type: InvestigateWellnessDto }) wellness!: InvestigateWellnessDto;
  @ApiProperty({ description: 'A GDPR deletion of this user completed: their personal fields read as erased' }) erased!: boolean;
  @nullableObject(InvestigateVersionDto, "The user's own item, newest version") profile!: InvestigateVersionDto | null;
  @ApiProperty({ minimum: 1, maximum: 5 }) score!: number;
  @ApiProperty({ type: InvestigateStrikesDto }) strikes!: InvestigateStrikesDto;
  @ApiProperty({ type: InvestigateUserItemsDto }) items!: InvestigateUserItemsDto;
  @ApiProperty({ type: [InvestigateActionDto], description: 'Actions on their items (and on them), newest 50' }) actions!: InvestigateActionDto[];
  @ApiProperty({ type: [InvestigateReportDto] }) reportsFiled!: InvestigateReportDto[];
  @ApiProperty({ type: [InvestigateAppealDto] }) appeals!: InvestigateAppealDto[];
  @ApiProperty({ type: InvestigateTimelineDto }) timeline!: InvestigateTimelineDto;
}

export class InvestigationTargetDto {
  @ApiProperty({ enum: ['item', 'user'], description: "Which page: a user's for an item of a USER type" }) kind!: 'item' | 'user';
  @ApiProperty() typeId!: string;
  @ApiProperty() id!: string;
}

export const INVESTIGATE_EXTRA_MODELS = [InvestigateRefDto, InvestigateItemTypeDto, InvestigateDeliveryDto, InvestigateVersionDto, InvestigateCreatorDto];
