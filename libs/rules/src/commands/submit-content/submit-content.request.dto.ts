import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_ID_LENGTH } from '#warden/kernel';
import { AsReceived, IsBooleanValue, IsCustomerId, IsJsonObject, WhenPresent } from '#warden/platform/http';

/** The legacy single item. Its `content` is checked against the item type by the items validator. */
export class SubmitContentRequestDto {
  @ApiProperty({
    description: 'The item id: well-formed Unicode without control characters',
    example: 'post-123',
    minLength: 1,
    maxLength: MAX_ID_LENGTH,
  })
  @IsCustomerId()
  contentId!: string;
  @ApiProperty({ description: 'The item type id', example: 'post', minLength: 1, maxLength: MAX_ID_LENGTH })
  @IsCustomerId()
  contentType!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The item's data, as for POST /api/v1/items/async/ (undeclared fields are accepted and stored)",
  })
  @IsJsonObject('expected an object')
  @AsReceived()
  content!: Record<string, unknown>;
  @ApiPropertyOptional({
    description: "The author's user id, used as creator when the item type has no creator role",
    minLength: 1,
    maxLength: MAX_ID_LENGTH,
  })
  @WhenPresent()
  @IsCustomerId()
  userId?: string;
  @ApiPropertyOptional({ description: 'true: evaluate now and answer 200 with the result; actions are still published' })
  @WhenPresent()
  @IsBooleanValue()
  sync?: boolean;
}

export class ContentRuleResultDto {
  @ApiProperty()
  id!: string;
  @ApiProperty()
  name!: string;
  @ApiProperty({ enum: ['LIVE', 'BACKGROUND'] })
  status!: string;
  @ApiProperty({ enum: ['passed', 'failed', 'unknown', 'capped'], description: 'capped: passed, but maxDailyActions reached' })
  result!: string;
}

export class TriggeredActionDto {
  @ApiProperty()
  id!: string;
  @ApiProperty()
  name!: string;
}

export class SubmitContentSyncResponseDto {
  @ApiProperty()
  contentId!: string;
  @ApiProperty({ type: [ContentRuleResultDto] })
  rules!: ContentRuleResultDto[];
  @ApiProperty({ type: [TriggeredActionDto], description: 'Actions published for this item version' })
  actionsTriggered!: TriggeredActionDto[];
}

export class SubmitContentAsyncResponseDto {
  @ApiProperty({ example: 1 })
  accepted!: number;
  @ApiProperty()
  requestId!: string;
}
