import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { MAX_ID_LENGTH } from '#warden/kernel';
import { AsReceived } from '#warden/platform/http';

export class ExecutionReportedItemDto {
  @ApiProperty({ description: "Customer's identifier of a reported item", minLength: 1, maxLength: MAX_ID_LENGTH, example: 'post-122' })
  id!: string;
  @ApiProperty({ description: 'Its item type id', example: 'post' })
  typeId!: string;
}

/**
 * An action executed by the platform (docs/enforcement.md, "`POST /api/v1/actions`: actions the platform executes"). The body is checked as a whole in the
 * handler, against the organization's actions, item types and policies, so that one answer names
 * every problem.
 */
export class ExecuteActionRequestDto {
  @ApiProperty({
    type: 'string',
    description:
      'The action to execute: a live action of the organization (an archived one is unknown) or a built-in ' +
      '(`enqueue-to-mrt`, `enqueue-to-child-safety`: the item goes to review, enqueue source `POST_ACTIONS`). It must ' +
      'be assigned to `itemTypeId` (the built-ins are assigned to every item type).',
    minLength: 1,
    maxLength: MAX_ID_LENGTH,
    example: 'remove',
  })
  @Allow()
  @AsReceived()
  actionId!: unknown;

  @ApiProperty({
    type: 'string',
    description:
      "Customer's identifier of the item the action is taken on. Warden need not know the item; when it does, the " +
      'creator of its latest stored version is the user the action concerns (strikes, score, `creator` in the callback). ' +
      'A USER item is its own user.',
    minLength: 1,
    maxLength: MAX_ID_LENGTH,
    example: 'post-123',
  })
  @Allow()
  @AsReceived()
  itemId!: unknown;

  @ApiProperty({ type: 'string', description: "The item's type: an item type of the organization", minLength: 1, maxLength: MAX_ID_LENGTH, example: 'post' })
  @Allow()
  @AsReceived()
  itemTypeId!: unknown;

  @ApiPropertyOptional({
    type: [String],
    description:
      'Policies the item violates (policy ids of the organization): sent as `policies` in the callback, and what strikes ' +
      'and the score count (none given: the action strikes no one and weighs only its own penalty). At most ' +
      'WARDEN_MAX_ITEMS_PER_REQUEST.',
    example: ['spam'],
  })
  @Allow()
  @AsReceived()
  policyIds?: unknown;

  @ApiPropertyOptional({
    type: [ExecutionReportedItemDto],
    description:
      'Items whose reports this action answers: their open review jobs (not appeal jobs) close with AUTOMATIC_CLOSE ' +
      '(ITEM_ACTIONED). List the actioned item itself to close its own jobs. Warden need not know them. At most ' +
      'WARDEN_MAX_ITEMS_PER_REQUEST.',
  })
  @Allow()
  @AsReceived()
  reportedItems?: unknown;

  @ApiPropertyOptional({
    type: 'string',
    description:
      'Who at the platform executed the action, as the platform identifies them: an opaque id (not an email or a name: it is ' +
      'recorded in the log as given). Kept with the execution for audit; the callback has no field for it.',
    minLength: 1,
    maxLength: MAX_ID_LENGTH,
    example: 'staff-17',
  })
  @Allow()
  @AsReceived()
  actorId?: unknown;
}
