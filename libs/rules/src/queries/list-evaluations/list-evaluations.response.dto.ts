import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ConditionRecordDto {
  @ApiProperty({ description: 'Position in the rule, e.g. conditions[1].conditions[0]; "" for the rule\'s top-level set' })
  path!: string;
  @ApiProperty({ enum: ['passed', 'failed', 'unknown', 'skipped'], description: 'skipped: short-circuited' })
  outcome!: string;
  @ApiPropertyOptional({
    description:
      "The signal's value (a boolean for the text and hash signals, a number for scores, distances and counts), or " +
      "without a signal the field's value when it is a boolean or a number. Absent when not computed, and for other " +
      'field values (text, objects), which are never recorded. null when the signal answered null.',
    anyOf: [{ type: 'boolean' }, { type: 'number', nullable: true }],
  })
  value?: unknown;
  @ApiPropertyOptional({
    description: 'Why a leaf is unknown: the signal failed, or a partial item did not send a field it needs (with why the whole item could not be fetched)',
  })
  error?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Signal detail, e.g. matched bank' })
  detail?: Record<string, unknown>;
}

export class RuleResultDto {
  @ApiProperty()
  id!: string;
  @ApiProperty()
  name!: string;
  @ApiProperty({ enum: ['LIVE', 'BACKGROUND', 'DRAFT', 'EXPIRED'] })
  status!: string;
  @ApiProperty({ enum: ['passed', 'failed', 'unknown'] })
  outcome!: string;
  @ApiProperty({ description: 'Passed, but its maxDailyActions for the UTC day was reached: no actions' })
  capped!: boolean;
  @ApiPropertyOptional({
    description:
      "Digest of the rule's definition as evaluated (canonical JSON, SHA-256, base64url; docs/rules.md); absent on evaluations recorded before it was",
  })
  definition?: string;
  @ApiProperty({ type: [ConditionRecordDto] })
  conditions!: ConditionRecordDto[];
}

export class PublishedActionDto {
  @ApiProperty()
  id!: string;
  @ApiProperty({ enum: ['CUSTOMER_DEFINED_ACTION', 'ENQUEUE_TO_MRT', 'ENQUEUE_TO_CHILD_SAFETY'] })
  kind!: string;
  @ApiProperty({ type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, penalty: { type: 'string' } } } })
  policies!: Array<{ id: string; name: string; penalty: string }>;
  @ApiProperty({ type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } } })
  rules!: Array<{ id: string; name: string }>;
}

export class EvaluationDto {
  @ApiProperty({ description: 'Item version (0 for the first submission, +1 per re-submission)' })
  version!: number;
  @ApiProperty({ enum: ['LIVE', 'RETROACTION', 'MANUAL', 'BACKTEST'] })
  environment!: string;
  @ApiProperty()
  evaluatedAt!: string;
  @ApiProperty({ type: [RuleResultDto] })
  rules!: RuleResultDto[];
  @ApiProperty({ type: [PublishedActionDto], description: 'Actions published, de-duplicated' })
  actions!: PublishedActionDto[];
}

export class ListEvaluationsResponseDto {
  @ApiProperty({ type: [EvaluationDto], description: 'Newest first (at most 100)' })
  evaluations!: EvaluationDto[];
}
