import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_ID_LENGTH } from '#warden/kernel';
import { DEFAULT_MAX_ITEMS_PER_REQUEST, MAX_ITEMS_PER_REQUEST_CEILING } from '#warden/platform';
import { AsReceived, IsNonEmptyArray } from '#warden/platform/http';

const TYPE_SCHEMA_VARIANTS = ['original', 'partial'] as const;

/**
 * One item, as the OpenAPI document describes it. Items are validated once, in the handler, by
 * the catalog's item validator: their shape and the fields of `data`, which depend on the
 * organization's item type. (Nesting class-validator over every item as well cost 0.5 ms per
 * 100-item request, a tenth of one-process ingestion, for checks the item validator makes anyway.)
 */
export class SubmittedItemDto {
  @ApiProperty({
    description: "Customer's unique identifier of the item: well-formed Unicode without control characters",
    example: 'post-123',
    minLength: 1,
    maxLength: MAX_ID_LENGTH,
  })
  id!: string;
  @ApiProperty({ description: 'Item type id, as configured', example: 'post', minLength: 1, maxLength: MAX_ID_LENGTH })
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
  @ApiPropertyOptional({ enum: TYPE_SCHEMA_VARIANTS, description: '`partial` skips required-field checks' })
  typeSchemaVariant?: (typeof TYPE_SCHEMA_VARIANTS)[number];
}

export class SubmitItemsRequestDto {
  @ApiProperty({
    type: [SubmittedItemDto],
    description:
      'Items to evaluate. All or nothing: if any item is invalid the whole request is rejected with 400 and one error ' +
      'per problem (pointer such as /items/3/data/text), and nothing is recorded. `maxItems` is the default ' +
      'limit; a server may be configured with another (WARDEN_MAX_ITEMS_PER_REQUEST, 1 to 100,000), and a request ' +
      'over its limit is a 400 with pointer /items. The same typeId and id may appear only once per request: each later ' +
      'occurrence is a 400 pointing at its id (/items/4/id) and naming the first. An item over 1 MiB as JSON ' +
      '(WARDEN_MAX_ITEM_BYTES) is a 413 pointing at it. Re-submitting an item id in a later request records a new ' +
      'version and evaluates it again (see Idempotency-Key to make a retry safe).',
    minItems: 1,
    maxItems: DEFAULT_MAX_ITEMS_PER_REQUEST,
  })
  // The ceiling here; the handler enforces the configured limit.
  @IsNonEmptyArray(MAX_ITEMS_PER_REQUEST_CEILING)
  @AsReceived()
  items!: unknown[];
}

export class SubmitItemsResponseDto {
  @ApiProperty({ description: 'Number of items recorded; they are durable in the event log', example: 2 })
  accepted!: number;
  @ApiProperty({ description: 'Correlation id of this request (also X-Request-Id)' })
  requestId!: string;
}
