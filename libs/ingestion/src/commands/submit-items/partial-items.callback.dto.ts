import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SubmittedItemDto } from './submit-items.request.dto.js';

/**
 * The partial-items interface (docs/partial-items.md), as the customer
 * implements it: published as a callback of POST /api/v1/items/async/, whose `partial` items make
 * Warden call it. The server side is libs/partial-items; these classes only describe the payloads.
 */
class PartialItemRefDto {
  @ApiProperty({ example: 'post-1' }) id!: string;
  @ApiProperty({ example: 'post' }) typeId!: string;
}

export class PartialItemsRequestDto {
  @ApiProperty({ enum: ['PARTIAL_ITEMS_REQUEST'] }) type!: 'PARTIAL_ITEMS_REQUEST';
  @ApiProperty({ enum: [1], description: 'The payload version; a new shape comes as a new version' }) version!: 1;
  @ApiProperty({ example: 'acme' }) orgId!: string;
  @ApiProperty({ description: 'Names the request; also the Service-Delivery-Id header, inside the signed bytes. The same on every retry of the request' })
  requestId!: string;
  @ApiProperty({
    enum: ['missing-fields', 'related-item', 'console'],
    description:
      "missing-fields: a partial item's rules need fields it lacks; related-item: an item a RELATED_ITEM field names that Warden never received; console: a moderator asked for the full item",
  })
  reason!: string;
  @ApiProperty({ type: [PartialItemRefDto], description: 'The items wanted whole (at most 100)' }) items!: PartialItemRefDto[];
}

export class PartialItemsAnswerDto {
  @ApiProperty({
    type: [SubmittedItemDto],
    description:
      'The whole items, exactly as POST /api/v1/items/async/ takes them (validated the same way, all or nothing): only items asked for, each once. ' +
      'Each is recorded as a new version of the item (source partial-fetch) with its typeVersion',
  })
  items!: SubmittedItemDto[];
  @ApiPropertyOptional({ type: [PartialItemRefDto], description: 'Items asked for that do not exist (any left out of both lists also count as not found)' })
  notFound?: PartialItemRefDto[];
}
