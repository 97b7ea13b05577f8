import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { MAX_ID_LENGTH } from '#warden/kernel';
import { AsReceived } from '#warden/platform/http';
import { MAX_BULK_ITEMS, MAX_BULK_REASON } from '../../domain/bulk-action-input.js';

export class BulkActionItemDto {
  @ApiProperty({ description: "Customer's identifier of the item", minLength: 1, maxLength: MAX_ID_LENGTH, example: 'post-123' })
  id!: string;
  @ApiProperty({ description: 'Its item type id', example: 'post' })
  typeId!: string;
}

/**
 * A bulk action (docs/bulk-actions.md, "Requests"), for its preview and its request alike. Checked
 * as a whole in the handler, against the organization's actions, item types and policies, so that
 * one answer names every problem.
 */
export class BulkActionRequestDto {
  @ApiProperty({
    type: 'string',
    description: 'The action to execute on every item: a live action of the organization or a built-in enqueue action, assigned to ' + "every item's type.",
    minLength: 1,
    maxLength: MAX_ID_LENGTH,
    example: 'remove',
  })
  @Allow()
  @AsReceived()
  actionId!: unknown;

  @ApiPropertyOptional({
    type: [String],
    description: 'Policies the items violate: the callbacks name them, strikes and scores count them. At most WARDEN_MAX_ITEMS_PER_REQUEST.',
    example: ['spam'],
  })
  @Allow()
  @AsReceived()
  policyIds?: unknown;

  @ApiProperty({
    type: 'string',
    description:
      'Why (recorded with the bulk operation). With the organization, action, policies and item it names each execution: ' +
      'the same items, action, policies and reason again act on nothing twice.',
    minLength: 1,
    maxLength: MAX_BULK_REASON,
    example: 'Spam campaign of 2026-03-01',
  })
  @Allow()
  @AsReceived()
  reason!: unknown;

  @ApiProperty({
    type: [BulkActionItemDto],
    description: `The items, 1 to ${MAX_BULK_ITEMS}; one given twice counts once. Ids follow the rules of every customer id.`,
    maxItems: MAX_BULK_ITEMS,
  })
  @Allow()
  @AsReceived()
  items!: unknown;
}
