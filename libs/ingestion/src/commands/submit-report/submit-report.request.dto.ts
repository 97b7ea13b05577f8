import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { MAX_FREE_TEXT_LENGTH, MAX_ID_LENGTH } from '#warden/kernel';
import { AsReceived } from '#warden/platform/http';

export class ReporterDto {
  @ApiProperty({ enum: ['user'], description: 'Only `user` is supported' })
  kind!: 'user';
  @ApiProperty({ description: "Customer's identifier of the reporting user", minLength: 1, maxLength: MAX_ID_LENGTH, example: 'u-42' })
  id!: string;
  @ApiProperty({ description: 'Item type id of the reporting user (an item type of kind USER)', example: 'user' })
  typeId!: string;
}

export class ReportedItemDto {
  @ApiProperty({ description: "Customer's identifier of the item", minLength: 1, maxLength: MAX_ID_LENGTH, example: 'post-123' })
  id!: string;
  @ApiProperty({ description: 'Item type id', example: 'post' })
  typeId!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "Payload matching the item type's schema; `data.images` (array of URLs) triggers image hashing",
    example: { text: 'buy cheap pills', author: { id: 'u-7', typeId: 'user' } },
  })
  data!: Record<string, unknown>;
}

export class ItemIdentifierDto {
  @ApiProperty({ example: 'post-122' })
  id!: string;
  @ApiProperty({ example: 'post' })
  typeId!: string;
}

export class ReportedForReasonDto {
  @ApiPropertyOptional({ description: 'Violated policy, when the reporter’s reason maps to one (a policy id of the organization)' })
  policyId?: string;
  @ApiPropertyOptional({
    maxLength: MAX_FREE_TEXT_LENGTH,
    description: `Free text from the reporter (personal data: sealed in the log under the reporter’s key); at most ${MAX_FREE_TEXT_LENGTH} characters (400)`,
  })
  reason?: string;
  @ApiPropertyOptional({ description: 'When true, the job goes to the child-safety queue, before any routing rule' })
  csam?: boolean;
}

/**
 * A user report (docs/review.md, "`POST /api/v1/report`"). The body is checked as a whole in the handler, against the
 * organization's item types and policies, so that one answer names every problem (pointers such
 * as /reporter/kind, /reportedItem/data/text, /reportedItemThread/2/typeId).
 */
export class SubmitReportRequestDto {
  @ApiProperty({ type: ReporterDto })
  @Allow()
  @AsReceived()
  reporter!: unknown;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When the user reported: ISO 8601 with a time part', example: '2026-03-01T12:00:00Z' })
  @Allow()
  @AsReceived()
  reportedAt!: unknown;

  @ApiProperty({
    type: ReportedItemDto,
    description:
      'Held to its item type like a submitted item and recorded as a new version of the item (source `report`), so that ' +
      'image hashing and the rules engine see it. Over WARDEN_MAX_ITEM_BYTES as JSON: 413.',
  })
  @Allow()
  @AsReceived()
  reportedItem!: unknown;

  @ApiPropertyOptional({ type: ReportedForReasonDto })
  @Allow()
  @AsReceived()
  reportedForReason?: unknown;

  @ApiPropertyOptional({
    type: [ReportedItemDto],
    description:
      'Other items of the same thread, for reviewers. Stored leniently: required fields are not enforced, but each item needs ' +
      'an id, a known typeId and a data object, and the fields it carries must have their declared formats. At most ' +
      'WARDEN_MAX_ITEMS_PER_REQUEST items (400); each at most WARDEN_MAX_ITEM_BYTES as JSON (413).',
  })
  @Allow()
  @AsReceived()
  reportedItemThread?: unknown;

  @ApiPropertyOptional({
    type: [ItemIdentifierDto],
    description: 'Items of reportedItemThread that were specifically reported; one that names no item of the thread is a 400',
  })
  @Allow()
  @AsReceived()
  reportedItemsInThread?: unknown;

  @ApiPropertyOptional({ type: [ReportedItemDto], description: 'Other content shown alongside, for context; checked like reportedItemThread' })
  @Allow()
  @AsReceived()
  additionalItems?: unknown;
}
