import { ApiProperty } from '@nestjs/swagger';

export class BulkActionPreviewCountsDto {
  @ApiProperty({ description: 'Unique items named' })
  items!: number;
  @ApiProperty({ description: 'Stored in the organization: what the bulk action acts on' })
  existing!: number;
  @ApiProperty({ description: 'Not stored in the organization (another organization’s ids too): never acted on' })
  missing!: number;
  @ApiProperty({ description: 'Existing items not yet executed with this action, policies and reason: the new actions' })
  newActions!: number;
  @ApiProperty({ description: 'Existing items executed already with this action, policies and reason: not acted on again' })
  alreadyActioned!: number;
}

export class BulkActionTypePreviewDto extends BulkActionPreviewCountsDto {
  @ApiProperty({ example: 'post' })
  typeId!: string;
}

export class BulkActionPreviewDto extends BulkActionPreviewCountsDto {
  @ApiProperty({ description: 'Items given more than once (counted and acted on once)' })
  duplicates!: number;
  @ApiProperty({ type: [BulkActionTypePreviewDto], description: 'The counts per item type, in the order first named' })
  byType!: BulkActionTypePreviewDto[];
}
