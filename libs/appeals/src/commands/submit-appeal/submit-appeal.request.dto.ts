import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { MAX_FREE_TEXT_LENGTH, MAX_ID_LENGTH } from '#warden/kernel';
import { AsReceived } from '#warden/platform/http';

export class AppellantDto {
  @ApiProperty({ description: "Customer's identifier of the appealing user", minLength: 1, maxLength: MAX_ID_LENGTH, example: 'u-7' })
  id!: string;
  @ApiProperty({ description: 'Item type id of the appealing user (an item type of kind USER)', example: 'user' })
  typeId!: string;
}

export class AppealItemDto {
  @ApiProperty({ description: "Customer's identifier of the item", minLength: 1, maxLength: MAX_ID_LENGTH, example: 'post-123' })
  id!: string;
  @ApiProperty({ description: 'Item type id', example: 'post' })
  typeId!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The item's data; held to its item type's field formats (required fields are not enforced)",
    example: { text: 'my post' },
  })
  data!: Record<string, unknown>;
}

export class PolicyRefDto {
  @ApiProperty({ description: 'A policy id of the organization', example: 'spam' })
  id!: string;
}

/**
 * A user appeal (docs/review.md, "Appeals"). The body is checked as a whole in the handler, against the
 * organization's item types and policies, so that one answer names every problem.
 */
export class SubmitAppealRequestDto {
  @ApiProperty({
    type: 'string',
    description:
      "Customer's own appeal id, returned in the appeal decision callback. The idempotency key of this route: the same id again " +
      'is answered 204 and records nothing (the first appeal under an id stands, even when the second body differs).',
    minLength: 1,
    maxLength: MAX_ID_LENGTH,
    example: 'appeal-981',
  })
  @Allow()
  @AsReceived()
  appealId!: unknown;

  @ApiProperty({ type: AppellantDto, description: 'The appealing user (personal data: sealed in the log under their key)' })
  @Allow()
  @AsReceived()
  appealedBy!: unknown;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When the user appealed: ISO 8601 with a time part', example: '2026-03-02T09:30:00Z' })
  @Allow()
  @AsReceived()
  appealedAt!: unknown;

  @ApiProperty({ type: AppealItemDto, description: 'The item that was actioned. Over WARDEN_MAX_ITEM_BYTES as JSON: 413.' })
  @Allow()
  @AsReceived()
  actionedItem!: unknown;

  @ApiProperty({
    type: [String],
    minItems: 1,
    description: 'Ids of the actions taken on the item and sent to the action callback (at least one)',
    example: ['remove'],
  })
  @Allow()
  @AsReceived()
  actionsTaken!: unknown;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: MAX_FREE_TEXT_LENGTH,
    description: `Free text from the user (personal data: sealed in the log under their key); at most ${MAX_FREE_TEXT_LENGTH} characters (400)`,
  })
  @Allow()
  @AsReceived()
  appealReason?: unknown;

  @ApiPropertyOptional({ type: [PolicyRefDto], description: 'Policies received in the original action callback; an unknown policy id is a 400' })
  @Allow()
  @AsReceived()
  violatingPolicies?: unknown;

  @ApiPropertyOptional({ type: [AppealItemDto], description: 'Context items, checked like actionedItem; at most WARDEN_MAX_ITEMS_PER_REQUEST' })
  @Allow()
  @AsReceived()
  additionalItems?: unknown;
}
