import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class SubmittedItemDto {
  @ApiProperty({ description: "Customer's unique identifier of the item", example: 'post-123' })
  id!: string;
  @ApiProperty({ description: 'Item type id, as configured', example: 'post' })
  typeId!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      "Payload matching the item type's schema (formats: GET /api/v1/item_types/). `data.images` (array of URLs) " +
      'triggers image hashing. Fields the item type does not declare are accepted and stored.',
    example: { text: 'hello', author: { id: 'u1', typeId: 'user' } },
  })
  data!: Record<string, unknown>;
  @ApiPropertyOptional({ description: 'Schema version string; stored with the item' })
  typeVersion?: string;
  @ApiPropertyOptional({ enum: ['original', 'partial'], description: '`partial` skips required-field checks' })
  typeSchemaVariant?: 'original' | 'partial';
}

export class SubmitItemsRequestDto {
  @ApiProperty({
    type: [SubmittedItemDto],
    description:
      'Items to evaluate. All or nothing: if any item is invalid the whole request is rejected with 400 and one error ' +
      'per problem (pointer such as /items/3/data/text), and nothing is recorded. At most 1,000 items by default ' +
      '(WARDEN_MAX_ITEMS_PER_REQUEST). Re-submitting an item id records a new version and evaluates it again.',
  })
  items!: SubmittedItemDto[];
}

export class SubmitItemsResponseDto {
  @ApiProperty({ description: 'Number of items recorded; they are durable in the event log', example: 2 })
  accepted!: number;
  @ApiProperty({ description: 'Correlation id of this request (also X-Request-Id)' })
  requestId!: string;
}
