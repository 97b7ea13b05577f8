import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { QueryInteger } from '#warden/platform/http';

/** An Investigate page's cursor: the item's versions, or the user's items, before a log position. */
export class InvestigatePageRequestDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: "Older entries: pass the previous page's `next` (versions of an item, items of a user)" })
  @IsOptional()
  @QueryInteger(1)
  before?: number;
}
