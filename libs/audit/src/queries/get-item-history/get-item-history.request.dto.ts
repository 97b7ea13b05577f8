import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { QueryInteger } from '#warden/platform/http';

export class GetItemHistoryRequestDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 100, description: 'Page size' })
  @IsOptional()
  @QueryInteger(1, 500)
  limit?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, description: "Entries to skip: pass the previous page's `next`" })
  @IsOptional()
  @QueryInteger(0)
  offset?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description:
      "The entries after this log position: pass the previous page's `nextAfter`. Each page then costs what the first does, " +
      'however long the history (a deep `offset` steps over every entry before it). Not with `offset`',
  })
  @IsOptional()
  @QueryInteger(0)
  after?: number;
}
