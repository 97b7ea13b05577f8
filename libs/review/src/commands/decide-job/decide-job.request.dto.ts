import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { AsReceived, IsJsonObject, IsNonEmptyString } from '#warden/platform/http';
import { MAX_FREE_TEXT_LENGTH } from '#warden/kernel';
import { APPEAL_DECISION_TYPES, MODERATOR_DECISION_TYPES } from '../../domain/decision-check.js';

const MAX_TEXT = MAX_FREE_TEXT_LENGTH;

export class DecideJobRequestDto {
  @ApiProperty({ description: 'The token of your live lock on the job (from the claim)', example: 'p3V0Yy1sb2NrLXRva2VuLWV4YW1wbGU' })
  @IsNonEmptyString()
  lockToken!: string;

  @ApiProperty({
    enum: [...MODERATOR_DECISION_TYPES, ...APPEAL_DECISION_TYPES],
    description:
      'ACCEPT_APPEAL / REJECT_APPEAL are only possible on appeal jobs, and an appeal job takes no other type (400 at /type either way); ' +
      "AUTOMATIC_CLOSE is the system's",
    example: 'CUSTOM_ACTION',
  })
  @IsNonEmptyString()
  type!: string;

  @ApiPropertyOptional({ type: [String], description: "CUSTOM_ACTION: the customer-defined actions of the item's type to take", example: ['remove'] })
  @IsOptional()
  @IsArray({ message: 'expected an array of action ids' })
  @ArrayMaxSize(50, { message: 'at most 50 actions' })
  @IsString({ each: true, message: 'expected an array of action ids' })
  actionIds?: string[] | null;

  @ApiPropertyOptional({ type: [String], description: 'Policies from the policy tree the decision is about', example: ['spam'] })
  @IsOptional()
  @IsArray({ message: 'expected an array of policy ids' })
  @ArrayMaxSize(50, { message: 'at most 50 policies' })
  @IsString({ each: true, message: 'expected an array of policy ids' })
  policyIds?: string[] | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_TEXT,
    description: 'Why: sent as `decisionReason` and `custom.reason`; required when the organization sets requireDecisionReason',
  })
  @IsOptional()
  @IsString({ message: 'expected a string' })
  @MaxLength(MAX_TEXT, { message: `at most ${MAX_TEXT} characters` })
  reason?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_TEXT, description: 'A note for the record: sent as `actorNote`' })
  @IsOptional()
  @IsString({ message: 'expected a string' })
  @MaxLength(MAX_TEXT, { message: `at most ${MAX_TEXT} characters` })
  note?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: "CUSTOM_ACTION: values for the chosen actions' parameters, checked against their types; merged into the callback's `custom`",
    example: { durationDays: 7 },
  })
  @IsOptional()
  @IsJsonObject()
  @AsReceived()
  parameters?: { [name: string]: unknown } | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE: the queue the job is recreated in', example: 'spam' })
  @IsOptional()
  @IsString({ message: 'expected a string' })
  targetQueueId?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 0,
    description:
      "The item version you decide on: the job view's `item.version` (the version whose data it showed). Omitted: the version your claim showed. " +
      'Recorded with the decision and its callbacks (`item` / `decidedOn`, with the content digest); 400 at /itemVersion for a version the item does not have',
    example: 0,
  })
  @IsOptional()
  @IsInt({ message: 'expected a whole number' })
  @Min(0, { message: 'expected 0 or more' })
  @Max(Number.MAX_SAFE_INTEGER, { message: 'too large' })
  itemVersion?: number | null;
}
