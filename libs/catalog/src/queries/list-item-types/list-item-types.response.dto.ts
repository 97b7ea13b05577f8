import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FIELD_TYPES, type FieldType, ITEM_KINDS, type ItemKind } from '../../domain/catalog.model.js';

export class ItemTypeFieldDto {
  @ApiProperty({ example: 'text' })
  name!: string;
  @ApiProperty({
    enum: FIELD_TYPES,
    description:
      'Format of the value in `data`: STRING string, NUMBER number, BOOLEAN boolean, IMAGE/AUDIO/VIDEO/URL absolute ' +
      'http(s) URL, GEOHASH base-32 geohash, DATETIME ISO 8601 with a time part, RELATED_ITEM object {id, typeId}',
  })
  type!: FieldType;
  @ApiProperty({ description: 'Required unless the item is sent with typeSchemaVariant "partial"' })
  required!: boolean;
  @ApiProperty({ description: 'The value is an array of values of `type`' })
  array!: boolean;
  @ApiProperty({ type: [String], description: 'RELATED_ITEM only: allowed item types of the related item ([] = any)' })
  itemTypeIds!: string[];
}

export class ItemTypeRolesDto {
  @ApiPropertyOptional({ description: 'RELATED_ITEM field naming the user who made the item (CONTENT, THREAD)' })
  creator?: string;
  @ApiPropertyOptional({ description: 'DATETIME field with the creation time' })
  createdAt?: string;
  @ApiPropertyOptional({ description: 'RELATED_ITEM field naming the containing thread' })
  thread?: string;
  @ApiPropertyOptional({ description: 'USER items: the field with the display name' })
  displayName?: string;
}

export class ItemTypeDto {
  @ApiProperty({ description: 'The typeId customers send', example: 'post' })
  id!: string;
  @ApiProperty({ description: 'Display name (typeName in callbacks)', example: 'Post' })
  name!: string;
  @ApiProperty({ enum: ITEM_KINDS })
  kind!: ItemKind;
  @ApiProperty({ type: String, nullable: true, description: 'Schema version; items may send typeVersion' })
  version!: string | null;
  @ApiProperty({
    type: [ItemTypeFieldDto],
    description: 'Declared fields. Submitted items may carry fields that are not declared: they are accepted and stored.',
  })
  fields!: ItemTypeFieldDto[];
  @ApiProperty({ type: ItemTypeRolesDto, description: 'Which fields play known parts' })
  roles!: ItemTypeRolesDto;
}

export class ListItemTypesResponseDto {
  @ApiProperty({ type: [ItemTypeDto] })
  itemTypes!: ItemTypeDto[];
}
